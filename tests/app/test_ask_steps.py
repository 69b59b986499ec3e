"""Multi-step asks through POST /ai/v2/ask (a real server, real stores and model, our Korean
fixture corpus): `step` events between `search_plan` and `search_result`, each step's query
filled with the answer the previous one read, an answer citing passages of every step, the
whole chain in the trace, `/ai/v2/plan` showing the steps, a clear `end` when a step finds no
answer, the scripted LLM's multi-step plans (valid, looping → retry, looping twice → fallback)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from planrag.app.main import create_app
from planrag.core.settings import LLMSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.planner.schema import SearchPlan
from planrag.services.ask import AskService
from planrag.services.ask_events import EndEvent, StepEvent
from planrag.services.ask_requests import AskRequest
from tests.app.kb_fill import fill_kb
from tests.app.test_ask_api import Served, answer_text, data, names
from tests.llm.fake_llm import Reply, Script, scripted_llm_settings, serve_llm
from tests.servers import serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"
DOCS = [
    (p.name, p.read_text(encoding="utf-8"), {})
    for p in sorted(FIXTURES.glob("*.md"))
    if p.name != "README.md"
]
STEP_EVENTS = [
    "search_plan", "step", "step", "search_result", "exist_in_post_status", "context"
]  # fmt: skip
CHAIN = "한빛로보틱스 대표이사가 졸업한 대학교의 총장은?"


def _served(tmp: Path, embedders: EmbedderRegistry, llm: LLMSettings, script: Script):
    settings = Settings(_env_file=None, data_dir=tmp, llm=llm)  # type: ignore[call-arg]
    # The chains here are about steps, not the time budget (its own test sets it): three steps
    # on a loaded machine may pass the default 30 s (the chain test failed once under load in
    # session 14 and passed alone; the budget is the likely cause, not a confirmed one).
    ask = settings.ask.model_copy(update={"steps_time_budget_s": 600.0})
    settings = settings.model_copy(update={"ask": ask})
    app = create_app(settings, embedders)
    with serve(app) as url:
        yield Served(url, script, app, fill_kb(url, "ko", DOCS))


@pytest.fixture(scope="module")
def plain(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    yield from _served(tmp_path_factory.mktemp("steps"), embedders, LLMSettings(), Script())


@pytest.fixture(scope="module")
def with_llm(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    script = Script()
    with serve_llm(script) as llm_url:
        llm = scripted_llm_settings(llm_url, timeout_s=5.0)
        yield from _served(tmp_path_factory.mktemp("steps-llm"), embedders, llm, script)


def steps_of(stream: list[tuple[str, dict]]) -> list[dict]:
    return [d for n, d in stream if n == "step"]


def test_a_chain_question_runs_its_steps_and_cites_every_step(plain: Served) -> None:
    stream = plain.ask(question=CHAIN)
    events = ["search_plan", "step", *STEP_EVENTS[1:]]  # three steps: the role, then two
    assert names(stream)[:7] == events and names(stream)[-2:] == ["answer", "end"]
    plan = data(stream, "search_plan")["plan"]
    assert plan["version"] == 2 and [s["id"] for s in plan["steps"]] == ["s1", "s2", "s3"]
    role, first, second = steps_of(stream)
    assert role["query"] == "한빛로보틱스 대표이사" and role["answer"]["text"] == "김도윤"
    assert first["query"] == "김도윤이 졸업한 대학교"
    assert first["answer"]["text"] == "한결대학교" and first["status"] == "ok"
    assert second["planned"] == "{{s2.answer}}의 총장은?"
    assert second["query"] == "한결대학교의 총장은?"
    assert second["answer"]["text"] == "문태호"
    assert first["hits"][0]["doc_id"] == plain.doc_ids["hanbit_company.md"]
    assert second["hits"][0]["doc_id"] == plain.doc_ids["hangyeol_university.md"]
    # The answer cites a passage of each step: the bridge's document and the answer's.
    text = answer_text(stream)
    assert "문태호" in text and "한결대학교" in text
    # It leads with the answer (up to its first citation), the bridge steps' sentences after.
    assert "문태호" in text[: text.index("[")]
    end = data(stream, "end")
    assert end["answer_source"] == "extractive" and "steps_stopped" not in end
    cited = {c["doc_id"] for c in end["citations"]}
    assert {plain.doc_ids["hanbit_company.md"], plain.doc_ids["hangyeol_university.md"]} <= cited
    # The trace holds the whole chain.
    trace = httpx.get(f"{plain.url}/ai/v2/traces/{end['trace_id']}").json()["data"]
    assert [s["query"] for s in trace["steps"]] == [role["query"], first["query"], second["query"]]
    assert trace["steps"][2]["answer"]["text"] == "문태호"
    assert "steps" in trace["timings_ms"]


def test_single_hop_questions_stream_as_before(plain: Served) -> None:
    stream = plain.ask(question="누리봇 S2의 최대 적재 중량은?")
    assert names(stream) == [
        "search_plan", "search_result", "exist_in_post_status", "context", "answer", "end"
    ]  # fmt: skip
    assert data(stream, "search_plan")["plan"]["version"] == 1
    assert "500kg" in answer_text(stream)


def test_the_plan_endpoint_shows_the_steps(plain: Served) -> None:
    response = httpx.post(f"{plain.url}/ai/v2/plan", json={"question": CHAIN}, timeout=60)
    plan = SearchPlan.model_validate(response.json()["plan"])
    assert plan.version == 2
    assert [s.query for s in plan.steps] == [
        "한빛로보틱스 대표이사",
        "{{s1.answer}}가 졸업한 대학교",
        "{{s2.answer}}의 총장은?",
    ]


def test_a_step_without_an_answer_ends_clearly(with_llm: Served) -> None:
    """A scripted plan whose first hop shares no word with any passage: neither the LLM (NONE)
    nor the extractive reader finds an answer in s1, so s2 never runs and the end event says
    which step stopped and why."""
    dead_end = [dict(LLM_STEPS[0], query="얼룩말 양자 실로폰"), LLM_STEPS[1]]
    with_llm.script.replies += [
        llm_plan(steps=dead_end, answer_from="s2"),
        Reply("NONE"),  # s1 read by the LLM: nothing
        Reply("찾지 못했습니다."),
    ]
    stream = with_llm.ask(question="화성 탐사 기업에 투자한 벤처캐피털의 대표는 누구인가요?")
    steps = steps_of(stream)
    assert steps[0]["id"] == "s1" and steps[0]["status"] != "ok"
    end = data(stream, "end")
    assert end["steps_stopped"]["step"] == "s2"
    assert "s1 found no answer" in end["steps_stopped"]["reason"]


def llm_plan(**changes: object) -> Reply:
    plan = SearchPlan(knowledge_bases=["ko"], rationale="scripted").model_dump(by_alias=True)
    plan.update(changes)
    return Reply(json.dumps(plan, ensure_ascii=False))


LLM_STEPS = [
    {"id": "s1", "query": "한빛로보틱스 시리즈 B 주도 벤처캐피털", "strategy": "hybrid",
     "top_k": 5, "filters": None, "graph": None},
    {"id": "s2", "query": "{{s1.answer}} 대표", "strategy": None, "top_k": None,
     "filters": None, "graph": None},
]  # fmt: skip


def test_an_llm_plan_with_steps_reads_each_step_with_the_llm(with_llm: Served) -> None:
    with_llm.script.replies += [
        llm_plan(steps=LLM_STEPS, answer_from="s2"),
        Reply("푸른벤처스"),  # s1 read by the LLM
        Reply("한지훈"),  # s2
        Reply("푸른벤처스의 대표는 한지훈입니다 [1][2]."),
    ]
    stream = with_llm.ask(question="한빛로보틱스 시리즈 B를 주도한 곳의 대표는?")
    envelope = data(stream, "search_plan")
    assert envelope["source"] == "llm" and envelope["plan"]["version"] == 2
    first, second = steps_of(stream)
    assert first["answer"] == {
        "text": "푸른벤처스", "sentence": "푸른벤처스", "passage": first["answer"]["passage"],
        "source": "llm",
    }  # fmt: skip
    assert second["query"] == "푸른벤처스 대표" and second["answer"]["text"] == "한지훈"
    assert data(stream, "end")["answer_source"] == "llm"
    # The final answer's prompt holds passages of both steps.
    prompt = with_llm.script.requests[-1]["messages"][1]["content"]
    assert "한지훈" in prompt and "시리즈 B" in prompt


def test_an_llm_step_answer_no_passage_holds_is_not_used(with_llm: Served) -> None:
    with_llm.script.replies += [
        llm_plan(steps=LLM_STEPS),
        Reply("알파캐피털"),  # invented: no passage says it → read extractively instead
        Reply("NONE"),
        Reply("답변 [1]"),
    ]
    stream = with_llm.ask(question="한빛로보틱스 시리즈 B를 주도한 곳의 대표는?")
    first = steps_of(stream)[0]
    assert first["answer"]["source"] == "extractive" and first["answer"]["text"] == "푸른벤처스"


def test_a_looping_llm_plan_is_retried_with_the_error(with_llm: Served) -> None:
    looping = [dict(LLM_STEPS[0], query="{{s2.answer}} 투자"), LLM_STEPS[1]]
    with_llm.script.replies += [
        llm_plan(steps=looping),
        llm_plan(steps=LLM_STEPS),
        Reply("푸른벤처스"),
        Reply("한지훈"),
        Reply("답변 [1]"),
    ]
    start = len(with_llm.script.requests)
    stream = with_llm.ask(question="한빛로보틱스 시리즈 B를 주도한 곳의 대표는?")
    envelope = data(stream, "search_plan")
    assert envelope["source"] == "llm" and any("cycle" in e for e in envelope["errors"])
    retry = with_llm.script.requests[start + 1]["messages"][-1]["content"]
    assert "cycle" in retry
    assert len(steps_of(stream)) == 2


def test_looping_twice_falls_back_to_the_rule_planners_steps(with_llm: Served) -> None:
    looping = [dict(LLM_STEPS[0], query="{{s1.answer}}"), LLM_STEPS[1]]
    with_llm.script.replies += [
        llm_plan(steps=looping),
        llm_plan(steps=looping),
        Reply("김도윤"),
        Reply("한결대학교"),
        Reply("문태호"),
        Reply("답변 [1]"),
    ]
    stream = with_llm.ask(question=CHAIN)
    envelope = data(stream, "search_plan")
    assert envelope["source"] == "fallback" and "cycle" in envelope["fallback_reason"]
    assert [s["id"] for s in envelope["plan"]["steps"]] == ["s1", "s2", "s3"]
    assert [s["query"] for s in steps_of(stream)][2] == "한결대학교의 총장은?"


def test_too_many_steps_for_the_budget_fall_back(with_llm: Served) -> None:
    five = [dict(LLM_STEPS[0], id=f"s{i}") for i in range(1, 6)]
    with_llm.script.replies += [
        llm_plan(steps=five),
        llm_plan(steps=five),
        Reply("답변 [1]"),
    ]
    stream = with_llm.ask(question="누리봇 S2의 최대 적재 중량은?")
    envelope = data(stream, "search_plan")
    assert envelope["source"] == "fallback" and "steps" in envelope["fallback_reason"]
    assert envelope["plan"]["steps"] == []


def test_a_spent_time_budget_stops_the_steps_and_says_so(plain: Served) -> None:
    """PLANRAG_ASK__STEPS_TIME_BUDGET_S: a step not started within the budget does not run;
    the answer still comes (from the steps that ran) and `end` says which step stopped and
    why. A budget of a microsecond is spent before the second step (a search takes longer)."""
    runtime = plain.app.state.runtime  # type: ignore[attr-defined]
    s = runtime.settings
    settings = s.model_copy(update={"ask": s.ask.model_copy(update={"steps_time_budget_s": 1e-6})})
    asking = AskService.build(
        settings, runtime.metadata, runtime.retrieval, runtime.chat, runtime.executors.strategies
    )
    kb = runtime.metadata.get_kb_by_name("ko")
    request = AskRequest(question=CHAIN, knowledge_bases=["ko"])

    async def collect() -> list[object]:
        return [e async for e in asking.ask(request, asking.scope(request, [kb]), [kb])]

    try:
        events = asyncio.run(collect())
    finally:
        asking.close()
    end = next(e for e in events if isinstance(e, EndEvent))
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert end.steps_stopped is not None and "time budget (1e-06 s)" in end.steps_stopped.reason
    assert end.steps_stopped.step in ("s1", "s2") and len(steps) <= 1
    assert isinstance(events[-1], EndEvent)  # the ask ends normally, no error event
