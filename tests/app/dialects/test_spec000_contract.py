"""Spec 000 contract: every curl example of §1–8, parsed from the spec file and sent as curl
sends it (raw UTF-8 URLs included), against a real uvicorn server (Milvus Lite, SQLite, Kiwi,
MiniLM, a random-weight cross-encoder); responses must have the spec's fields. §9–11
(/prompt/…) belong to the ask service."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from planrag.app.main import create_app
from planrag.llm.embedders import EmbedderRegistry
from tests.app.dialects.conftest import settings_with_reranker
from tests.app.dialects.shapes import assert_shape
from tests.app.dialects.spec_examples import (
    Example,
    RawResponse,
    curl_examples,
    send_like_curl,
    spec_text,
)
from tests.servers import serve

RECEIVED = {"status": "received"}
TAGS = {"date": str}
HIT = {"doc_id": str, "title": str, "author": str, "text": str, "score": float, "tags": TAGS}
PARAMS = {"query_text": str, "top_k": int, "filters": dict}
RERANKED = {
    "query": str,
    "results": [{"text": str, "score": float}],
    "total": int,
    "reranked": True,
}
SHAPES = {
    "/rag/insert": RECEIVED,
    "/rag/search": {
        "result_code": "F000000",
        "message": str,
        "search_params": PARAMS,
        "search_result": [HIT],
    },
    "/rag/delete": RECEIVED,
    "/rag/data/show": {
        "schema": {"fields": [{"name": str, "type": str}]},
        "partition_names": [str],
        "partition_nums": dict,
    },
    "/reranker/enhanced-search": {
        "result_code": "F000000",
        "message": str,
        "search_params": {**PARAMS, "raw_results": int},
        "search_result": [HIT],
    },
    "/reranker/rerank": RERANKED,
    "/reranker/batch_rerank": [RERANKED],
}
ASK_ROUTES = {"/prompt/summarize", "/prompt/chat", "/prompt/models"}


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, rerank_model_dir: Path, embedders: EmbedderRegistry
) -> Iterator[tuple[str, FastAPI]]:
    data_dir = tmp_path_factory.mktemp("spec000") / "data"
    app = create_app(settings_with_reranker(data_dir, rerank_model_dir), embedders)
    with serve(app) as url:
        yield url, app


def send(url: str, example: Example) -> RawResponse:
    """As curl would send it; a body the spec left malformed goes with its brackets closed."""
    body = json.dumps(example.body, ensure_ascii=False).encode() if example.repaired else None
    return send_like_curl(url, example, body)


def test_every_curl_example_of_sections_1_to_8(server: tuple[str, FastAPI]) -> None:
    url, app = server
    examples = curl_examples(spec_text("000"))
    ours = [e for e in examples if e.route.startswith(("/rag/", "/reranker/"))]
    assert {e.route for e in examples} - {e.route for e in ours} == ASK_ROUTES
    assert sorted(e.route for e in ours) == sorted(SHAPES)
    insert = next(e for e in ours if e.route == "/rag/insert")
    delete = next(e for e in ours if e.route == "/rag/delete")
    response = send(url, insert)
    assert response.status == 200, response.body
    assert_shape(response.json(), SHAPES["/rag/insert"])
    app.state.runtime.ingestion.wait(timeout=120)
    for example in ours:
        if example in (insert, delete):
            continue
        response = send(url, example)
        assert response.status == 200, (example.path, response.body.decode())
        assert_shape(response.json(), SHAPES[example.route], example.route)
    response = send(url, delete)
    assert response.status == 200, response.body
    assert_shape(response.json(), SHAPES["/rag/delete"])
    gone = httpx.get(f"{url}/rag/document", params={"doc_id": "20240315-메타버스-뉴스"})
    assert gone.status_code == 404


def test_the_spec_batch_example_is_malformed_json_and_answered_as_such(
    server: tuple[str, FastAPI],
) -> None:
    """Spec 000 §8's curl body lacks its closing `]`: sent as written it is an invalid input
    (the contract test above sends it with the bracket closed)."""
    url, _ = server
    batch = next(e for e in curl_examples(spec_text("000")) if e.route.endswith("batch_rerank"))
    assert batch.repaired and batch.raw_body is not None
    response = send_like_curl(url, batch)
    assert response.status == 400
    assert response.json()["error"] == "Invalid input format"
