"""The graph stores by backend name (`ontology`, `neo4j`), each opened on first use, so a server
with no graph KB never opens one. A backend that is not configured (neo4j without a URI) says
which setting to set."""

from __future__ import annotations

import threading
from collections.abc import Callable

from planrag.core.errors import InvalidInput, StoreUnavailable
from planrag.stores.graph import GraphStore


class GraphStores:
    def __init__(
        self,
        factories: dict[str, Callable[[], GraphStore]],
        missing: dict[str, str] | None = None,
    ) -> None:
        self._factories = factories
        self._missing = missing or {}
        self._opened: dict[str, GraphStore] = {}
        self._lock = threading.Lock()
        self._closed = False

    def check(self, backend: str) -> None:
        """Raise InvalidInput when KBs cannot use this backend here."""
        if backend in self._missing:
            raise InvalidInput(
                f"graph_backend '{backend}' is not configured: {self._missing[backend]}"
            )
        if backend not in self._factories:
            raise InvalidInput(
                f"unknown graph_backend '{backend}'; use one of {list(self._factories)}"
            )

    def get(self, backend: str) -> GraphStore:
        self.check(backend)
        with self._lock:
            if backend not in self._opened:
                if self._closed:
                    raise StoreUnavailable("the graph stores are closed (shutting down)")
                self._opened[backend] = self._factories[backend]()
            return self._opened[backend]

    def for_kb(self, graph_backend: str) -> GraphStore | None:
        """The KB's graph store; None for graph_backend `none`."""
        return None if graph_backend == "none" else self.get(graph_backend)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            opened, self._opened = list(self._opened.values()), {}
        for store in opened:
            store.close()
