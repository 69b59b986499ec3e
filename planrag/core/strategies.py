"""The catalogue of retrieval strategy names: the one place they are known.

Each executor declares its own name (`planrag.executors.registry.register`, a class decorator)
and nothing else spells the list out: the plan schema (and so the LLM's structured-output
format), the policy whitelist, the retrieve API, the CLI help and the docs check are all derived
from this catalogue.

The built-in executors live in `planrag.executors`; the first read of the catalogue imports that
package (the way an entry point is loaded), so a process that only plans still knows every
strategy, and `core` never imports the executors at import time.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from typing import Annotated

from planrag.core.registered_names import RegisteredName

BUILTIN_PACKAGE = "planrag.executors"


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    summary: str = ""
    reranks: bool = False  # the strategy reranks by itself (the optional reranker is refused)


_catalogue: dict[str, StrategyInfo] = {}
_lock = threading.RLock()
_builtins_loaded = False


def declare_strategy(info: StrategyInfo) -> None:
    """Add a strategy (called by `executors.registry.register`); a second, different
    declaration of one name is an error."""
    with _lock:
        known = _catalogue.get(info.name)
        if known is not None and known != info:
            raise ValueError(f"strategy '{info.name}' is declared twice")
        _catalogue[info.name] = info


def withdraw_strategy(name: str) -> None:
    """Remove a strategy (tests that register a toy executor clean up with it)."""
    with _lock:
        _catalogue.pop(name, None)


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    with _lock:
        if not _builtins_loaded:
            _builtins_loaded = True  # set first: the import below reads the catalogue again
            importlib.import_module(BUILTIN_PACKAGE)


def strategies() -> tuple[StrategyInfo, ...]:
    _load_builtins()
    with _lock:
        return tuple(_catalogue.values())


def strategy_names() -> tuple[str, ...]:
    return tuple(s.name for s in strategies())


def strategy_info(name: str) -> StrategyInfo:
    for info in strategies():
        if info.name == name:
            return info
    raise ValueError(f"unknown strategy '{name}'; allowed: {', '.join(strategy_names())}")


def _check(value: str) -> str:
    strategy_info(value)  # raises ValueError (a validation error) for an unknown name
    return value


StrategyName = Annotated[str, RegisteredName(_check, lambda: list(strategy_names()))]
