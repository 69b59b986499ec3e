"""The executor protocol and the registry: each allowed strategy maps to exactly one executor.

An unknown strategy is an error, never improvised.

Adding a strategy is one module plus one registration line:

    @register
    class GraphHopExecutor(BaseExecutor):
        name = "graph-hop"
        summary = "entities of the question, then their neighbours"

        def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]: ...

and the module's import in `planrag/executors/__init__.py` (built-ins) or anywhere before the
runtime opens (plugins). The name is then in the plan schema, the policy whitelist, the retrieve
API and `/retrieve` (see `planrag.core.strategies`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar

from planrag.core.errors import InvalidInput
from planrag.core.strategies import (
    StrategyInfo,
    declare_strategy,
    strategy_names,
    withdraw_strategy,
)
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.graph import GRAPH_BOOST, GraphExecutor
from planrag.executors.graph_questions import QuestionReader, rule_reading

if TYPE_CHECKING:
    from planrag.executors.fusion import FusionCalibrator
    from planrag.llm.rerankers import RerankerRegistry


class UnknownStrategy(InvalidInput):
    code = "unknown_strategy"


class Executor(Protocol):
    @property
    def name(self) -> str: ...

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]: ...


@dataclass(frozen=True)
class ExecutorDeps:
    """What a registered executor may be built with (shared services, not per-query state)."""

    rerankers: RerankerRegistry
    calibrator: FusionCalibrator
    graph_boost: float = GRAPH_BOOST  # graph-found chunks' boost (PLANRAG_GRAPH__BOOST)
    # How graph search reads a question (entities, hops, relation words): the LLM's reading
    # when one is configured (PLANRAG_GRAPH__QUESTION_ANALYSIS=auto), else the rules'.
    graph_reader: QuestionReader = rule_reading


class BaseExecutor:
    """A registrable executor: the class names its strategy; it is built with `ExecutorDeps`."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    reranks: ClassVar[bool] = False  # reranks by itself: the optional reranker is refused

    def __init__(self, deps: ExecutorDeps) -> None:
        self.deps = deps

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        raise NotImplementedError


E = TypeVar("E", bound=type[BaseExecutor])
_classes: dict[str, type[BaseExecutor]] = {}


def register(cls: E) -> E:
    """Class decorator: declares the executor's strategy name and makes the runtime build it."""
    known = _classes.get(cls.name)
    if known is not None and known is not cls:
        raise ValueError(f"two executors for strategy '{cls.name}'")
    declare_strategy(StrategyInfo(name=cls.name, summary=cls.summary, reranks=cls.reranks))
    _classes[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Forget a registered executor (tests that register a toy one clean up with it)."""
    _classes.pop(name, None)
    withdraw_strategy(name)


class ExecutorRegistry:
    """The strategies' executors, and the graph step any of them can run with."""

    def __init__(
        self,
        executors: Iterable[Executor],
        graph_boost: float = GRAPH_BOOST,
        graph_reader: QuestionReader = rule_reading,
    ) -> None:
        self._graph_boost = graph_boost
        self._graph_reader = graph_reader
        self._executors: dict[str, Executor] = {}
        for executor in executors:
            if executor.name in self._executors:
                raise ValueError(f"two executors for strategy '{executor.name}'")
            self._executors[executor.name] = executor

    @classmethod
    def build(cls, deps: ExecutorDeps) -> ExecutorRegistry:
        """One instance of every registered executor, in the catalogue's order."""
        executors = (_classes[name](deps) for name in strategy_names() if name in _classes)
        return cls(executors, deps.graph_boost, deps.graph_reader)

    @property
    def strategies(self) -> tuple[str, ...]:
        return tuple(self._executors)

    def get(self, strategy: str, graph_hops: int | None = None) -> Executor:
        """The strategy's executor; with `graph_hops`, inside the graph step (graph search
        over `ctx.stores.graph`, merged into the strategy's candidates)."""
        try:
            executor = self._executors[strategy]
        except KeyError:
            raise UnknownStrategy(
                f"unknown strategy '{strategy}'; allowed: {', '.join(self._executors)}",
                strategy=strategy,
            ) from None
        if graph_hops is None:
            return executor
        return GraphExecutor(executor, graph_hops, self._graph_boost, self._graph_reader)
