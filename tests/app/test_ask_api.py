"""POST /ai/v2/ask (SSE, against a real uvicorn server), POST /ai/v2/plan and the traces.

Real stores and model; the LLM, when there is one, is the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import LLMSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.planner.schema import SearchPlan
from tests.app.kb_fill import fill_kb
from tests.app.sse import events
from tests.llm.fake_llm import Reply, Script, scripted_llm_settings, serve_llm
from tests.planner.test_time_range import load_plan_cases
from tests.servers import serve

NOW = "2025-11-21T10:00:00+09:00"
DOCS = [
    ("metaverse.md", "메타버스는 가상과 현실이 융합된 공간이다. 삼성전자는 메타버스 플랫폼에 "
     "대규모 투자를 발표했다.",
     {"date": "20250910", "author": "삼성전자", "title": "메타버스 뉴스"}),
    ("chips.md", "반도체 수출이 9월에 크게 늘었다. 메모리 반도체 가격이 상승했다.",
     {"date": "20250925", "author": "연합뉴스", "title": "반도체 수출"}),
    ("rates.md", "The central bank raised interest rates by 0.25 percentage points.",
     {"date": "20251112", "author": "Reuters", "title": "Interest rates"}),
    ("history.md", "메타버스라는 말은 1992년 소설 스노우 크래시에서 처음 등장했다.",
     {"date": "20240315", "author": "연합뉴스", "title": "메타버스의 역사"}),
]  # fmt: skip


@dataclass
class Served:
    url: str
    script: Script
    app: object
    doc_ids: dict[str, str]

    def ask(self, timeout: float = 120.0, **body: object) -> list[tuple[str, dict]]:
        body.setdefault("now", NOW)
        with httpx.stream("POST", f"{self.url}/ai/v2/ask", json=body, timeout=timeout) as r:
            assert r.status_code == 200, r.read()
            assert r.headers["content-type"].startswith("text/event-stream")
            return list(events(r))


def _served(tmp: Path, embedders: EmbedderRegistry, llm: LLMSettings, script: Script):
    settings = Settings(_env_file=None, data_dir=tmp, llm=llm)  # type: ignore[call-arg]
    app = create_app(settings, embedders)
    with serve(app) as url:
        yield Served(url, script, app, fill_kb(url, "news", DOCS))


@pytest.fixture(scope="module")
def plain(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    """No LLM: heuristic plans, extractive answers."""
    yield from _served(tmp_path_factory.mktemp("plain"), embedders, LLMSettings(), Script())


@pytest.fixture(scope="module")
def with_llm(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    script = Script()
    with serve_llm(script) as llm_url:
        llm = scripted_llm_settings(llm_url, timeout_s=3.0, allowed_models=["other-model"])
        yield from _served(tmp_path_factory.mktemp("llm"), embedders, llm, script)


def names(stream: list[tuple[str, dict]]) -> list[str]:
    collapsed: list[str] = []
    for name, _ in stream:
        if not (collapsed and collapsed[-1] == name == "answer"):
            collapsed.append(name)
    return collapsed


def data(stream: list[tuple[str, dict]], name: str) -> dict:
    return next(d for n, d in stream if n == name)


def answer_text(stream: list[tuple[str, dict]]) -> str:
    return "".join(d["delta"] for n, d in stream if n == "answer")


RAG_EVENTS = ["search_plan", "search_result", "exist_in_post_status", "context", "answer", "end"]

# ---------------------------------------------------------------- plan inspection


def test_plan_cases_through_the_plan_endpoint(client: TestClient) -> None:
    assert client.post("/api/knowledge-bases", json={"name": "news"}).status_code == 201
    for case in load_plan_cases():
        response = client.post(
            "/ai/v2/plan", json={"question": case["question"], "now": case["now"]}
        )
        assert response.status_code == 200, response.text
        envelope = response.json()
        plan, want = envelope["plan"], case["expect"]
        assert envelope["source"] == "heuristic", case["id"]
        if "time" in want:
            got = plan["filters"]["time"]
            if want["time"] is None:
                assert got is None, case["id"]
            else:
                assert got["to"] == want["time"]["to"], case["id"]
                gap = date.fromisoformat(got["from"]) - date.fromisoformat(want["time"]["from"])
                assert abs(gap.days) <= case.get("tolerance_days", 0), case["id"]
        for key in ("sort", "limit", "mode"):
            if key in want:
                assert plan[key] == want[key], case["id"]
        if "top_k_max" in want:
            assert plan["top_k"] <= want["top_k_max"], case["id"]
        SearchPlan.model_validate(plan)


def test_plan_inspection_of_a_follow_up_shows_the_standalone_question(client: TestClient) -> None:
    now = "2025-11-21T10:00:00+09:00"
    messages = [
        {"role": "user", "content": "2025년 인사 규정 변경 알려줘"},
        {"role": "assistant", "content": "2025년 1월 1일부터 개정된 인사 규정을 시행합니다."},
        {"role": "user", "content": "그럼 작년에는?"},
        {"role": "assistant", "content": "2024년에는 …"},
    ]
    body = {"question": "요약해줘", "now": now, "messages": messages}
    envelope = client.post("/ai/v2/plan", json=body).json()
    followup = envelope["followup"]
    # the third turn keeps the topic and the time of the second (itself a follow-up)
    assert "인사 규정" in followup["standalone"] and "작년" in followup["standalone"]
    assert envelope["plan"]["filters"]["time"]["from"] == "2024-01-01"
    plain = client.post("/ai/v2/plan", json={"question": "요약해줘", "now": now}).json()
    assert plain.get("followup") is None and plain["plan"]["filters"]["time"] is None
    unknown = {"question": "요약해줘", "now": now, "conversation_id": "never-seen"}
    assert client.post("/ai/v2/plan", json=unknown).json().get("followup") is None


def test_plan_refuses_unknown_knowledge_bases_and_long_questions(client: TestClient) -> None:
    response = client.post("/ai/v2/plan", json={"question": "x", "knowledge_bases": ["nope"]})
    assert response.status_code == 404
    assert client.post("/ai/v2/plan", json={"question": "x" * 2001}).status_code == 400
    assert client.post("/ai/v2/plan", json={"question": ""}).status_code == 422


# ---------------------------------------------------------------- ask without an LLM


def test_ask_streams_the_events_in_order_with_an_extractive_answer(plain: Served) -> None:
    stream = plain.ask(question="9월 메타버스 기사 알려줘", knowledge_bases=["news"])
    assert names(stream) == RAG_EVENTS
    envelope = data(stream, "search_plan")
    assert envelope["source"] == "heuristic"
    assert envelope["plan"]["filters"]["time"]["from"] == "2025-09-01"
    hits = data(stream, "search_result")["hits"]
    assert hits and {h["doc_id"] for h in hits} <= {
        plain.doc_ids["metaverse.md"],
        plain.doc_ids["chips.md"],
    }
    assert hits[0]["doc_id"] == plain.doc_ids["metaverse.md"]
    assert data(stream, "exist_in_post_status")["exists"] is True
    passages = data(stream, "context")["passages"]
    assert passages[0]["n"] == 1 and "메타버스" in passages[0]["content"]
    text = answer_text(stream)
    assert "[1]" in text and "메타버스" in text
    end = data(stream, "end")
    assert end["answer_source"] == "extractive"
    assert end["citations"][0]["doc_id"] == plain.doc_ids["metaverse.md"]
    trace = httpx.get(f"{plain.url}/ai/v2/traces/{end['trace_id']}").json()
    spec_views = ("spec002", "user_scope")  # the event's views of the plan, not stored
    stored = {k: v for k, v in envelope.items() if k not in spec_views}
    assert trace["status"] == "ok" and trace["data"]["envelope"] == stored
    assert trace["data"]["answer"] == text
    listed = httpx.get(f"{plain.url}/ai/v2/traces").json()
    assert end["trace_id"] in [t["id"] for t in listed]


def test_sort_and_limit_count_documents(plain: Served) -> None:
    stream = plain.ask(question="메타버스 기사 최신순으로 1개")
    envelope = data(stream, "search_plan")
    assert (envelope["plan"]["sort"], envelope["plan"]["limit"]) == ("newest", 1)
    hits = data(stream, "search_result")["hits"]
    assert [h["doc_id"] for h in hits] == [plain.doc_ids["metaverse.md"]]


def test_filters_that_match_nothing_are_relaxed_and_said_so(plain: Served) -> None:
    stream = plain.ask(question="2019년 메타버스 기사")
    envelope = data(stream, "search_plan")
    assert envelope["relaxed"]["dropped"]["time"]["from"] == "2019-01-01"
    assert envelope["plan"]["filters"]["time"] is None
    assert data(stream, "search_result")["relaxed"] is True
    assert data(stream, "search_result")["hits"]


def test_greetings_are_answered_directly(plain: Served) -> None:
    stream = plain.ask(question="안녕하세요")
    assert names(stream) == ["search_plan", "answer", "end"]
    assert data(stream, "end")["answer_source"] == "canned"


def test_document_mode_answers_from_that_document_only(plain: Served) -> None:
    stream = plain.ask(question="요약해줘", doc_id=plain.doc_ids["chips.md"])
    assert data(stream, "search_plan")["plan"]["mode"] == "document"
    hits = data(stream, "search_result")["hits"]
    assert hits and {h["doc_id"] for h in hits} == {plain.doc_ids["chips.md"]}


def test_post_id_is_spec_002s_document_mode(plain: Served) -> None:
    """Spec 002 names document mode `post_id` (it was dropped: every KB was searched)."""
    chips = plain.doc_ids["chips.md"]
    stream = plain.ask(question="요약해줘", post_id=chips, user_id="u1")
    event = data(stream, "search_plan")
    assert event["plan"]["mode"] == "document" and event["plan"]["filters"]["doc_ids"] == [chips]
    spec = event["spec002"]  # the plan in spec 002's names
    assert spec["mode"] == "post" and spec["filters"]["post_id"] == chips
    assert spec["filters"]["user_id"] == "u1"
    hits = data(stream, "search_result")["hits"]
    assert hits and {h["doc_id"] for h in hits} == {chips}
    missing = httpx.post(f"{plain.url}/ai/v2/ask", json={"question": "x", "post_id": "nope"})
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "document_not_found"
    both = {"question": "x", "post_id": chips, "doc_id": plain.doc_ids["rates.md"]}
    assert httpx.post(f"{plain.url}/ai/v2/ask", json=both).status_code == 422


def test_the_user_id_rule_is_visible_in_the_plan_event(plain: Served) -> None:
    """`user_id` narrows per-user KBs only; the event says which KBs it narrowed and why."""
    event = data(plain.ask(question="메타버스", user_id="u1", category_ids=[7]), "search_plan")
    scope = event["user_scope"]
    assert scope["user_id"] == "u1" and scope["filtered"] == [] and scope["shared"] == ["news"]
    assert "per_user" in scope["rule"]
    assert event["spec002"]["mode"] == "rag"
    assert event["spec002"]["filters"]["category_ids"] == ["7"]


def test_spec_002_top_k_is_validated_and_widened_for_a_listing(plain: Served) -> None:
    """A client's top_k is spec 002's (1..10): outside it a 422; inside it the plan's
    candidate width, raised to cover a listing's limit (up to 20), which the spec-002 view
    reports within the range beside `candidates`, what was fetched."""
    for bad in (0, 11):
        r = httpx.post(f"{plain.url}/ai/v2/ask", json={"question": "메타버스", "top_k": bad})
        assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error"
    event = data(plain.ask(question="메타버스", top_k=3), "search_plan")
    assert event["plan"]["top_k"] == 3
    assert (event["spec002"]["top_k"], event["spec002"]["candidates"]) == (3, 3)
    event = data(plain.ask(question="메타버스 관련 글 15개 보여줘", top_k=4), "search_plan")
    assert (event["plan"]["sort"], event["plan"]["limit"]) == ("relevance", 15)
    assert event["plan"]["top_k"] == 15
    assert (event["spec002"]["top_k"], event["spec002"]["candidates"]) == (10, 15)


def test_v1_is_the_fixed_pipeline_beside_v2(plain: Served) -> None:
    """Spec 002's v1 route: the same plan for every question (no planner, no time filter)."""
    body = {"question": "9월 메타버스 기사 2개만", "now": NOW}
    with httpx.stream("POST", f"{plain.url}/ai/v1/ask", json=body, timeout=120) as r:
        assert r.status_code == 200, r.read()
        stream = list(events(r))
    assert names(stream) == RAG_EVENTS
    event = data(stream, "search_plan")
    plan = event["plan"]
    assert event["source"] == "fixed" and event["relaxed"] is None
    assert (plan["strategy"], plan["top_k"], plan["threshold"]) == ("hybrid", 5, 0.2)
    assert plan["filters"]["time"] is None and plan["limit"] is None
    assert len(data(stream, "search_result")["hits"]) <= 5
    v2 = data(plain.ask(**body), "search_plan")
    assert v2["source"] == "heuristic" and v2["plan"]["filters"]["time"] is not None


def test_bad_requests_fail_before_the_stream(plain: Served) -> None:
    r = httpx.post(f"{plain.url}/ai/v2/ask", json={"question": "x", "knowledge_bases": ["nope"]})
    assert r.status_code == 404 and r.json()["error"]["code"] == "knowledge_base_not_found"
    r = httpx.post(f"{plain.url}/ai/v2/ask", json={"question": "x", "doc_id": "missing"})
    assert r.status_code == 404


def test_a_failure_after_the_stream_started_is_an_error_event(plain: Served) -> None:
    kb = httpx.post(f"{plain.url}/api/knowledge-bases", json={"name": "broken"}).json()
    plain.app.state.runtime.vectors.drop_collection(kb["id"])  # type: ignore[attr-defined]
    stream = plain.ask(question="아무 질문", knowledge_bases=["broken"])
    assert names(stream)[0] == "search_plan"
    assert names(stream)[-1] == "error"
    error = data(stream, "error")
    assert error["code"] and error["message"] and error["trace_id"]
    assert isinstance(error["params"], dict)  # what fills in the code's text (translation)
    trace = httpx.get(f"{plain.url}/ai/v2/traces/{error['trace_id']}").json()
    assert trace["status"] == "error"
    # Searching every KB, the broken one is skipped and said so; the others still answer.
    stream = plain.ask(question="메타버스 기사")
    assert names(stream) == RAG_EVENTS
    notes = data(stream, "search_result")["stages"]["notes"]
    assert any(note.startswith("broken: search failed") for note in notes)
    assert data(stream, "search_result")["hits"]


# ---------------------------------------------------------------- ask with the scripted LLM


def llm_plan(**changes: object) -> Reply:
    plan = SearchPlan(knowledge_bases=["news"]).model_dump(by_alias=True)
    plan.update(changes)
    return Reply(json.dumps(plan, ensure_ascii=False))


def test_llm_plan_and_streamed_answer_with_citations(with_llm: Served) -> None:
    answer = "메타버스는 가상과 현실이 융합된 공간입니다 [1]."
    with_llm.script.replies += [llm_plan(strategy="bm25", query="메타버스"), Reply(answer)]
    stream = with_llm.ask(question="메타버스가 뭐야?", llm={"model": "other-model"})
    assert names(stream) == RAG_EVENTS
    envelope = data(stream, "search_plan")
    assert envelope["source"] == "llm" and envelope["plan"]["strategy"] == "bm25"
    deltas = [d["delta"] for n, d in stream if n == "answer"]
    assert len(deltas) > 1 and "".join(deltas) == answer
    end = data(stream, "end")
    assert end["answer_source"] == "llm"
    assert [c["n"] for c in end["citations"]] == [1]
    # The request's model went to the LLM; the passages are in the answer prompt.
    answer_request = with_llm.script.requests[-1]
    assert answer_request["model"] == "other-model" and answer_request["stream"] is True
    assert "[1]" in answer_request["messages"][1]["content"]


def test_an_llm_failing_mid_answer_ends_with_the_extractive_answer(with_llm: Served) -> None:
    long = "메타버스는 " + "가상 공간입니다. " * 20
    with_llm.script.replies += [llm_plan(), Reply(long, fail_after_chunks=2)]
    stream = with_llm.ask(question="메타버스 설명해줘")
    assert names(stream) == RAG_EVENTS
    assert data(stream, "end")["answer_source"] == "extractive"
    assert "[1]" in answer_text(stream)


def test_an_invalid_plan_falls_back_and_the_answer_still_streams(with_llm: Served) -> None:
    with_llm.script.replies += [Reply("nope"), Reply("{}}"), Reply("답변 [1]")]
    stream = with_llm.ask(question="반도체 수출 9월")
    envelope = data(stream, "search_plan")
    assert envelope["source"] == "fallback" and "invalid plan" in envelope["fallback_reason"]
    assert answer_text(stream) == "답변 [1]"


def test_client_disconnect_cancels_the_llm_stream(with_llm: Served) -> None:
    script = with_llm.script
    aborted = script.streams_aborted
    script.replies += [llm_plan(), Reply("메타버스 " * 200, chunk_delay_s=0.1)]
    body = {"question": "메타버스 소식", "now": NOW}
    with httpx.stream("POST", f"{with_llm.url}/ai/v2/ask", json=body, timeout=60) as r:
        for name, _ in events(r):
            if name == "answer":
                break  # leave mid-answer: the response closes
    deadline = time.monotonic() + 30
    while script.streams_aborted == aborted:
        assert time.monotonic() < deadline, "the LLM stream was not closed after the disconnect"
        time.sleep(0.1)
    traces = httpx.get(f"{with_llm.url}/ai/v2/traces").json()
    mine = next(t for t in traces if t["question"] == "메타버스 소식")
    deadline = time.monotonic() + 10
    while mine["status"] != "cancelled" and time.monotonic() < deadline:
        time.sleep(0.1)
        mine = httpx.get(f"{with_llm.url}/ai/v2/traces/{mine['id']}").json()
    assert mine["status"] == "cancelled"


def test_plan_weights_reach_the_title_weighted_search(with_llm: Served) -> None:
    weights = {"chunk": 0.3, "title": 0.7}
    with_llm.script.replies += [
        llm_plan(strategy="ann", weights=weights, query="Interest rates"),
        Reply("답 [1]"),
    ]
    stream = with_llm.ask(question="금리 기사")
    assert data(stream, "search_plan")["plan"]["weights"] == weights
    assert data(stream, "search_result")["hits"][0]["doc_id"] == with_llm.doc_ids["rates.md"]
    trace = httpx.get(f"{with_llm.url}/ai/v2/traces/{data(stream, 'end')['trace_id']}").json()
    assert trace["data"]["envelope"]["plan"]["weights"] == weights


def test_heartbeats_keep_a_slow_stream_alive(tmp_path: Path, embedders: EmbedderRegistry) -> None:
    script = Script()
    with serve_llm(script) as llm_url:
        llm = scripted_llm_settings(llm_url, timeout_s=3.0, allowed_models=["other-model"])
        settings = Settings(_env_file=None, data_dir=tmp_path, llm=llm)  # type: ignore[call-arg]
        settings.ask.heartbeat_s = 0.2
        with serve(create_app(settings, embedders)) as url:
            script.replies += [
                llm_plan(mode="direct", knowledge_bases=[]),
                Reply("안녕하세요 " * 5, chunk_delay_s=0.3),
            ]
            body = {"question": "안녕", "now": NOW}
            with httpx.stream("POST", f"{url}/ai/v2/ask", json=body, timeout=60) as r:
                lines = list(r.iter_lines())
    assert any(line.startswith(":") for line in lines), lines
    assert "event: end" in lines
    assert len(script.requests) == 2 and script.requests[1]["stream"] is True


def test_the_spec_002_request_example_is_accepted(plain: Served) -> None:
    """Spec 002 §9's body as written (user_id, speech_tone and llm.provider are accepted)."""
    body = {
        "question": "9월 글 2개만 보여줘",
        "user_id": "<uid>",
        "speech_tone": -1,
        "llm": {"provider": "openai", "model": "gpt-5-mini"},
    }
    stream = plain.ask(**body)
    assert names(stream) == RAG_EVENTS
    plan = data(stream, "search_plan")["plan"]
    assert plan["limit"] == 2 and plan["filters"]["time"]["from"] == "2025-09-01"
