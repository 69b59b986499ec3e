"""Answers through POST /ai/v2/ask as a user reads them (issue 24), on our Korean fixture corpus
in an e5 knowledge base: the lead answers (model numbers matter), one verdict (exists, answer and
answer_source agree), cross-lingual questions are not vetoed, "요약해줘" gets a summary, and an
LLM answer's citations are checked against their passages (the scripted LLM)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from planrag.app.main import create_app
from planrag.core.settings import E5_MODEL, LLMSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.planner.schema import SearchPlan
from tests.app.sse import events
from tests.llm.fake_llm import Reply, Script, scripted_llm_settings, serve_llm
from tests.servers import serve

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"
NOT_FOUND_KO = "질문과 관련된 문서를 찾지 못했습니다"
NOT_FOUND_EN = "I found no documents"


@dataclass
class Served:
    url: str
    script: Script

    def ask(self, question: str, **body: object) -> dict[str, object]:
        """The stream's events by name (answer deltas joined)."""
        found: dict[str, object] = {"answer": ""}
        body = {"question": question, "knowledge_bases": ["company"], **body}
        with httpx.stream("POST", f"{self.url}/ai/v2/ask", json=body, timeout=300) as response:
            assert response.status_code == 200, response.read()
            for name, value in events(response):
                if name == "answer":
                    found["answer"] = str(found["answer"]) + value["delta"]
                else:
                    found[name] = value
        return found


def fill(url: str, files: list[str]) -> None:
    kb = httpx.post(
        f"{url}/api/knowledge-bases",
        json={"name": "company", "embedding_model": E5_MODEL},
        timeout=120,
    ).json()
    upload = [("files", (f, (CORPUS / f).read_bytes(), "text/markdown")) for f in files]
    httpx.post(f"{url}/api/knowledge-bases/{kb['id']}/documents", files=upload, timeout=300)
    deadline = time.monotonic() + 600
    while True:
        listed = httpx.get(f"{url}/api/knowledge-bases/{kb['id']}/documents", timeout=60).json()
        if len(listed) == len(files) and all(d["status"] == "completed" for d in listed):
            return
        assert time.monotonic() < deadline, listed
        time.sleep(0.5)


def _served(tmp: Path, embedders: EmbedderRegistry, llm: LLMSettings, script: Script, files):  # type: ignore[no-untyped-def]
    settings = Settings(_env_file=None, data_dir=tmp, llm=llm)  # type: ignore[call-arg]
    with serve(create_app(settings, embedders)) as url:
        fill(url, files)
        yield Served(url, script)


@pytest.fixture(scope="module")
def plain(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    files = sorted(p.name for p in CORPUS.glob("*.md") if p.name != "README.md")
    yield from _served(tmp_path_factory.mktemp("plain"), embedders, LLMSettings(), Script(), files)


@pytest.fixture(scope="module")
def with_llm(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    script = Script()
    with serve_llm(script) as llm_url:
        llm = scripted_llm_settings(llm_url, timeout_s=5.0)
        files = ["nuribot_products.md", "hanbit_company.md"]
        yield from _served(tmp_path_factory.mktemp("llm"), embedders, llm, script, files)


def lead(answer: str) -> str:
    return answer.split("[", 1)[0]


def test_the_lead_answers_the_asked_model(plain: Served) -> None:
    got = plain.ask("누리봇 S2 배터리 운행 시간은?")
    assert "10시간" in lead(str(got["answer"]))
    assert "14시간" not in str(got["answer"])  # S3's target is not S2's
    got = plain.ask("누리봇 S2의 최대 적재 중량은?")
    assert "500kg" in lead(str(got["answer"])) and "300kg" not in lead(str(got["answer"]))


def test_the_lead_holds_the_asked_kind_of_answer(plain: Served) -> None:
    assert "한지훈" in lead(str(plain.ask("푸른벤처스의 대표는 누구인가?")["answer"]))
    assert "2015년 3월" in lead(str(plain.ask("한빛로보틱스는 언제 설립되었나?")["answer"]))
    assert "85명" in lead(str(plain.ask("누리테크 직원은 몇 명이야?")["answer"]))


def test_an_english_question_leads_with_what_was_found(plain: Served) -> None:
    """ "found" is "find" (an irregular verb) and the question's verb is what it asks: the
    audit's finding leads, not its date sentence, which repeats "safety audit"."""
    got = lead(str(plain.ask("What did the safety audit find?")["answer"]))
    assert "fire exit" in got and "14 April 2025" not in got


def test_one_verdict(plain: Served) -> None:
    for question in ("2025년 인사 규정 변경 알려줘", "자녀 학자금 지원 한도는 얼마인가?"):
        got = plain.ask(question)
        assert got["exist_in_post_status"]["exists"] is True  # type: ignore[index]
        assert got["end"]["answer_source"] == "extractive"  # type: ignore[index]
        assert NOT_FOUND_KO not in str(got["answer"]) and "[" in str(got["answer"])
    got = plain.ask("고양이 사료 가격 알려줘")
    assert got["exist_in_post_status"]["exists"] is False  # type: ignore[index]
    assert got["end"]["answer_source"] == "none"  # type: ignore[index]
    assert str(got["answer"]).startswith(NOT_FOUND_KO)


def test_a_cross_lingual_question_is_not_vetoed(plain: Served) -> None:
    got = plain.ask("Who is the CEO of Nuritech?")
    assert got["exist_in_post_status"]["exists"] is True  # type: ignore[index]
    assert NOT_FOUND_EN not in str(got["answer"]) and "[" in str(got["answer"])
    assert plain.ask("How do I bake sourdough bread?")["exist_in_post_status"]["exists"] is False  # type: ignore[index]


def test_a_summary_request_gets_a_cited_summary(plain: Served) -> None:
    got = plain.ask("인사 규정 요약해줘")
    answer = str(got["answer"])
    assert got["end"]["answer_source"] == "extractive"  # type: ignore[index]
    assert answer.count("[") >= 3 and "#" not in answer and "---" not in answer
    assert "연차" in answer and "재택근무" in answer  # several topics, not one
    response = httpx.post(
        f"{plain.url}/prompt/summarize", json={"query": "인사 규정"}, timeout=120
    ).json()
    assert response["documents_count"] > 0 and response["fallback"] == "extractive"
    assert "[1]" in response["summary"] or "[2]" in response["summary"]


def llm_plan(query: str) -> Reply:
    plan = SearchPlan(knowledge_bases=["company"], query=query).model_dump(by_alias=True)
    return Reply(json.dumps(plan, ensure_ascii=False))


def test_llm_citations_are_checked_against_their_passages(with_llm: Served) -> None:
    supported = "누리봇 S2의 최대 적재 중량은 500kg입니다 [1]."
    unsupported = "화성 탐사 우주선의 엔진 추력은 900톤입니다 [1]."
    missing = "가격은 4,800만 원입니다 [9]."
    with_llm.script.replies += [
        llm_plan("누리봇 S2 적재 중량"),
        Reply(f"{supported} {unsupported} {missing}"),
    ]
    got = with_llm.ask("누리봇 S2의 최대 적재 중량은?")
    assert got["answer"] == f"{supported} {unsupported} {missing}"  # streamed as generated
    end = got["end"]
    assert end["answer_source"] == "llm"  # type: ignore[index]
    flagged = {(u["n"], u["reason"]) for u in end["unsupported_citations"]}  # type: ignore[index]
    assert flagged == {(1, "not_supported"), (9, "no_such_passage")}
    assert [c["n"] for c in end["citations"]] == [1]  # type: ignore[index]
    # The passages are numbered in the prompt.
    assert "[1]" in with_llm.script.requests[-1]["messages"][1]["content"]
    # All supported: checked, nothing flagged.
    with_llm.script.replies += [llm_plan("누리봇 S2 적재 중량"), Reply(supported)]
    end = with_llm.ask("누리봇 S2의 최대 적재 중량은?")["end"]
    assert end["unsupported_citations"] == []  # type: ignore[index]
    assert [c["n"] for c in end["citations"]] == [1]  # type: ignore[index]
