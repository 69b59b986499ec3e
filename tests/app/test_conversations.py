"""Conversations over SSE (real uvicorn server, real stores): a three-turn Korean conversation —
a question, a time-shifted follow-up, "summarise the first one" — with and without an LLM;
OpenAI-style history; conversations scoped to their owner; condensation failing over to rules."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from planrag.app.main import create_app
from planrag.core.settings import LLMSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.planner.schema import SearchPlan
from tests.app.kb_fill import fill_kb
from tests.app.sse import events
from tests.llm.fake_llm import Reply, Script, scripted_llm_settings, serve_llm
from tests.servers import serve

NOW = "2025-11-21T10:00:00+09:00"
DOCS = [
    ("hr2025.md", "2025년 인사 규정 변경: 연차 휴가가 15일에서 17일로 늘었다.",
     {"date": "20250310", "title": "2025 인사 규정 변경"}),
    ("hr2024.md", "2024년 인사 규정 변경: 재택 근무가 주 2일로 정해졌다.",
     {"date": "20240412", "title": "2024 인사 규정 변경"}),
    ("menu.md", "구내식당 메뉴는 매주 월요일에 공지된다.",
     {"date": "20241105", "title": "식당 메뉴"}),
]  # fmt: skip


@dataclass
class Served:
    url: str
    script: Script
    ids: dict[str, str]

    def ask(self, **body: object) -> list[tuple[str, dict]]:
        body.setdefault("now", NOW)
        body.setdefault("knowledge_bases", ["hr"])
        with httpx.stream("POST", f"{self.url}/ai/v2/ask", json=body, timeout=120) as r:
            assert r.status_code == 200, r.read()
            return list(events(r))


def data(stream: list[tuple[str, dict]], name: str) -> dict:
    return next(d for n, d in stream if n == name)


def _served(tmp: Path, embedders: EmbedderRegistry, llm: LLMSettings, script: Script):
    settings = Settings(_env_file=None, data_dir=tmp, llm=llm)  # type: ignore[call-arg]
    with serve(create_app(settings, embedders)) as url:
        yield Served(url, script, fill_kb(url, "hr", DOCS))


@pytest.fixture(scope="module")
def plain(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    yield from _served(tmp_path_factory.mktemp("conv"), embedders, LLMSettings(), Script())


@pytest.fixture(scope="module")
def with_llm(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    script = Script()
    with serve_llm(script) as llm_url:
        llm = scripted_llm_settings(llm_url, timeout_s=3.0)
        yield from _served(tmp_path_factory.mktemp("conv-llm"), embedders, llm, script)


def three_turns(served: Served, before_each=lambda turn: None) -> list[list[tuple[str, dict]]]:
    streams = []
    before_each(1)
    first = served.ask(question="2025년 인사 규정 변경 알려줘")
    conversation = data(first, "end")["conversation_id"]
    streams.append(first)
    before_each(2)
    streams.append(served.ask(question="그럼 작년에는?", conversation_id=conversation))
    before_each(3)
    streams.append(served.ask(question="그 중 첫 번째 문서 요약해줘", conversation_id=conversation))
    return streams


def test_three_turns_without_an_llm(plain: Served) -> None:
    first, second, third = three_turns(plain)
    plan1 = data(first, "search_plan")
    assert plan1["plan"]["filters"]["time"]["from"] == "2025-01-01"
    assert data(first, "context")["passages"][0]["doc_id"] == plain.ids["hr2025.md"]

    plan2 = data(second, "search_plan")
    followup = plan2["followup"]
    assert followup["source"] == "rules" and "topic" in followup["carried"]
    assert "인사 규정" in followup["standalone"] and "작년" in followup["standalone"]
    assert plan2["plan"]["filters"]["time"]["from"] == "2024-01-01"
    assert plan2["plan"]["filters"]["time"]["to"] == "2024-12-31"
    passages2 = data(second, "context")["passages"]
    assert passages2 and passages2[0]["doc_id"] == plain.ids["hr2024.md"]

    plan3 = data(third, "search_plan")
    assert plan3["followup"]["doc_id"] == plain.ids["hr2024.md"]
    assert plan3["plan"]["mode"] == "document"
    passages3 = data(third, "context")["passages"]
    assert {p["doc_id"] for p in passages3} == {plain.ids["hr2024.md"]}
    assert data(third, "end")["conversation_id"] == data(first, "end")["conversation_id"]

    turns = httpx.get(
        f"{plain.url}/ai/v2/conversations/{data(first, 'end')['conversation_id']}"
    ).json()
    assert [t["question"] for t in turns] == [
        "2025년 인사 규정 변경 알려줘",
        "그럼 작년에는?",
        "그 중 첫 번째 문서 요약해줘",
    ]
    assert turns[1]["sources"][0]["doc_id"] == plain.ids["hr2024.md"]


def test_three_turns_with_an_llm(with_llm: Served) -> None:
    plan = SearchPlan(knowledge_bases=["hr"]).model_dump(by_alias=True)

    def script_turn(turn: int) -> None:
        if turn > 1:  # condensation first, then the plan, then the answer
            standalone = "작년 인사 규정 변경" if turn == 2 else "2024 인사 규정 변경 요약"
            with_llm.script.replies.append(Reply(json.dumps({"standalone": standalone})))
        with_llm.script.replies.append(Reply(json.dumps({**plan, "query": "인사 규정 변경"})))
        with_llm.script.replies.append(Reply("답변입니다 [1]."))

    first, second, third = three_turns(with_llm, script_turn)
    followup = data(second, "search_plan")["followup"]
    assert followup["source"] == "llm" and followup["standalone"] == "작년 인사 규정 변경"
    # the LLM saw the earlier turn when condensing, and planned the standalone question
    condense_request = with_llm.script.requests[-6]
    assert "2025년 인사 규정 변경 알려줘" in condense_request["messages"][1]["content"]
    assert "작년 인사 규정 변경" in json.dumps(with_llm.script.requests[-5], ensure_ascii=False)
    # the rules still resolve "the first one" to the previous answer's first source
    third_followup = data(third, "search_plan")["followup"]
    assert third_followup["source"] == "llm"
    assert third_followup["doc_id"] == data(second, "context")["passages"][0]["doc_id"]
    assert data(third, "end")["answer_source"] == "llm"


def test_a_failing_condensation_falls_back_to_the_rules(with_llm: Served) -> None:
    plan = SearchPlan(knowledge_bases=["hr"]).model_dump(by_alias=True)
    with_llm.script.replies += [Reply(json.dumps(plan)), Reply("첫 답 [1].")]
    first = with_llm.ask(question="2025년 인사 규정 변경 알려줘")
    conversation = data(first, "end")["conversation_id"]
    with_llm.script.replies += [
        Reply(status=503, content="overloaded"),  # condensation fails
        Reply(json.dumps(plan)),
        Reply("둘째 답 [1]."),
    ]
    second = with_llm.ask(question="그럼 작년에는?", conversation_id=conversation)
    followup = data(second, "search_plan")["followup"]
    assert followup["source"] == "fallback" and followup["reason"]
    assert "작년" in followup["standalone"] and "인사 규정" in followup["standalone"]


def test_openai_style_history_is_understood(plain: Served) -> None:
    stream = plain.ask(
        question="그럼 작년에는?",
        messages=[
            {"role": "user", "content": "2025년 인사 규정 변경 알려줘"},
            {"role": "assistant", "content": "연차 휴가가 17일로 늘었습니다 [1]."},
        ],
    )
    plan = data(stream, "search_plan")
    assert plan["plan"]["filters"]["time"]["from"] == "2024-01-01"
    assert data(stream, "context")["passages"][0]["doc_id"] == plain.ids["hr2024.md"]


def test_conversations_can_be_listed_and_deleted(plain: Served) -> None:
    stream = plain.ask(question="식당 메뉴 알려줘", conversation_id="lunch-1")
    assert data(stream, "end")["conversation_id"] == "lunch-1"
    listed = httpx.get(f"{plain.url}/ai/v2/conversations").json()
    assert "lunch-1" in {c["id"] for c in listed}
    assert httpx.delete(f"{plain.url}/ai/v2/conversations/lunch-1").status_code == 204
    assert httpx.get(f"{plain.url}/ai/v2/conversations/lunch-1").status_code == 404
    assert httpx.delete(f"{plain.url}/ai/v2/conversations/lunch-1").status_code == 404


def test_speech_tone_sets_the_register_of_the_answer(with_llm: Served) -> None:
    plan = SearchPlan(knowledge_bases=["hr"]).model_dump(by_alias=True)
    for tone, register in ((-1, "반말"), (1, "합쇼체")):
        with_llm.script.replies += [Reply(json.dumps(plan)), Reply("답 [1].")]
        stream = with_llm.ask(question="2025년 인사 규정 변경", speech_tone=tone)
        system = with_llm.script.requests[-1]["messages"][0]["content"]
        assert register in system
        assert register in data(stream, "end")["speech_tone"]
    with_llm.script.replies += [Reply(json.dumps(plan)), Reply("답 [1].")]
    stream = with_llm.ask(question="2025년 인사 규정 변경")
    assert "반말" not in with_llm.script.requests[-1]["messages"][0]["content"]
    assert "speech_tone" not in data(stream, "end")


def test_speech_tone_without_an_llm_says_which_was_asked(plain: Served) -> None:
    stream = plain.ask(question="2025년 인사 규정 변경", speech_tone=1)
    end = data(stream, "end")
    assert end["answer_source"] == "extractive" and "합쇼체" in end["speech_tone"]
    r = httpx.post(f"{plain.url}/ai/v2/ask", json={"question": "x", "speech_tone": 5})
    assert r.status_code == 422


def test_an_llm_choice_outside_the_allow_list_is_a_400(with_llm: Served) -> None:
    for choice in ({"model": "gpt-unknown"}, {"provider": "gemini", "model": "test-model"}):
        r = httpx.post(
            f"{with_llm.url}/ai/v2/ask",
            json={"question": "인사 규정", "knowledge_bases": ["hr"], "llm": choice},
        )
        assert r.status_code == 400, r.text
        assert "PLANRAG_LLM__" in r.json()["error"]["message"]
    plan = SearchPlan(knowledge_bases=["hr"]).model_dump(by_alias=True)
    with_llm.script.replies += [Reply(json.dumps(plan)), Reply("답 [1].")]
    stream = with_llm.ask(question="인사 규정", llm={"provider": "openai", "model": "test-model"})
    assert data(stream, "end")["answer_source"] == "llm"


def test_prompt_chat_is_grounded_when_given_knowledge_bases(plain: Served) -> None:
    r = httpx.post(
        f"{plain.url}/prompt/chat",
        json={"query": "2025년 인사 규정 변경 알려줘", "knowledge_bases": ["hr"]},
        timeout=120,
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["answer_source"] == "extractive" and "[1]" in body["response"]
    assert body["sources"][0]["doc_id"] == plain.ids["hr2025.md"]
    missing = httpx.post(
        f"{plain.url}/prompt/chat", json={"query": "x", "knowledge_bases": ["nope"]}, timeout=60
    )
    assert missing.status_code == 404 and "error" in missing.json()
    # without knowledge bases it stays plain LLM chat (no LLM here: the spec's 503)
    plain_chat = httpx.post(f"{plain.url}/prompt/chat", json={"query": "안녕"}, timeout=60)
    assert plain_chat.status_code == 503 and "sources" not in plain_chat.json()


def test_grounded_prompt_chat_with_an_llm_follows_the_history(with_llm: Served) -> None:
    plan = SearchPlan(knowledge_bases=["hr"]).model_dump(by_alias=True)
    with_llm.script.replies += [
        Reply(json.dumps({"standalone": "작년 인사 규정 변경"})),
        Reply(json.dumps(plan)),
        Reply("2024년에는 재택 근무가 정해졌습니다 [1]."),
    ]
    r = httpx.post(
        f"{with_llm.url}/prompt/chat",
        json={
            "query": "그럼 작년에는?",
            "knowledge_bases": ["hr"],
            "history": [{"role": "user", "content": "2025년 인사 규정 변경 알려줘"}],
            "now": NOW,
        },
        timeout=120,
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["answer_source"] == "llm" and body["response"].endswith("[1].")
    assert body["model"] == "test-model" and body["sources"]
