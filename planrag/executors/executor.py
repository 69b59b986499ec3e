"""The executor protocol and the registry: each allowed strategy maps to exactly one executor.

An unknown strategy is an error, never improvised.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from planrag.core.errors import InvalidInput
from planrag.executors.context import Candidate, QueryContext, SearchParams


class UnknownStrategy(InvalidInput):
    code = "unknown_strategy"


class Executor(Protocol):
    name: str

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]: ...


class ExecutorRegistry:
    def __init__(self, executors: Iterable[Executor]) -> None:
        self._executors: dict[str, Executor] = {}
        for executor in executors:
            if executor.name in self._executors:
                raise ValueError(f"two executors for strategy '{executor.name}'")
            self._executors[executor.name] = executor

    @property
    def strategies(self) -> tuple[str, ...]:
        return tuple(self._executors)

    def get(self, strategy: str) -> Executor:
        try:
            return self._executors[strategy]
        except KeyError:
            raise UnknownStrategy(
                f"unknown strategy '{strategy}'; allowed: {', '.join(self._executors)}",
                strategy=strategy,
            ) from None
