"""The OpenAPI document describes what the server does (issue 10, item 13): the 422 body it
documents is the one it sends, the error statuses a route answers are listed, and its bounds are
the server's (the question length setting, the graph backends). The schemathesis run
(`test_openapi_fuzz.py`) checks the same against generated requests."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.graph_backends import graph_backend_names
from planrag.core.settings import AskSettings, AuthSettings, Settings
from planrag.llm.embedders import EmbedderRegistry


@pytest.fixture(scope="module")
def served(tmp_path_factory, embedders: EmbedderRegistry):  # type: ignore[no-untyped-def]
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path_factory.mktemp("openapi") / "data",
        ask=AskSettings(max_question_chars=300),
    )
    with TestClient(create_app(settings, embedders)) as client:
        yield client, client.get("/openapi.json").json()


def response_schema(document: dict[str, Any], path: str, method: str, status: int) -> dict:
    media = document["paths"][path][method]["responses"][str(status)]["content"]
    schema = media["application/json"]["schema"]
    return {**schema, "components": document["components"]}


def test_the_422_body_is_the_documented_one(served) -> None:  # type: ignore[no-untyped-def]
    client, document = served
    response = client.post("/api/knowledge-bases", json={"name": 5})
    assert response.status_code == 422
    schema = response_schema(document, "/api/knowledge-bases", "post", 422)
    jsonschema.validate(response.json(), schema)  # `detail` is a string, not an array
    assert "HTTPValidationError" not in str(document)


def test_error_statuses_a_route_answers_are_documented(served) -> None:  # type: ignore[no-untyped-def]
    client, document = served
    missing = "00000000-0000-0000-0000-000000000000"
    response = client.get(f"/api/knowledge-bases/{missing}/documents")
    assert response.status_code == 404
    schema = response_schema(document, "/api/knowledge-bases/{kb_id}/documents", "get", 404)
    jsonschema.validate(response.json(), schema)
    responses = document["paths"]["/api/knowledge-bases"]["post"]["responses"]
    assert {"400", "409", "422", "503"} <= set(responses)
    upload = document["paths"]["/api/knowledge-bases/{kb_id}/documents"]["post"]["responses"]
    assert {"413", "415"} <= set(upload)
    # Spec 000 answers invalid requests with 400 and its own body: no 422 documented.
    assert "422" not in document["paths"]["/rag/search"]["get"]["responses"]
    assert "400" in document["paths"]["/rag/search"]["get"]["responses"]


def test_bounds_are_the_servers(served) -> None:  # type: ignore[no-untyped-def]
    client, document = served
    schemas = document["components"]["schemas"]
    question = schemas["PlanConversationRequest"]["properties"]["question"]  # /ai/v2/plan
    assert question["maxLength"] == 300  # PLANRAG_ASK__MAX_QUESTION_CHARS, not 20,000
    refused = client.post("/ai/v2/plan", json={"question": "x" * 301})
    assert refused.status_code == 400
    backend = schemas["KnowledgeBaseCreate"]["properties"]["graph_backend"]
    assert backend["enum"] == ["none", *graph_backend_names()]


def test_auth_statuses_are_documented_when_auth_is_on(tmp_path, embedders) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        auth=AuthSettings(enabled=True, secret_key="a-secret-that-is-long-enough-for-tests"),
    )
    document = create_app(settings, embedders).openapi()
    assert {"401", "403"} <= set(document["paths"]["/rag/search"]["get"]["responses"])
    assert "401" not in document["paths"]["/healthz"]["get"]["responses"]


def test_reindex_conflicts_and_streamed_chat_are_documented(served) -> None:  # type: ignore[no-untyped-def]
    """Issue 22: `POST …/reindex` answers 409 while one runs; `/v1/chat/completions` with
    `stream: true` answers text/event-stream."""
    _client, document = served
    reindex = document["paths"]["/api/knowledge-bases/{kb_id}/reindex"]["post"]["responses"]
    assert "409" in reindex
    chat = document["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    assert {"application/json", "text/event-stream"} <= set(chat)
