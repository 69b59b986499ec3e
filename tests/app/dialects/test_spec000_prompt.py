"""Spec 000 §9–11 (/prompt/…): the curl examples against a real server whose LLM is the scripted
OpenAI-compatible server, and every error row of their tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import LLMSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.dialects.conftest import news, wait_indexed
from tests.app.dialects.shapes import assert_shape
from tests.app.dialects.spec_examples import curl_examples, send_like_curl, spec_text
from tests.llm.fake_llm import Reply, Script, serve_llm
from tests.servers import serve

SHAPES = {
    "/prompt/summarize": {
        "query": str,
        "summary": str,
        "documents_count": int,
        "prompt_length": int,
    },
    "/prompt/chat": {"query": str, "model": str, "response": str},
    "/prompt/models": {"models": [str], "default_model": str, "total": int},
}
UNREACHABLE_LLM = LLMSettings(base_url="http://127.0.0.1:9/v1", api_key="k", model="m", timeout_s=2)


def app_with(tmp: Path, embedders: EmbedderRegistry, llm: LLMSettings):  # type: ignore[no-untyped-def]
    settings = Settings(_env_file=None, data_dir=tmp / "data", llm=llm)  # type: ignore[call-arg]
    return create_app(settings, embedders)


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def llm_client(tmp_path: Path, embedders: EmbedderRegistry, script: Script) -> Iterator[TestClient]:
    with serve_llm(script, model="llama2") as url:
        llm = LLMSettings(
            calibration_questions=False, base_url=url, api_key="k", model="llama2", timeout_s=5
        )
        with TestClient(app_with(tmp_path, embedders, llm)) as client:
            yield client


def test_every_curl_example_of_sections_9_to_11(tmp_path: Path, embedders, script) -> None:  # type: ignore[no-untyped-def]
    examples = [e for e in curl_examples(spec_text("000")) if e.route.startswith("/prompt/")]
    assert sorted(e.route for e in examples) == sorted(SHAPES)
    script.replies += [
        Reply("메타버스 시장은 급성장 중입니다 [1]."),
        Reply("메타버스는 가상 세계입니다."),
    ]
    with serve_llm(script, model="llama2") as llm_url:
        llm = LLMSettings(
            calibration_questions=False, base_url=llm_url, api_key="k", model="llama2", timeout_s=5
        )
        app = app_with(tmp_path, embedders, llm)
        with serve(app) as url:
            assert httpx.post(f"{url}/rag/insert", json=news()).status_code == 200
            app.state.runtime.ingestion.wait(timeout=120)
            for example in examples:
                response = send_like_curl(url, example)
                assert response.status == 200, (example.route, response.body.decode())
                assert_shape(response.json(), SHAPES[example.route], example.route)
                bodies = {e.route: e.body for e in examples}
                if example.route == "/prompt/summarize":
                    body = response.json()
                    assert body["documents_count"] == 1 and "fallback" not in body
                    assert body["summary"] == "메타버스 시장은 급성장 중입니다 [1]."
                    assert body["query"] == bodies["/prompt/summarize"]["query"]
                if example.route == "/prompt/chat":
                    assert response.json()["model"] == "llama2"
                if example.route == "/prompt/models":
                    assert response.json() == {
                        "models": ["llama2"],
                        "default_model": "llama2",
                        "total": 1,
                    }
    summarize_prompt = script.requests[0]["messages"][1]["content"]
    assert "메타버스" in summarize_prompt and "[1]" in summarize_prompt


def test_summarize_without_an_llm_is_extractive_and_flagged(client: TestClient) -> None:
    assert client.post("/rag/insert", json=news()).status_code == 200
    wait_indexed(client)
    response = client.post("/prompt/summarize", json={"query": "메타버스 시장", "domain": "news"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["fallback"] == "extractive" and body["documents_count"] == 1
    assert "메타버스" in body["summary"] and "[1]" in body["summary"]
    assert body["prompt_length"] > len("메타버스 시장")
    empty = client.post("/prompt/summarize", json={"query": "x", "domain": "nothing"}).json()
    assert empty["documents_count"] == 0 and empty["summary"]
    # A blank domain is no domain (clients send "" for an unset field): every readable KB.
    for blank in ("", "  "):
        body = client.post("/prompt/summarize", json={"query": "메타버스 시장", "domain": blank})
        assert body.json()["documents_count"] == 1, (blank, body.text)


def test_summarize_with_an_unreachable_llm_is_extractive(tmp_path: Path, embedders) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app_with(tmp_path, embedders, UNREACHABLE_LLM)) as client:
        assert client.post("/rag/insert", json=news()).status_code == 200
        wait_indexed(client)
        body = client.post("/prompt/summarize", json={"query": "메타버스"}).json()
    assert body["fallback"] == "extractive" and "LLM request failed" in body["fallback_reason"]


# ---------------------------------------------------------------- error rows


def test_summarize_400_query_required(client: TestClient) -> None:
    for body in ({}, {"query": ""}, {"query": "   "}):
        response = client.post("/prompt/summarize", json=body)
        assert response.status_code == 400
        assert response.json()["error"] == "쿼리가 필요합니다"


def test_summarize_500_search_failed(client: TestClient) -> None:
    assert client.post("/rag/insert", json=news()).status_code == 200
    wait_indexed(client)
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    runtime.vectors.drop_collection(runtime.metadata.get_kb_by_name("news").id)
    response = client.post("/prompt/summarize", json={"query": "메타버스", "domain": "news"})
    assert response.status_code == 500
    assert response.json()["error"] == "문서 검색 중 오류가 발생했습니다"


def test_summarize_500_llm_failed_is_an_extractive_answer_instead(llm_client, script) -> None:  # type: ignore[no-untyped-def]
    """The spec's "LLM 요청 중 오류" row: planrag answers extractively rather than failing."""
    assert llm_client.post("/rag/insert", json=news()).status_code == 200
    wait_indexed(llm_client)
    script.replies.append(Reply("boom", status=500))
    body = llm_client.post("/prompt/summarize", json={"query": "메타버스"}).json()
    assert body["fallback"] == "extractive" and "500" in body["fallback_reason"]


def test_chat_400_question_required(client: TestClient) -> None:
    for body in ({}, {"query": ""}, {"model": "llama2"}):
        response = client.post("/prompt/chat", json=body)
        assert response.status_code == 400
        assert response.json()["error"] == "질문이 필요합니다"


def test_chat_500_llm_failed(llm_client: TestClient, script: Script) -> None:
    script.replies.append(Reply("model exploded", status=500))
    response = llm_client.post("/prompt/chat", json={"query": "안녕"})
    assert response.status_code == 500
    assert response.json()["error"] == "LLM 요청 중 오류가 발생했습니다"


def test_chat_503_unreachable_or_unconfigured(tmp_path: Path, embedders, client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/prompt/chat", json={"query": "안녕"})  # no LLM configured
    assert response.status_code == 503
    assert response.json()["error"] == "Ollama 서비스에 연결할 수 없습니다"
    with TestClient(app_with(tmp_path, embedders, UNREACHABLE_LLM)) as unreachable:
        response = unreachable.post("/prompt/chat", json={"query": "안녕"})
    assert response.status_code == 503
    assert response.json()["error"] == "Ollama 서비스에 연결할 수 없습니다"


def test_chat_uses_the_requested_model(llm_client: TestClient, script: Script) -> None:
    script.replies.append(Reply("네"))
    body = llm_client.post("/prompt/chat", json={"query": "안녕", "model": "mistral"}).json()
    assert body == {"query": "안녕", "model": "mistral", "response": "네"}
    assert script.requests[-1]["model"] == "mistral"


def test_models_500_and_503(tmp_path: Path, embedders, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/prompt/models")  # no LLM configured
    assert response.status_code == 503
    assert response.json()["error"] == "Ollama 서비스에 연결할 수 없습니다"
    with serve(create_app(Settings(_env_file=None, data_dir=tmp_path / "x"), embedders)) as url:  # type: ignore[call-arg]
        # An endpoint that answers, but not with a model list (404 for /models).
        llm = LLMSettings(base_url=f"{url}/nothing", api_key="k", model="m", timeout_s=5)
        with TestClient(app_with(tmp_path / "y", embedders, llm)) as broken:
            response = broken.get("/prompt/models")
    assert response.status_code == 500
    assert response.json()["error"] == "모델 목록을 가져오는 중 오류가 발생했습니다"
