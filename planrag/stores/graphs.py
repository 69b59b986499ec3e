"""The graph stores by backend name (`ontology`, `neo4j`, and any registered one), each opened
on first use, so a server with no graph KB never opens one. A backend that is not configured
(neo4j without a URI) says which setting to set.

A graph backend registers itself with one line in its module:

    register_graph_backend("my-graph", lambda settings: MyGraphStore(...))

and knowledge bases can be created with `graph_backend: "my-graph"` from then on (the KB API's
enum and validation read `planrag.core.graph_backends`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from planrag.core.errors import InvalidInput, StoreUnavailable
from planrag.core.graph_backends import (
    declare_graph_backend,
    graph_backend_names,
    withdraw_graph_backend,
)
from planrag.core.settings import Settings
from planrag.stores.graph import GraphStore

# settings → why the backend cannot be used here (a setting to set), or None when it can
Unconfigured = Callable[[Settings], str | None]


@dataclass(frozen=True)
class GraphBackendEntry:
    open: Callable[[Settings], GraphStore]
    unconfigured: Unconfigured | None = None


_entries: dict[str, GraphBackendEntry] = {}


def register_graph_backend(
    name: str, open: Callable[[Settings], GraphStore], unconfigured: Unconfigured | None = None
) -> None:
    """Make a graph backend available to knowledge bases: `open(settings)` builds its store
    (called once per process, on first use)."""
    declare_graph_backend(name)
    _entries[name] = GraphBackendEntry(open, unconfigured)


def unregister_graph_backend(name: str) -> None:
    _entries.pop(name, None)
    withdraw_graph_backend(name)


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

    @classmethod
    def from_settings(cls, settings: Settings) -> GraphStores:
        """Every registered backend, opened from the settings on first use."""
        factories: dict[str, Callable[[], GraphStore]] = {}
        missing: dict[str, str] = {}
        for name in graph_backend_names():
            entry = _entries[name]
            factories[name] = partial(entry.open, settings)
            reason = entry.unconfigured(settings) if entry.unconfigured else None
            if reason:
                missing[name] = reason
        return cls(factories, missing)

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
