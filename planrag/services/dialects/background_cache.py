"""Spec 004's repeated `background_search` requests served from a small cache.

A background search plans, searches and answers (an LLM call when one is configured): seconds.
Clients of spec 004 (LightRAG-style agents) repeat the same question over the same resources.
An entry is keyed by the request (question, resources, who asks) and each knowledge base's
index version — its documents' count, chunk count and last change, and its vector generation
— so a new, changed or deleted document, or a re-index, misses the cache: it never answers from
an index that has changed. Least recently used entries go first (128 kept).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from planrag.core.types import KnowledgeBase
from planrag.stores.metadata import MetadataStore

T = TypeVar("T")


class BackgroundCache(Generic[T]):
    def __init__(self, metadata: MetadataStore, size: int = 128) -> None:
        self._metadata = metadata
        self._size = size
        self._entries: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = threading.Lock()

    def _versions(self, kbs: list[KnowledgeBase]) -> tuple[Hashable, ...]:
        stats = self._metadata.kb_stats(kb.id for kb in kbs)
        fresh = {kb.id: self._metadata.get_kb(kb.id) for kb in kbs}
        return tuple(
            (
                kb.id,
                stats[kb.id].document_count,
                stats[kb.id].chunk_count,
                stats[kb.id].last_updated,
                fresh[kb.id].vector_generation,
                fresh[kb.id].updated_at,
            )
            for kb in kbs
        )

    def get_or_make(
        self, request: Hashable, kbs: list[KnowledgeBase], make: Callable[[], T]
    ) -> tuple[T, bool]:
        """The cached answer to `request` over `kbs` as they are now, else `make()`'s (kept);
        the flag says whether it came from the cache."""
        if self._size <= 0:
            return make(), False
        key = (request, self._versions(kbs))
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key], True
        value = make()
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value, False
