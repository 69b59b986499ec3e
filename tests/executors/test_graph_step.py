"""Graph search is an executor step: the registry puts it around any strategy, and it reads the
knowledge base's graph from the query's store bundle (`ctx.stores.graph`), whatever backend
that is — here the one-module toy backend of the store tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

import pytest

from planrag.core.errors import InvalidInput
from planrag.core.filters import Eq
from planrag.core.types import KnowledgeBase
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.graph import GraphExecutor
from planrag.executors.graph_search import GraphSearch, title_keys, whole_words
from planrag.executors.registry import ExecutorRegistry
from planrag.stores.bundle import StoreBundle
from planrag.testing.graph_store import CORPUS, chunk
from tests.stores.toy_graph import ToyGraphStore

QUESTION = "Which company that builds rockets does Elon Musk run?"
BASE = {"c1": ("doc-a", 0.5), "c2": ("doc-a", 0.4), "c4": ("doc-b", 0.3)}


class Fixed:
    """A base strategy that finds c1, c2 and c4 (not c3, which the graph reaches via SpaceX)."""

    name = "fixed"

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        return [Candidate(chunk_id=c, doc_id=d, score=s) for c, (d, s) in BASE.items()]


def context(graph: ToyGraphStore | None, scores: dict[str, float]) -> QueryContext:
    now = datetime.now(UTC)
    kb = KnowledgeBase(
        id="kb", name="kb", embedding_model="m", embedding_dim=3, created_at=now, updated_at=now
    )
    stores = StoreBundle(vector=cast(Any, None), lexical=cast(Any, None), graph=graph)
    ctx = QueryContext(kb, QUESTION, cast(Any, None), stores, chunk_filter=lambda ids, _: set())
    ctx.dense_scores = lambda ids: {c: scores[c] for c in ids}  # type: ignore[method-assign]
    return ctx


@pytest.fixture
def graph() -> ToyGraphStore:
    store = ToyGraphStore()
    store.add("kb", CORPUS)
    return store


def test_the_registry_wraps_any_strategy_in_the_graph_step(graph: ToyGraphStore) -> None:
    registry = ExecutorRegistry([Fixed()], graph_boost=1.5)
    assert registry.get("fixed").name == "fixed"
    step = registry.get("fixed", graph_hops=2)
    assert isinstance(step, GraphExecutor) and step.name == "fixed" and step.boost == 1.5
    ctx = context(graph, {"c3": 0.2})
    found = {c.chunk_id: c for c in step.run(ctx, SearchParams(top_k=5))}
    assert ctx.graph is not None and ctx.graph.backend == "toy" and not ctx.graph.fallback
    assert ctx.graph.extracted_entities[0] == "Elon Musk"
    assert {"c1", "c2", "c3"} <= {c for c, f in found.items() if f.graph}  # Musk, then SpaceX
    path = found["c3"].graph or 0.0  # rounded to 4 places
    assert found["c3"].score == pytest.approx(0.2 * (1 + 0.5 * path), rel=1e-3)  # boosted
    assert found["c4"].graph is None and found["c4"].score == pytest.approx(0.3)


def test_filters_apply_to_chunks_only_the_graph_found(graph: ToyGraphStore) -> None:
    step = ExecutorRegistry([Fixed()]).get("fixed", graph_hops=2)
    ctx = context(graph, {"c3": 0.2})
    found = step.run(ctx, SearchParams(top_k=5, where=Eq(field="doc_id", value="doc-a")))
    assert "c3" not in {c.chunk_id for c in found}  # the chunk filter allows none


def test_no_graph_in_the_bundle_is_a_clear_error() -> None:
    step = ExecutorRegistry([Fixed()]).get("fixed", graph_hops=1)
    with pytest.raises(InvalidInput, match="has no graph"):
        step.run(context(None, {}), SearchParams(top_k=5))


def test_a_document_titled_after_a_reached_entity_is_the_one_about_it() -> None:
    """Many chunks name the bridge entity Starship; doc-s is titled "Starship": its chunk leads,
    though every chunk mentions Starship once (without titles they tie)."""
    store = ToyGraphStore()
    store.add("kb", CORPUS)
    extra = [chunk(f"s{i}", f"doc-{i}", ["Starship", f"Thing {i}"], []) for i in range(4)]
    store.add("kb", extra)
    titles = {"doc-2": "Starship", "doc-b": "Rockets"}
    question = "What does the company that SpaceX people work for build?"

    def titled(doc_ids: list[str]) -> dict[str, str]:
        return {d: titles.get(d, d) for d in doc_ids}

    plain = GraphSearch(store, "toy", min_hops=1).search("kb", question, 2, 10)
    with_titles = GraphSearch(store, "toy", min_hops=1, titles=titled).search("kb", question, 2, 10)
    starship = [h for h in plain.hits if "Starship" in h.entities]
    assert len({h.score for h in starship if h.chunk_id.startswith("s")}) == 1  # a tie
    assert with_titles.hits[0].chunk_id == "s2" and with_titles.hits[0].score == 1.0
    others = [h.score for h in with_titles.hits if h.chunk_id in {"s0", "s1", "s3"}]
    assert others and max(others) < 1.0
    assert [h.chunk_id for h in with_titles.hits if h.about] == ["s2"]  # promoted by the merge
    # Starship is in 5 chunks: with at most 4 allowed it is too common to promote a chunk for.
    common = GraphSearch(store, "toy", min_hops=1, titles=titled, about_max=4)
    assert not any(h.about for h in common.search("kb", question, 2, 10).hits)
    # The question's own entity (SpaceX, titled doc-b "SpaceX") is no bridge: not promoted.
    titles["doc-b"] = "SpaceX"
    again = GraphSearch(store, "toy", min_hops=1, titles=titled).search("kb", question, 2, 10)
    assert [h.chunk_id for h in again.hits if h.about] == ["s2"]


def test_title_keys_drop_a_trailing_disambiguation() -> None:
    keys = title_keys("Kiss and Tell (1945 film)")
    assert "kiss_and_tell" in keys and len(keys) == 2
    assert title_keys("Shirley Temple") == {"shirley_temple"}
    assert title_keys("") == set()


def test_a_fuzzy_latin_match_joins_whole_words() -> None:
    assert whole_words("ken_pruitt", "ken") and whole_words("saltillo", "saltillo_engine")
    assert not whole_words("ethel_houbiers", "eth") and not whole_words("dogwoman", "man")
    assert whole_words("서울특별시", "서울")  # Korean compounds have no spaces inside
