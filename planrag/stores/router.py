"""A `VectorStore` that sends each call to the backend its knowledge base was created with.

Services hold one vector store; which engine keeps a KB's vectors (`vector_store`: milvus or
pgvector, fixed at creation) is looked up once per KB and cached. Backends are opened on first
use, so an embedded PostgreSQL starts only when some KB uses pgvector. An id that names no KB
(a probe, a KB deleted meanwhile) goes to the default backend.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from planrag.core.errors import StoreUnavailable
from planrag.core.filters import Filter
from planrag.core.types import Metric
from planrag.stores.vector import TitleRecord, VectorHit, VectorRecord, VectorStore

StoreOf = Callable[[str], str | None]


class VectorStoreRouter:
    def __init__(
        self,
        store_of: StoreOf,
        backends: dict[str, Callable[[], VectorStore]],
        default: str = "milvus",
    ) -> None:
        if default not in backends:
            raise ValueError(f"default backend {default!r} is not among {sorted(backends)}")
        self._store_of = store_of
        self._factories = backends
        self._default = default
        self._opened: dict[str, VectorStore] = {}
        self._kb_store: dict[str, str] = {}
        self._lock = threading.RLock()
        self._closed = False

    def backend_name(self, kb_id: str) -> str:
        with self._lock:
            if kb_id in self._kb_store:
                return self._kb_store[kb_id]
        name = self._store_of(kb_id)
        if name is None:
            return self._default
        if name not in self._factories:
            raise ValueError(f"unknown vector store {name!r} for knowledge base {kb_id}")
        with self._lock:
            self._kb_store[kb_id] = name
        return name

    def backend(self, kb_id: str) -> VectorStore:
        return self.opened(self.backend_name(kb_id))

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

    # ── VectorStore ────────────────────────────────────────────────────────────────────
    def create_collection(self, kb_id: str, dim: int, metric: Metric) -> None:
        self.backend(kb_id).create_collection(kb_id, dim, metric)

    def drop_collection(self, kb_id: str) -> None:
        self.backend(kb_id).drop_collection(kb_id)
        with self._lock:
            self._kb_store.pop(kb_id, None)

    def has_collection(self, kb_id: str) -> bool:
        return self.backend(kb_id).has_collection(kb_id)

    def upsert(self, kb_id: str, records: list[VectorRecord]) -> None:
        self.backend(kb_id).upsert(kb_id, records)

    def delete(self, kb_id: str, where: Filter) -> None:
        self.backend(kb_id).delete(kb_id, where)

    def search(
        self, kb_id: str, vector: list[float], top_k: int, where: Filter | None = None
    ) -> list[VectorHit]:
        return self.backend(kb_id).search(kb_id, vector, top_k, where)

    def get_vectors(self, kb_id: str, chunk_ids: list[str]) -> dict[str, list[float]]:
        return self.backend(kb_id).get_vectors(kb_id, chunk_ids)

    def count(self, kb_id: str, where: Filter | None = None) -> int:
        return self.backend(kb_id).count(kb_id, where)

    def doc_ids(self, kb_id: str) -> set[str]:
        return self.backend(kb_id).doc_ids(kb_id)

    def upsert_titles(self, kb_id: str, records: list[TitleRecord]) -> None:
        self.backend(kb_id).upsert_titles(kb_id, records)

    def delete_titles(self, kb_id: str, doc_ids: list[str]) -> None:
        self.backend(kb_id).delete_titles(kb_id, doc_ids)

    def title_scores(self, kb_id: str, vector: list[float], doc_ids: list[str]) -> dict[str, float]:
        return self.backend(kb_id).title_scores(kb_id, vector, doc_ids)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            opened, self._opened = list(self._opened.values()), {}
        for store in opened:
            store.close()
