"""A `VectorStore` that sends each call to the backend its knowledge base was created with.

Services hold one vector store; which engine keeps a KB's vectors (`vector_store`: milvus or
pgvector, fixed at creation) is looked up once per KB and cached. Backends are opened on first
use, so an embedded PostgreSQL starts only when some KB uses pgvector. An id that names no KB
(a probe, a KB deleted meanwhile) goes to the default backend.

A KB's vectors come in *generations*: a reindex (re-embedding with another model) writes
generation N + 1 beside the serving one and the KB then switches in one metadata commit; calls
here always reach the serving generation (`vector_key`). The generation is cached per KB and
forgotten by the process that switches (`forget`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from planrag.core.errors import StoreUnavailable
from planrag.core.filters import Filter
from planrag.core.types import Metric
from planrag.stores.vector import TitleRecord, VectorHit, VectorRecord, VectorStore

StoreOf = Callable[[str], tuple[str, int] | None]  # kb id → (backend name, generation)


def vector_key(kb_id: str, generation: int) -> str:
    """The backend key of a KB's vectors of one generation (0: the KB id, as always)."""
    return kb_id if generation == 0 else f"{kb_id}-g{generation}"


class VectorStoreRouter:
    def __init__(
        self,
        store_of: StoreOf,
        backends: dict[str, Callable[[], VectorStore]],
        default: str = "milvus",
        shared: bool = False,
    ) -> None:
        if default not in backends:
            raise ValueError(f"default backend {default!r} is not among {sorted(backends)}")
        self._store_of = store_of
        # Several processes (a shared ingestion queue): another one may switch a KB's
        # generation, so it is read on every call instead of cached.
        self._shared = shared
        self._factories = backends
        self._default = default
        self._opened: dict[str, VectorStore] = {}
        self._kb_store: dict[str, tuple[str, int]] = {}
        self._lock = threading.RLock()
        self._closed = False

    def _route(self, kb_id: str) -> tuple[str, int]:
        with self._lock:
            if kb_id in self._kb_store:
                return self._kb_store[kb_id]
        found = self._store_of(kb_id)
        if found is None:
            return self._default, 0
        if found[0] not in self._factories:
            raise ValueError(f"unknown vector store {found[0]!r} for knowledge base {kb_id}")
        if not self._shared:
            with self._lock:
                self._kb_store[kb_id] = found
        return found

    def backend_name(self, kb_id: str) -> str:
        return self._route(kb_id)[0]

    def backend(self, kb_id: str) -> VectorStore:
        return self.opened(self.backend_name(kb_id))

    def _at(self, kb_id: str) -> tuple[VectorStore, str]:
        """The backend and key of the KB's serving vectors."""
        name, generation = self._route(kb_id)
        return self.opened(name), vector_key(kb_id, generation)

    def at_generation(self, kb_id: str, generation: int) -> tuple[VectorStore, str]:
        """Backend and key of one generation of a KB's vectors, serving or not (a reindex
        writes the next one through this)."""
        return self.opened(self.backend_name(kb_id)), vector_key(kb_id, generation)

    def forget(self, kb_id: str) -> None:
        """Drop the cached route: the KB switched generation (or is gone)."""
        with self._lock:
            self._kb_store.pop(kb_id, None)

    def opened(self, name: str) -> VectorStore:
        """The named backend, opened on first use."""
        with self._lock:
            if name not in self._opened:
                if self._closed:
                    raise StoreUnavailable("the vector stores are closed (shutting down)")
                self._opened[name] = self._factories[name]()
            return self._opened[name]

    @property
    def backends(self) -> list[str]:
        return list(self._factories)

    def open_backend(self, name: str) -> VectorStore | None:
        """The named backend if it has been opened (nothing is started by asking)."""
        with self._lock:
            return self._opened.get(name)

    # ── VectorStore (the serving generation) ─────────────────────────────────────────
    def create_collection(self, kb_id: str, dim: int, metric: Metric) -> None:
        store, key = self._at(kb_id)
        store.create_collection(key, dim, metric)

    def drop_collection(self, kb_id: str) -> None:
        store, key = self._at(kb_id)
        store.drop_collection(key)
        self.forget(kb_id)

    def has_collection(self, kb_id: str) -> bool:
        store, key = self._at(kb_id)
        return store.has_collection(key)

    def upsert(self, kb_id: str, records: list[VectorRecord]) -> None:
        store, key = self._at(kb_id)
        store.upsert(key, records)

    def delete(self, kb_id: str, where: Filter) -> None:
        store, key = self._at(kb_id)
        store.delete(key, where)

    def search(
        self, kb_id: str, vector: list[float], top_k: int, where: Filter | None = None
    ) -> list[VectorHit]:
        store, key = self._at(kb_id)
        return store.search(key, vector, top_k, where)

    def get_vectors(self, kb_id: str, chunk_ids: list[str]) -> dict[str, list[float]]:
        store, key = self._at(kb_id)
        return store.get_vectors(key, chunk_ids)

    def count(self, kb_id: str, where: Filter | None = None) -> int:
        store, key = self._at(kb_id)
        return store.count(key, where)

    def doc_ids(self, kb_id: str) -> set[str]:
        store, key = self._at(kb_id)
        return store.doc_ids(key)

    def upsert_titles(self, kb_id: str, records: list[TitleRecord]) -> None:
        store, key = self._at(kb_id)
        store.upsert_titles(key, records)

    def delete_titles(self, kb_id: str, doc_ids: list[str]) -> None:
        store, key = self._at(kb_id)
        store.delete_titles(key, doc_ids)

    def title_scores(self, kb_id: str, vector: list[float], doc_ids: list[str]) -> dict[str, float]:
        store, key = self._at(kb_id)
        return store.title_scores(key, vector, doc_ids)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            opened, self._opened = list(self._opened.values()), {}
        for store in opened:
            store.close()
