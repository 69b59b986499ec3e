"""Spec 003: the request examples of the spec against a real uvicorn server, the validation
rules (the spec has no error table: ranges, enums, dimension), and behaviour — naive vs
advanced engines, `bge` rerank with a real cross-encoder, `llm` rerank on the scripted LLM
server, document filters, raw-vector search and health."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import LLMSettings
from planrag.llm.embedders import EmbedderRegistry
from planrag.llm.rerankers import CrossEncoderReranker
from tests.app.dialects.conftest import news, settings_with_reranker, wait_indexed
from tests.app.dialects.shapes import assert_shape
from tests.app.dialects.spec_examples import json_requests, spec_text
from tests.llm.fake_llm import Reply, Script, serve_llm
from tests.servers import serve

K8S = news(
    domain="default",
    title="k8s scheduling",
    author="CNCF",
    text="Kubernetes uses a scheduler that assigns pods to nodes. The kube-scheduler filters "
    "nodes by resource requests and scores them before binding the pod.",
    tags={"date": "20240101"},
)
OTHERS = [
    news(domain="default", title="sourdough", text="Bake sourdough bread with a starter."),
    news(domain="default", title="tides", text="Ocean tides follow the phases of the moon."),
]
CHUNK = {
    "content": str,
    "score": float,
    "metadata": {
        "documentId": str,
        "fileName": str,
        "chunkIndex": int,
        "pageNumber": object,
        "contentType": "text",
    },
}
RETRIEVED = {
    "results": list,
    "query": str,
    "totalResults": int,
    "engineUsed": str,
    "pipeline": {"reranked": bool, "rerankStrategy": object, "candidatesConsidered": int},
}


def fill(documents: list[dict], client: TestClient | httpx.Client) -> None:
    for document in documents:
        assert client.post("/rag/insert", json=document).status_code == 200


def example_bodies() -> dict[str, dict[str, Any]]:
    """The spec's request bodies by route; the elided embedding (`...`) is dropped."""
    bodies = {}
    for route, raw in json_requests(spec_text("003")):
        bodies[route] = json.loads(raw.replace(", ...]", "]"))
    assert set(bodies) == {"/api/v1/rag/retrieve", "/api/v1/chunks/similarity-search"}
    return bodies


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, rerank_model_dir: Path, embedders: EmbedderRegistry
) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("spec003") / "data"
    app: FastAPI = create_app(settings_with_reranker(data_dir, rerank_model_dir), embedders)
    with serve(app) as url, httpx.Client(base_url=url, timeout=120) as http:
        fill([K8S, *OTHERS], http)
        app.state.runtime.ingestion.wait(timeout=120)
        yield url


def test_the_spec_request_examples_against_a_real_server(server: str) -> None:
    bodies = example_bodies()
    with httpx.Client(base_url=server, timeout=120) as http:
        retrieve = http.post("/api/v1/rag/retrieve", json=bodies["/api/v1/rag/retrieve"])
        assert retrieve.status_code == 200, retrieve.text
        assert_shape(retrieve.json(), {**RETRIEVED, "engineUsed": "advanced"})
        assert retrieve.json()["results"] == []  # docIds uuid-1/uuid-2 do not exist here

        matching = {**bodies["/api/v1/rag/retrieve"], "docIds": None, "grade": 0.1}
        matching["rerank"] = {**matching["rerank"], "score": 0.0}
        found = http.post("/api/v1/rag/retrieve", json=matching).json()
        assert_shape(found, {**RETRIEVED, "results": [CHUNK]})
        assert (
            found["pipeline"]["reranked"] is True and found["pipeline"]["rerankStrategy"] == "bge"
        )

        vector = bodies["/api/v1/chunks/similarity-search"]
        vector["queryEmbedding"] += [0.0] * (384 - len(vector["queryEmbedding"]))
        similar = http.post("/api/v1/chunks/similarity-search", json=vector)
        assert similar.status_code == 200, similar.text
        assert_shape(similar.json(), {"results": list, "totalResults": int})

        health = http.get("/api/v1/health")
        assert health.status_code == 200
        assert_shape(health.json(), {"status": "ok", "components": {"metadata": {"status": "up"}}})


# ── validation (the spec's ranges and enums) ──────────────────────────────────────────────
@pytest.mark.parametrize(
    "changes",
    [
        {"grade": None},
        {"grade": 1.5},
        {"grade": -0.1},
        {"similarityTopK": 4},
        {"similarityTopK": 51},
        {"engineName": "fancy"},
        {"rerank": {"enabled": True, "strategy": "cohere"}},
        {"rerank": {"enabled": True, "topK": 0}},
        {"rerank": {"enabled": True, "score": 2}},
        {"query": ""},
        {"unknownField": 1},
    ],
)
def test_retrieve_422_invalid_request(client: TestClient, changes: dict) -> None:
    body = {"query": "pods", "grade": 0.5, **changes}
    body = {k: v for k, v in body.items() if v is not None}
    response = client.post("/api/v1/rag/retrieve", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "validation_error"


def test_retrieve_404_unknown_knowledge_base(client: TestClient) -> None:
    response = client.post(
        "/api/v1/rag/retrieve", json={"query": "pods", "grade": 0.5, "knowledgeBases": ["nope"]}
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "knowledge_base_not_found"


@pytest.mark.parametrize("vector", [[0.1, 0.2, 0.3], [0.0] * 384, []])
def test_similarity_search_422_wrong_dimension_or_zero(client: TestClient, vector: list) -> None:
    fill([K8S], client)
    response = client.post("/api/v1/chunks/similarity-search", json={"queryEmbedding": vector})
    assert response.status_code == 422, response.text
    if len(vector) == 3:
        error = response.json()["error"]
        assert error["code"] == "invalid_embedding" and "expected 384" in error["message"]
        assert error["details"] == {"dimension": 3, "expected": [384]}


# ── behaviour ─────────────────────────────────────────────────────────────────────────────
def retrieve(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post(
        "/api/v1/rag/retrieve", json={"query": "how are pods scheduled?", "grade": 0.0, **body}
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_naive_filters_by_grade_and_never_reranks(rerank_client: TestClient) -> None:
    fill([K8S, *OTHERS], rerank_client)
    wait_indexed(rerank_client)
    everything = retrieve(rerank_client, engineName="naive", rerank={"enabled": True})
    assert everything["engineUsed"] == "naive" and everything["totalResults"] == 3
    assert everything["pipeline"] == {
        "reranked": False,
        "rerankStrategy": None,
        "candidatesConsidered": 3,
        "rerankError": None,
    }
    top = everything["results"][0]
    assert top["metadata"]["documentId"] == "20240101-k8s-scheduling"
    grade = (top["score"] + everything["results"][1]["score"]) / 2
    strict = retrieve(rerank_client, engineName="naive", grade=grade)
    assert [r["content"] for r in strict["results"]] == [top["content"]]
    only = retrieve(rerank_client, engineName="naive", docIds=["20240315-sourdough"])
    assert [r["metadata"]["fileName"] for r in only["results"]] == ["20240315-sourdough"]


def test_advanced_bge_rerank_keeps_top_k_above_score(
    rerank_client: TestClient, rerank_model_dir: Path
) -> None:
    fill([K8S, *OTHERS], rerank_client)
    wait_indexed(rerank_client)
    query = "how are pods scheduled?"
    candidates = retrieve(rerank_client, engineName="naive")["results"]
    model = CrossEncoderReranker(str(rerank_model_dir))
    scores = sorted(model.score(query, [c["content"] for c in candidates]), reverse=True)
    result = retrieve(rerank_client, rerank={"enabled": True, "topK": 2})
    assert result["pipeline"]["reranked"] and result["pipeline"]["rerankStrategy"] == "bge"
    assert result["pipeline"]["candidatesConsidered"] == 3
    assert [r["score"] for r in result["results"]] == pytest.approx(scores[:2], abs=1e-4)
    cut = retrieve(rerank_client, rerank={"enabled": True, "topK": 5, "score": scores[1]})
    assert [r["score"] for r in cut["results"]] == pytest.approx(scores[:2], abs=1e-4)


def test_advanced_llm_rerank_orders_by_the_llm_scores(
    tmp_path: Path, rerank_model_dir: Path, embedders: EmbedderRegistry
) -> None:
    script = Script(replies=[Reply(content='{"scores": [2, 9, 5]}')])
    with serve_llm(script) as url:
        settings = settings_with_reranker(
            tmp_path / "data",
            rerank_model_dir,
            llm=LLMSettings(calibration_questions=False, base_url=url, model="test-model"),
        )
        with TestClient(create_app(settings, embedders)) as client:
            fill([K8S, *OTHERS], client)
            wait_indexed(client)
            candidates = retrieve(client, engineName="naive")["results"]
            result = retrieve(client, rerank={"enabled": True, "strategy": "llm", "topK": 3})
            health = client.get("/api/v1/health").json()
    assert result["pipeline"]["reranked"] and result["pipeline"]["rerankStrategy"] == "llm"
    order = [candidates[i]["content"] for i in (1, 2, 0)]
    assert [r["content"] for r in result["results"]] == order
    assert [r["score"] for r in result["results"]] == [0.9, 0.5, 0.2]
    assert "how are pods scheduled?" in script.requests[0]["messages"][0]["content"]
    assert health["components"]["llm"] == {"status": "up", "detail": "test-model"}


def test_a_missing_reranker_leaves_candidates_unreranked_and_says_why(
    client: TestClient,
) -> None:
    fill([K8S, *OTHERS], client)
    wait_indexed(client)
    result = retrieve(client, rerank={"enabled": True, "strategy": "llm", "topK": 2})
    assert result["pipeline"]["reranked"] is False and result["totalResults"] == 2
    assert "PLANRAG_LLM__BASE_URL" in result["pipeline"]["rerankError"]
    result = retrieve(client, rerank={"enabled": True, "strategy": "bge"})
    assert "PLANRAG_RERANK__MODEL" in result["pipeline"]["rerankError"]


def test_similarity_search_with_a_documents_own_embedding(client: TestClient) -> None:
    fill([K8S, *OTHERS], client)
    wait_indexed(client)
    embedder = client.app.state.runtime.embedders.get()  # type: ignore[attr-defined]
    vector = [x * 3.0 for x in embedder.embed([OTHERS[1]["text"]])[0]]  # any length works
    body = client.post(
        "/api/v1/chunks/similarity-search", json={"queryEmbedding": vector, "topK": 2}
    ).json()
    assert body["totalResults"] == 2
    assert body["results"][0]["content"] == OTHERS[1]["text"]
    assert body["results"][0]["score"] == pytest.approx(1.0, abs=1e-3)
    only = client.post(
        "/api/v1/chunks/similarity-search",
        json={"queryEmbedding": vector, "docIds": ["20240101-k8s-scheduling"]},
    ).json()
    assert [r["metadata"]["title"] for r in only["results"]] == ["k8s scheduling"]


def test_health_reports_each_part(client: TestClient, tmp_path: Path, embedders) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/api/v1/health").json()
    assert body["status"] == "ok"
    assert {name: c["status"] for name, c in body["components"].items()} == {
        "metadata": "up",
        "vectors": "up",
        "milvus": "up",
        "pgvector": "not configured",  # no knowledge base on pgvector yet: nothing started
        "embedding": "up",
        "llm": "not configured",
    }
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    settings = settings_with_reranker(
        tmp_path / "other", tmp_path, llm=LLMSettings(base_url=closed, model="m")
    )
    with TestClient(create_app(settings, embedders)) as other:
        response = other.get("/api/v1/health")
    assert response.status_code == 200 and response.json()["status"] == "degraded"
    assert response.json()["components"]["llm"]["status"] == "down"
