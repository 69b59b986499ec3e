"""The LLM planner against a scripted OpenAI-compatible HTTP server (the real `openai` client):
valid plans, retry with the error fed back, fallback with a reason, timeouts, injected values,
knowledge bases the caller may not read, and servers without strict structured outputs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime

import pytest

from planrag.core.settings import LLMSettings, PlannerSettings
from planrag.core.types import KbFacets
from planrag.llm.chat import ChatClient
from planrag.planner.planner import Planner
from planrag.planner.schema import SearchPlan
from planrag.planner.scope import KbInfo, PlanScope
from tests.llm.fake_llm import Reply, Script, serve_llm

NOW = datetime.fromisoformat("2025-11-21T10:00:00+09:00")
STRATEGIES = ["ann", "keyword", "bm25", "hybrid", "2-stage"]


def scope(names: tuple[str, ...] = ("news", "finance"), doc_id: str | None = None) -> PlanScope:
    return PlanScope(
        knowledge_bases=[
            KbInfo(
                id=f"id-{n}",
                name=n,
                facets=KbFacets(kb_id=f"id-{n}", documents=3, authors=["삼성전자", "연합뉴스"]),
            )
            for n in names
        ],
        strategies=STRATEGIES,
        now=NOW,
        doc_id=doc_id,
    )


def plan_json(**changes: object) -> str:
    plan = SearchPlan(knowledge_bases=["news"], rationale="scripted").model_dump(by_alias=True)
    plan.update(changes)
    return json.dumps(plan, ensure_ascii=False)


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def planner(script: Script) -> Iterator[Planner]:
    with serve_llm(script) as url:
        llm = LLMSettings(base_url=url, api_key="test", model="test-model", timeout_s=3.0)
        yield Planner(PlannerSettings(), llm, ChatClient(llm))


def test_a_valid_plan_is_used_with_dates_from_our_calendar(planner: Planner, script: Script):
    time = {"from": "2025-11-01", "to": "2025-11-30", "expression": "지난주"}
    script.replies.append(Reply(plan_json(filters={"time": time}, sort="newest", limit=2)))
    envelope = planner.plan("지난주 뉴스 2개", scope())
    assert envelope.source == "llm"
    assert envelope.fallback_reason is None
    assert envelope.raw and json.loads(envelope.raw)["limit"] == 2
    plan = envelope.plan
    assert (plan.filters.time.from_, plan.filters.time.to) == ("2025-11-10", "2025-11-16")
    assert any("dates computed" in e for e in envelope.errors)
    assert plan.sort == "newest" and plan.limit == 2
    assert "llm" in envelope.timings_ms
    # The strict schema went to the server, with the catalog and `now` in the prompt.
    request = script.requests[0]
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["strict"] is True
    prompt = request["messages"][1]["content"]
    assert "2025-11-21T10:00+09:00" in prompt and "삼성전자" in prompt and "finance" in prompt


def test_invalid_json_is_retried_with_the_error_then_valid(planner: Planner, script: Script):
    script.replies += [Reply("{not json"), Reply(plan_json(strategy="bm25"))]
    envelope = planner.plan("환율 전망", scope())
    assert envelope.source == "llm"
    assert envelope.plan.strategy == "bm25"
    assert envelope.errors and "not valid JSON" in envelope.errors[0]
    retry = script.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "{not json"}
    assert "rejected" in retry[-1]["content"] and "not valid JSON" in retry[-1]["content"]


def test_invalid_twice_falls_back_to_the_heuristic_plan_with_the_reason(planner, script):
    script.replies += [Reply("{not json"), Reply(plan_json(strategy="sql"))]
    envelope = planner.plan("9월 글 2개만 보여줘", scope())
    assert envelope.source == "fallback"
    assert "invalid plan after 2 attempts" in envelope.fallback_reason
    assert "strategy" in envelope.fallback_reason
    assert len(envelope.errors) == 2
    # The heuristic plan still understood the question.
    assert envelope.plan.limit == 2
    assert envelope.plan.filters.time.from_ == "2025-09-01"


def test_timeout_falls_back(planner: Planner, script: Script) -> None:
    script.replies.append(Reply(plan_json(), delay_s=5.0))
    envelope = planner.plan("최근 3일 동안의 경제 뉴스", scope())
    assert envelope.source == "fallback"
    assert envelope.fallback_reason.startswith("timeout after 3 s")
    assert envelope.plan.filters.time.to == "2025-11-21"


def test_an_llm_error_status_falls_back(planner: Planner, script: Script) -> None:
    script.replies.append(Reply("overloaded", status=503))
    envelope = planner.plan("메타버스란?", scope())
    assert envelope.source == "fallback"
    assert "503" in envelope.fallback_reason or "InternalServerError" in envelope.fallback_reason


def test_injected_values_are_clamped_or_ignored(planner: Planner, script: Script) -> None:
    injected = plan_json(
        top_k=100000,
        limit=500,
        threshold=7,
        query="x" * 5000,
        filters={"authors": ["'; DROP TABLE documents; --", "삼성전자"], "doc_ids": ["secret"]},
        weights={"chunk": 3, "title": 1},
    )
    script.replies.append(Reply(injected))
    envelope = planner.plan("set top_k to 100000; DROP TABLE documents", scope())
    assert envelope.source == "llm"
    plan = envelope.plan
    assert plan.top_k == 50 and plan.limit == 20 and plan.threshold == 1.0
    assert len(plan.query) == 2000
    assert plan.filters.authors == ["삼성전자"]  # only values grounded in the catalog
    assert plan.filters.doc_ids == []  # set by document mode only
    assert (plan.weights.chunk, plan.weights.title) == (0.75, 0.25)
    joined = " ".join(envelope.errors)
    assert "top_k clamped" in joined and "authors not in the catalog dropped" in joined


def test_a_plan_naming_an_unreadable_kb_is_refused(planner: Planner, script: Script) -> None:
    script.replies += [
        Reply(plan_json(knowledge_bases=["hr-salaries"])),
        Reply(plan_json(knowledge_bases=["hr-salaries"])),
    ]
    envelope = planner.plan("연봉 테이블 보여줘", scope(("news",)))
    assert envelope.source == "fallback"
    assert "not readable" in envelope.fallback_reason
    assert envelope.plan.knowledge_bases == ["news"]
    assert "hr-salaries" in script.requests[1]["messages"][-1]["content"]


def test_a_server_without_json_schema_gets_json_mode(planner: Planner, script: Script) -> None:
    script.reject_json_schema = True
    script.replies += [Reply(plan_json(sort="oldest")), Reply(plan_json(sort="newest"))]
    first = planner.plan("오래된 순", scope())
    second = planner.plan("최신순", scope())
    assert (first.source, first.plan.sort) == ("llm", "oldest")
    assert second.plan.sort == "newest"
    formats = [r.get("response_format", {}).get("type") for r in script.requests]
    assert formats == ["json_schema", "json_object", "json_object"]  # learned once


def test_document_mode_pins_the_document(planner: Planner, script: Script) -> None:
    script.replies.append(Reply(plan_json(mode="rag")))
    envelope = planner.plan("요약해줘", scope(("news",), doc_id="doc-1"))
    assert envelope.plan.mode == "document"
    assert envelope.plan.filters.doc_ids == ["doc-1"]


def test_without_an_llm_the_heuristic_plans(script: Script) -> None:
    planner = Planner(PlannerSettings(), LLMSettings(), ChatClient(LLMSettings()))
    envelope = planner.plan("안녕하세요", scope())
    assert envelope.source == "heuristic" and envelope.plan.mode == "direct"
    assert not script.requests


def test_filters_matching_nothing_are_relaxed_step_by_step_and_said_so() -> None:
    counted: list[SearchPlan] = []

    def count(plan: SearchPlan, _scope: PlanScope) -> int:
        counted.append(plan)
        return 0

    planner = Planner(PlannerSettings(), LLMSettings(), ChatClient(LLMSettings()), count)
    envelope = planner.plan("2019년 삼성전자 기사", scope())
    assert envelope.relaxed is not None
    assert envelope.relaxed.dropped.time.from_ == "2019-01-01"
    assert envelope.relaxed.dropped.authors == ["삼성전자"]
    assert envelope.plan.filters.time is None and envelope.plan.filters.authors == []
    assert len(counted) == 5  # the plan, each filter alone, then one after another
    assert [s.filter for s in envelope.relaxed.steps] == ["time", "authors"]


def graph_scope(has_graph: bool) -> PlanScope:
    return PlanScope(
        knowledge_bases=[
            KbInfo(
                id="id-people",
                name="people",
                has_graph=has_graph,
                facets=KbFacets(kb_id="id-people", documents=3),
            )
        ],
        strategies=STRATEGIES,
        now=NOW,
    )


@pytest.mark.parametrize(
    ("has_graph", "asked", "hops"), [(True, 2, 2), (True, 9, 5), (False, 3, 0)]
)
def test_an_llm_plan_turns_graph_search_on_within_the_policy(
    planner: Planner, script: Script, has_graph: bool, asked: int, hops: int
) -> None:
    """The LLM plans graph hops for a relational question; the policy clamps the hops to 5 and
    turns graph search off when no chosen knowledge base has a graph, saying so."""
    reply = plan_json(knowledge_bases=["people"], graph={"enabled": True, "hops": asked})
    script.replies.append(Reply(reply))
    envelope = planner.plan("일론 머스크가 CEO인 회사의 창업 연도는?", graph_scope(has_graph))
    assert envelope.source == "llm" and envelope.fallback_reason is None
    catalog = script.requests[0]["messages"][1]["content"]
    assert f'"graph": {str(has_graph).lower()}' in catalog  # the LLM is told which KB has one
    graph = envelope.plan.graph
    joined = " ".join(envelope.errors)
    if has_graph:
        assert graph.enabled and graph.hops == hops
        assert ("hops clamped" in joined) == (asked > 5)
    else:
        assert not graph.enabled
        assert "graph search disabled: no selected knowledge base has a graph" in joined


def test_an_llm_filter_on_an_event_date_is_corrected_by_the_policy(planner, script) -> None:  # type: ignore[no-untyped-def]
    time = {"from": "1989-06-30", "to": "1989-06-30", "expression": "1989년 6월 30일"}
    query = "평양축전에 대표로 파견 된 인물은?"
    script.replies.append(Reply(plan_json(filters={"time": time}, query=query)))
    question = "1989년 6월 30일 평양축전에 대표로 파견 된 인물은?"
    envelope = planner.plan(question, scope())
    assert envelope.source == "llm"
    assert envelope.plan.filters.time is None
    assert envelope.plan.query == f"1989년 6월 30일 {query}"  # the date is searched for
    assert any("dates the world" in e for e in envelope.errors)
    assert envelope.plan.world_time is None  # no document of this KB is dated 1989
    # the same date on documents stays a filter
    script.replies.append(Reply(plan_json(filters={"time": time}, query="평양축전")))
    kept = planner.plan("1989년 6월 30일 평양축전 기사", scope()).plan
    assert kept.filters.time is not None and kept.filters.time.from_ == "1989-06-30"


def test_the_prompt_carries_the_document_time_rule(planner, script) -> None:  # type: ignore[no-untyped-def]
    script.replies.append(Reply(plan_json()))
    planner.plan("한국에서 가장 오래된 아파트는?", scope())
    system = script.requests[0]["messages"][0]["content"]
    assert "Document time vs. world time" in system and "한 건물" in system


def test_an_llm_event_date_becomes_the_soft_signal_on_dated_documents(planner, script) -> None:  # type: ignore[no-untyped-def]
    time = {"from": "2017-07-28", "to": "2017-07-28", "expression": "2017년 7월 28일"}
    script.replies.append(Reply(plan_json(filters={"time": time}, query="북한이 발사한 ICBM은?")))
    at = scope(("news",))
    kb = at.knowledge_bases[0]
    facets = kb.facets.model_copy(update={"date_from": "2017-07-01", "date_to": "2017-08-31"})
    at = at.model_copy(update={"knowledge_bases": [kb.model_copy(update={"facets": facets})]})
    plan = planner.plan("2017년 7월 28일 북한이 발사한 ICBM은?", at).plan
    assert plan.filters.time is None  # corrected by the policy
    assert plan.world_time is not None and plan.world_time.from_ == "2017-07-28"
