"""Spec 004: its curl and request examples against a real uvicorn server, every error the
spec lists (in the `{success, result, error, execution_time}` envelope), and local search."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.errors import StoreUnavailable
from planrag.llm.embedders import EmbedderRegistry
from planrag.services.ask_events import ErrorEvent
from tests.app.dialects.conftest import news, settings_with_reranker, wait_indexed
from tests.app.dialects.shapes import assert_shape
from tests.app.dialects.spec_examples import (
    curl_examples,
    request_lines,
    send_like_curl,
    spec_text,
)
from tests.servers import serve

RAG = news(
    domain="default",
    title="RAG 介绍",
    author="docs",
    text="Retrieval-Augmented Generation (RAG) 是一种把检索和生成结合起来的方法。"
    "RAG retrieves passages and gives them to the language model.",
    tags={"date": "20240601"},
)
COOKING = news(
    domain="recipes", title="김치찌개", author="요리사", text="김치찌개는 김치와 돼지고기로 끓인다."
)
ENVELOPE = {"success": True, "error": None, "execution_time": float}
LOCAL = {
    "query": str,
    "chunks": [
        {
            "id": str,
            "doc_id": str,
            "content": str,
            "chunk_index": int,
            "score": float,
            "similarity": float,
        }
    ],
    "metadata": {
        "query": str,
        "mode": "local",
        "top_k": int,
        "chunk_top_k": int,
        "retrieved_chunks": int,
    },
    "total_results": int,
}


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, rerank_model_dir: Path, embedders: EmbedderRegistry
) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("spec004") / "data"
    app: FastAPI = create_app(settings_with_reranker(data_dir, rerank_model_dir), embedders)
    with serve(app) as url, httpx.Client(base_url=url) as http:
        for document in (RAG, COOKING):
            assert http.post("/rag/insert", json=document).status_code == 200
        app.state.runtime.ingestion.wait(timeout=120)
        yield url


def test_the_spec_examples_against_a_real_server(server: str) -> None:
    text = spec_text("004")
    examples = request_lines(text) + curl_examples(text)
    assert [(e.method, e.route) for e in examples] == [
        ("GET", "/api/v1/retrieve/resources"),
        ("POST", "/api/v1/retrieve"),
    ]
    with httpx.Client(base_url=server, timeout=120) as http:
        listing = http.get(examples[0].path)
        assert listing.status_code == 200, listing.text
        assert_shape(
            listing.json(),
            {
                "success": True,
                "resources": [{"uri": str, "title": str, "description": str}],
                "execution_time": float,
            },
        )
        assert {r["uri"] for r in listing.json()["resources"]} == {"rag://default", "rag://recipes"}
        curl = examples[1]
        response = send_like_curl(server, curl)
        assert response.status == 200, response.body
        body = response.json()
        assert_shape(body, {**ENVELOPE, "result": LOCAL})
        assert body["result"]["chunks"][0]["doc_id"] == "20240601-RAG-介绍"
        assert body["result"]["metadata"]["top_k"] == json.loads(curl.raw_body or "")["max_results"]


# ── errors (spec 004 §5) ──────────────────────────────────────────────────────────────────
def expect_error(response: httpx.Response, status: int, error: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["success"] is False and body["result"] is None and body["error"] == error
    assert isinstance(body["execution_time"], float) and body["execution_time"] >= 0


@pytest.mark.parametrize(
    ("resources", "status"),
    [([], 400), (["rag://nope"], 404), (["default"], 400), (["rag://"], 400)],
)
def test_no_available_resources(client: TestClient, resources: list, status: int) -> None:
    response = client.post(
        "/api/v1/retrieve", json={"query": "RAG", "resources": resources, "local_search": True}
    )
    expect_error(response, status, "No available resources")


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"local_search": False, "background_search": False},
        {"local_search": True, "background_search": True},
    ],
)
def test_invalid_search_type(client: TestClient, flags: dict) -> None:
    response = client.post(
        "/api/v1/retrieve", json={"query": "RAG", "resources": ["rag://default"], **flags}
    )
    expect_error(response, 400, "Invalid search type")


def test_background_search_answers_with_cited_chunks_and_no_graph(client: TestClient) -> None:
    assert client.post("/rag/insert", json=RAG).status_code == 200
    wait_indexed(client)
    response = client.post(
        "/api/v1/retrieve",
        json={"query": "What is RAG?", "resources": ["rag://default"], "background_search": True},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["success"] is True and body["error"] is None
    result = body["result"]
    assert_shape(
        result,
        {
            "background": str,
            "metadata": {
                "total_entities": 0,
                "total_relationships": 0,
                "total_chunks": int,
                "mode": "global",
                "query": "What is RAG?",
            },
        },
    )
    assert result["entities"] == [] and result["relationships"] == []
    assert result["metadata"]["total_chunks"] >= 1
    assert "RAG" in result["background"] and "[1]" in result["background"]
    assert result["metadata"]["answer_source"] == "extractive"
    assert "no knowledge graph" in result["metadata"]["note"]
    trace = client.get(f"/ai/v2/traces/{result['metadata']['trace_id']}").json()
    assert trace["knowledge_bases"] == ["default"]


@pytest.mark.parametrize(
    "body",
    [
        {"query": "", "resources": ["rag://default"], "local_search": True},
        {"query": "RAG", "max_results": 0, "resources": ["rag://default"], "local_search": True},
        {"query": "RAG", "max_results": 101, "resources": ["rag://default"], "local_search": True},
        {"query": "RAG", "local_search": True},
    ],
)
def test_invalid_request_in_the_envelope(client: TestClient, body: dict) -> None:
    response = client.post("/api/v1/retrieve", json=body)
    assert response.status_code == 422
    assert response.json()["success"] is False
    assert response.json()["error"].startswith("Invalid request: ")


# ── behaviour ─────────────────────────────────────────────────────────────────────────────
def test_local_search_over_several_resources(client: TestClient) -> None:
    for document in (RAG, COOKING):
        assert client.post("/rag/insert", json=document).status_code == 200
    wait_indexed(client)
    body = {"query": "김치찌개 끓이는 법", "max_results": 1, "local_search": True}
    one = client.post("/api/v1/retrieve", json={**body, "resources": ["rag://recipes"]}).json()
    assert [c["doc_id"] for c in one["result"]["chunks"]] == ["20240315-김치찌개"]
    both = client.post(
        "/api/v1/retrieve",
        json={**body, "max_results": 5, "resources": ["rag://default", "rag://recipes"]},
    ).json()["result"]
    assert {c["resource"] for c in both["chunks"]} == {"rag://default", "rag://recipes"}
    assert both["chunks"][0]["doc_id"] == "20240315-김치찌개"
    assert both["total_results"] == both["metadata"]["retrieved_chunks"] == len(both["chunks"])
    assert all(0.0 <= c["score"] <= 1.0 and 0.0 <= c["similarity"] <= 1.0 for c in both["chunks"])
    scores = [c["score"] for c in both["chunks"]]
    assert scores == sorted(scores, reverse=True)


def test_a_failure_during_the_ask_keeps_its_status(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error event of the ask (here: the vector store is down, a 503) is not turned into a
    500 by background_search."""
    assert client.post("/rag/insert", json=RAG).status_code == 200
    wait_indexed(client)
    runtime = client.app.state.runtime  # type: ignore[attr-defined]

    def down(*_args: object, **_kwargs: object) -> None:
        raise StoreUnavailable("the vector store is down")

    monkeypatch.setattr(runtime.retrieval, "retrieve", down)
    response = client.post(
        "/api/v1/retrieve",
        json={"query": "What is RAG?", "resources": ["rag://default"], "background_search": True},
    )
    assert response.status_code == 503, response.text
    assert response.json()["success"] is False


def test_error_events_raise_their_own_errors() -> None:
    assert ErrorEvent(code="knowledge_base_not_found", message="m").to_exception().status == 404
    assert ErrorEvent(code="store_unavailable", message="m").to_exception().status == 503
    assert ErrorEvent(code="no_such_code", message="m").to_exception().status == 500


def test_a_passage_in_several_resources_comes_back_once(client: TestClient) -> None:
    """The same passage indexed in three knowledge bases is one chunk (from where it scored
    best), not three; `doc_id` is the document's file path, planrag's id is `document_id`."""
    for domain in ("team-a", "team-b", "team-c"):
        assert client.post("/rag/insert", json={**RAG, "domain": domain}).status_code == 200
    kb = client.post("/api/knowledge-bases", json={"name": "files"}).json()
    text = b"RAG retrieves passages before it answers; the guide explains the retriever."
    uploaded = client.post(
        f"/api/knowledge-bases/{kb['id']}/documents", files=[("files", ("guide.md", text))]
    ).json()[0]
    wait_indexed(client)
    resources = ["rag://team-a", "rag://team-b", "rag://team-c", "rag://files"]
    body = {"query": "RAG", "max_results": 10, "local_search": True, "resources": resources}
    chunks = client.post("/api/v1/retrieve", json=body).json()["result"]["chunks"]
    contents = [" ".join(c["content"].split()) for c in chunks]
    assert len(contents) == len(set(contents)) == 2
    guide = next(c for c in chunks if c["resource"] == "rag://files")
    assert guide["doc_id"] == "guide.md" == guide["file_path"]
    assert guide["document_id"] == uploaded["id"]


def test_a_repeated_background_search_is_served_from_the_cache(client: TestClient) -> None:
    """Keyed by the request and the resources' index versions: a new document misses it."""
    assert client.post("/rag/insert", json=RAG).status_code == 200
    wait_indexed(client)
    body = {"query": "What is RAG?", "resources": ["rag://default"], "background_search": True}
    first = client.post("/api/v1/retrieve", json=body).json()["result"]
    again = client.post("/api/v1/retrieve", json=body).json()["result"]
    assert first["metadata"]["cached"] is False and again["metadata"]["cached"] is True
    assert again["background"] == first["background"]
    assert again["metadata"]["trace_id"] == first["metadata"]["trace_id"]
    other = client.post("/api/v1/retrieve", json={**body, "query": "RAG란?"}).json()["result"]
    assert other["metadata"]["cached"] is False
    assert client.post("/rag/insert", json={**RAG, "title": "RAG 2"}).status_code == 200
    wait_indexed(client)
    after = client.post("/api/v1/retrieve", json=body).json()["result"]
    assert (
        after["metadata"]["cached"] is False
        and after["metadata"]["trace_id"] != first["metadata"]["trace_id"]
    )
