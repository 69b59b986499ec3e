"""The catalogue of graph backend names (a knowledge base's `graph_backend`): the one place they
are known, as `planrag.core.strategies` is for strategies.

Each backend's module registers itself with one line (`planrag.stores.graphs.
register_graph_backend(name, open)`), which declares its name here; the KB API's enum, the
validation of `graph_backend` and the runtime's graph stores are derived from that. The built-in
backends' modules are imported on the first read of the catalogue (the way an entry point is
loaded), so `core` never imports the stores at import time. `none` (no graph) is always valid.
"""

from __future__ import annotations

import importlib
import threading
from typing import Annotated

from planrag.core.registered_names import RegisteredName

NO_GRAPH = "none"
BUILTIN_MODULES = ("planrag.stores.ontology", "planrag.stores.neo4j")

_names: list[str] = []
_lock = threading.RLock()
_builtins_loaded = False


def declare_graph_backend(name: str) -> None:
    with _lock:
        if name == NO_GRAPH:
            raise ValueError(f"'{NO_GRAPH}' means no graph: it cannot name a backend")
        if name not in _names:
            _names.append(name)


def withdraw_graph_backend(name: str) -> None:
    """Remove a backend name (tests that register a toy backend clean up with it)."""
    with _lock:
        if name in _names:
            _names.remove(name)


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    with _lock:
        if not _builtins_loaded:
            _builtins_loaded = True  # set first: the imports below declare into the catalogue
            for module in BUILTIN_MODULES:
                importlib.import_module(module)


def graph_backend_names() -> tuple[str, ...]:
    """The registered backends, built-ins first (without `none`)."""
    _load_builtins()
    with _lock:
        return tuple(_names)


def _check(value: str) -> str:
    if value != NO_GRAPH and value not in graph_backend_names():
        allowed = ", ".join((NO_GRAPH, *graph_backend_names()))
        raise ValueError(f"unknown graph_backend '{value}'; allowed: {allowed}")
    return value


GraphBackendName = Annotated[
    str, RegisteredName(_check, lambda: [NO_GRAPH, *graph_backend_names()])
]
