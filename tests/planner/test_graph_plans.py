"""The heuristic planner turns graph search on for relational or multi-hop questions when a
chosen knowledge base has a graph, and the policy keeps it off elsewhere."""

from __future__ import annotations

from datetime import datetime

import pytest

from planrag.core.settings import PlannerSettings
from planrag.core.types import KbFacets
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.scope import KbInfo, PlanScope
from planrag.text.entities import is_relational, question_pattern

NOW = datetime.fromisoformat("2025-11-21T10:00:00+09:00")


def scope(graph: bool) -> PlanScope:
    return PlanScope(
        knowledge_bases=[
            KbInfo(id="k", name="kb", has_graph=graph, facets=KbFacets(kb_id="k", documents=3))
        ],
        strategies=["ann", "keyword", "bm25", "hybrid", "2-stage"],
        now=NOW,
    )


PLANNER = HeuristicPlanner(PlannerSettings())


@pytest.mark.parametrize(
    ("question", "hops"),
    [
        ("일론 머스크가 CEO인 회사는?", 2),
        ("공자의 제자의 스승은 누구인가?", 3),
        ("Who founded the company that makes the iPhone?", 2),
        ("Which company did Steve Jobs found?", 2),
    ],
)
def test_relational_questions_use_the_graph(question: str, hops: int) -> None:
    plan = PLANNER.plan(question, scope(graph=True))
    assert plan.graph.enabled and plan.graph.hops == hops
    assert "graph" in plan.rationale
    assert not PLANNER.plan(question, scope(graph=False)).graph.enabled


@pytest.mark.parametrize("question", ["환불 규정이 어떻게 되나요?", "What is the refund policy?"])
def test_other_questions_do_not(question: str) -> None:
    assert not PLANNER.plan(question, scope(graph=True)).graph.enabled
    assert not is_relational(question) and question_pattern(question) is None
