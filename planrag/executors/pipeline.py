"""The post-processing order, in one place (DESIGN.md):

    executor (fusion inside hybrid) → rerank → NER filter → flat L2 → threshold → sort → limit

`post_process` runs the per-knowledge-base steps on an executor's candidates (the retrieval
service calls it for `/retrieve` and for every knowledge base of a plan); `sort_and_limit` runs
the last two on a plan's merged hits. Each step is optional; none reorders what an earlier step
decided unless it rescored (2-stage keeps its reranked order: nothing re-sorts by cosine).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import BaseModel, Field

from planrag.executors.context import Candidate, QueryContext
from planrag.executors.flat_l2 import flat_l2
from planrag.executors.ner import ner_filter
from planrag.executors.rerank import rerank
from planrag.llm.rerankers import RerankerRegistry
from planrag.text.entities import extract_entities

Sort = Literal["relevance", "newest", "oldest"]
# With sort newest/oldest, candidates below this fraction of the best score are dropped first.
SORT_RELEVANCE_FLOOR = 0.5
# chunk ids → their texts (rerank and the NER filter read them)
TextLookup = Callable[[list[str]], dict[str, str]]


class RerankStep(BaseModel):
    top_k: int = Field(ge=1)
    threshold: float = Field(ge=0.0, le=1.0)


class FlatL2Step(BaseModel):
    top_k: int = Field(ge=1)
    threshold: float = Field(ge=0.0)


class PostProcessing(BaseModel):
    """The per-knowledge-base steps after the executor, each optional."""

    rerank: RerankStep | None = None
    ner_filter: bool = False
    flat_l2: FlatL2Step | None = None
    threshold: float = Field(default=0.0, ge=0.0, le=1.0)

    @property
    def needs_pool(self) -> bool:
        """Whether a step chooses among candidates (so the executor should fetch more)."""
        return self.rerank is not None or self.ner_filter or self.flat_l2 is not None


def post_process(
    ctx: QueryContext,
    found: list[Candidate],
    steps: PostProcessing,
    texts: TextLookup,
    rerankers: RerankerRegistry,
) -> list[Candidate]:
    """rerank → NER filter → flat L2 → threshold."""
    if steps.rerank is not None or steps.ner_filter:
        text_of = texts([c.chunk_id for c in found])
        if steps.rerank is not None:
            found = rerank(
                found, ctx.text, text_of, rerankers, steps.rerank.top_k, steps.rerank.threshold
            )
        if steps.ner_filter:
            found = ner_filter(found, extract_entities(ctx.text), text_of)
    if steps.flat_l2 is not None:
        vectors = ctx.stores.vector.get_vectors(ctx.kb.id, [c.chunk_id for c in found])
        found = flat_l2(found, ctx.vector, vectors, steps.flat_l2.top_k, steps.flat_l2.threshold)
    return [c for c in found if c.score >= steps.threshold]


T = TypeVar("T")


def sort_and_limit(
    items: list[T],
    sort: Sort,
    limit: int | None,
    score: Callable[[T], float],
    date: Callable[[T], str | None],
    doc: Callable[[T], str],
) -> list[T]:
    """sort → limit over merged hits, best first on entry. `limit` counts documents (each keeps
    its best passage); newest/oldest order only the relevant (≥ half the best score), undated
    last: a weak match must not win by being recent."""
    items = sorted(items, key=lambda item: -score(item))
    if limit:
        best: dict[str, T] = {}
        for item in items:
            best.setdefault(doc(item), item)
        items = list(best.values())
    if sort != "relevance":
        if items:
            floor = score(items[0]) * SORT_RELEVANCE_FLOOR
            items = [x for x in items if score(x) >= floor]
        dated = sorted(
            (x for x in items if date(x)), key=lambda x: date(x) or "", reverse=sort == "newest"
        )
        items = dated + [x for x in items if not date(x)]
    return items[:limit] if limit else items
