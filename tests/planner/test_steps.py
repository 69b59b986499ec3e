"""Multi-step plans: the schema's steps (numbering, references only to earlier steps, no other
templates, version 2), a one-step plan being today's plan, and the policy's bounds (steps,
searches, whitelisted strategies, graph only where a KB has one, grounded filters)."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from planrag.core.types import KbFacets
from planrag.planner.policy import PlanRejected, apply_policy, parse_plan
from planrag.planner.schema import SearchPlan, llm_json_schema
from planrag.planner.scope import KbInfo, PlanScope

SEOUL = ZoneInfo("Asia/Seoul")
NOW = datetime(2025, 11, 21, 10, tzinfo=SEOUL)


def scope(names: tuple[str, ...] = ("ko",), graph: bool = False) -> PlanScope:
    return PlanScope(
        knowledge_bases=[
            KbInfo(
                id=f"id-{n}",
                name=n,
                has_graph=graph,
                facets=KbFacets(kb_id=f"id-{n}", documents=3, authors=["연합뉴스"]),
            )
            for n in names
        ],
        strategies=["ann", "bm25", "hybrid"],
        now=NOW,
    )


def chain(*queries: str, **step: object) -> list[dict[str, object]]:
    return [{"id": f"s{i}", "query": q, **step} for i, q in enumerate(queries, start=1)]


def test_steps_make_a_version_2_plan_whose_queries_name_earlier_answers() -> None:
    plan = SearchPlan.model_validate(
        {"steps": chain("누리테크 대표", "{{s1.answer}} 졸업 대학교"), "answer_from": "s2"}
    )
    assert plan.version == 2
    assert plan.steps[1].references() == ["s1"]
    assert plan.steps[1].filled({"s1": "이서준"}) == "이서준 졸업 대학교"
    assert SearchPlan().version == 1 and SearchPlan().steps == []


def test_one_step_is_exactly_todays_plan() -> None:
    plan = SearchPlan.model_validate(
        {"top_k": 10, "steps": [{"id": "s1", "query": "누리봇 S2 적재 중량", "top_k": 5}]}
    )
    assert plan.version == 1 and plan.steps == []
    assert plan.query == "누리봇 S2 적재 중량" and plan.top_k == 5
    assert plan == SearchPlan(query="누리봇 S2 적재 중량", top_k=5)


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        (chain("{{s2.answer}} 대표", "{{s1.answer}} 대학"), "a later step: a cycle"),
        (chain("누리테크", "{{s2.answer}} 대학"), "itself: a cycle"),
        (chain("누리테크", "{{s9.answer}} 대학"), "which is no step"),
        (chain("누리테크", "{{ s1.question }}"), "the only template"),
        (chain("누리테크", "{{s1.answer}} {{"), "the only template"),
        ([{"id": "s2", "query": "a"}, {"id": "s1", "query": "b"}], "numbered s1, s2"),
        ([{"id": "s1", "query": "a"}, {"id": "s1", "query": "b"}], "numbered s1, s2"),
    ],
)
def test_loops_and_unknown_references_are_refused(steps: list, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        SearchPlan.model_validate({"steps": steps})


def test_answer_from_must_name_a_step() -> None:
    with pytest.raises(ValidationError, match="answer_from"):
        SearchPlan.model_validate({"steps": chain("a", "{{s1.answer}} b"), "answer_from": "s3"})
    with pytest.raises(ValidationError, match="answer_from needs steps"):
        SearchPlan.model_validate({"answer_from": "s1"})


def test_more_than_four_steps_are_refused_not_cut() -> None:
    """Clamping drops list items past a bound; a chain cut short would lose its end."""
    notes: list[str] = []
    steps = chain("a", *(f"{{{{s{i}.answer}}}} b" for i in range(1, 5)))
    with pytest.raises(PlanRejected, match="steps"):
        parse_plan(json.dumps({"steps": steps}), notes)


def test_a_looping_llm_plan_is_rejected_with_a_reason_the_retry_can_use() -> None:
    with pytest.raises(PlanRejected, match="cycle"):
        parse_plan(json.dumps({"steps": chain("{{s2.answer}}", "{{s1.answer}}")}), [])


def test_the_llm_schema_carries_the_steps_strictly() -> None:
    schema = llm_json_schema()
    step = schema["$defs"]["PlanStep"]
    assert set(step["required"]) == {"id", "query", "strategy", "top_k", "filters", "graph"}
    assert step["additionalProperties"] is False
    assert schema["properties"]["steps"]["maxItems"] == 4


def test_policy_bounds_steps_and_searches() -> None:
    plan = SearchPlan.model_validate({"steps": chain("a", "{{s1.answer}} b", "{{s2.answer}} c")})
    with pytest.raises(PlanRejected, match="at most 2"):
        apply_policy(plan, scope(), SEOUL, max_steps=2)
    two_kbs = scope(("ko", "en"))
    with pytest.raises(PlanRejected, match="6 searches; the budget is 4"):
        apply_policy(plan, two_kbs, SEOUL, max_searches=4)
    assert len(apply_policy(plan, two_kbs, SEOUL, max_searches=6).steps) == 3


def test_each_step_is_held_to_the_plans_rules() -> None:
    steps = chain("a", "{{s1.answer}} b")
    steps[1]["strategy"] = "2-stage"  # a registered strategy this caller's scope lacks
    with pytest.raises(PlanRejected, match="'2-stage' is not allowed"):
        _policy_of({"steps": steps})
    grounded = apply_policy(
        SearchPlan.model_validate(
            {
                "steps": chain(
                    "a",
                    "{{s1.answer}} b",
                    graph={"enabled": True, "hops": 2},
                    filters={"authors": ["연합뉴스", "invented"], "doc_ids": ["x"]},
                )
            }
        ),
        scope(graph=False),
        SEOUL,
    )
    for step in grounded.steps:
        assert step.graph is not None and step.graph.enabled is False
        assert step.filters is not None and step.filters.authors == ["연합뉴스"]
        assert step.filters.doc_ids == []


def _policy_of(data: dict) -> SearchPlan:
    return apply_policy(parse_plan(json.dumps(data), []), scope(), SEOUL)


def test_steps_need_a_search_mode() -> None:
    with pytest.raises(PlanRejected, match="mode 'rag'"):
        _policy_of({"mode": "direct", "steps": chain("a", "{{s1.answer}} b")})
    with pytest.raises(PlanRejected, match="listing"):
        _policy_of({"listing": True, "steps": chain("a", "{{s1.answer}} b")})


def test_a_step_plan_is_an_ordinary_one_search_plan() -> None:
    plan = SearchPlan.model_validate(
        {
            "strategy": "hybrid",
            "top_k": 10,
            "steps": chain("누리테크 대표", "{{s1.answer}} 대학", strategy="bm25", top_k=4),
        }
    )
    step = plan.step_plan(plan.steps[1], "이서준 대학")
    assert step.steps == [] and step.version == 1
    assert (step.query, step.strategy, step.top_k) == ("이서준 대학", "bm25", 4)
