"""Authentication and knowledge-base scope on every route of every dialect: no credentials,
a wrong key, a key scoped to another knowledge base, and a valid key; bearer tokens from the
OAuth2 password flow; the planner, SSE answers and traces see only the caller's scope."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.errors import InvalidInput
from planrag.core.settings import AuthSettings, RerankSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.dialects.conftest import news
from tests.llm.rerank_models import build_random_cross_encoder

SECRET = "a-test-secret-that-is-long-enough"
NEWS_DOC = news()  # domain "news", id 20240315-메타버스-뉴스
HR_DOC = news(domain="hr", title="연차 규정", author="인사팀", text="연차 휴가는 15일입니다.")


@pytest.fixture(scope="module")
def setup(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("auth")
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp / "data",
        auth=AuthSettings(enabled=True, secret_key=SECRET),
        rerank=RerankSettings(model=str(build_random_cross_encoder(tmp / "cross-encoder"))),
    )
    with TestClient(create_app(settings, embedders)) as client:
        auth = client.app.state.runtime.auth  # type: ignore[attr-defined]
        admin, _ = auth.create_key("admin")
        news_key, _ = auth.create_key("news-reader", ["news"])
        hr_key, _ = auth.create_key("hr-reader", ["hr"])
        auth.create_user("kim", "password-kim", ["news"])
        for doc in (NEWS_DOC, HR_DOC):
            response = client.post("/rag/insert", json=doc, headers={"X-API-Key": admin})
            assert response.status_code == 200, response.text
        client.app.state.runtime.ingestion.wait(timeout=120)  # type: ignore[attr-defined]
        kbs = {kb.name: kb.id for kb in client.app.state.runtime.metadata.list_kbs()}  # type: ignore[attr-defined]
        yield {"client": client, "admin": admin, "news": news_key, "hr": hr_key, "kbs": kbs}


def routes(kb_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, request kwargs) naming the `news` knowledge base, one per dialect route."""
    question = {"question": "메타버스", "knowledge_bases": ["news"], "now": "2025-11-21T10:00:00"}
    return [
        # planrag's own API
        ("GET", f"/api/knowledge-bases/{kb_id}", {}),
        ("GET", f"/api/knowledge-bases/{kb_id}/documents", {}),
        ("POST", f"/api/knowledge-bases/{kb_id}/retrieve", {"json": {"query": "메타버스"}}),
        # spec 002
        ("POST", "/ai/v2/plan", {"json": question}),
        ("POST", "/ai/v2/ask", {"json": question}),
        # spec 000
        ("GET", "/rag/search", {"params": {"query_text": "메타버스", "domain": "news"}}),
        ("GET", "/rag/data/show", {"params": {"collection_name": "news"}}),
        ("GET", "/rag/document", {"params": {"doc_id": "20240315-메타버스-뉴스"}}),
        (
            "GET",
            "/reranker/enhanced-search",
            {"params": {"query_text": "메타버스", "domain": "news"}},
        ),
        ("POST", "/prompt/summarize", {"json": {"query": "메타버스", "domain": "news"}}),
        # spec 003
        (
            "POST",
            "/api/v1/rag/retrieve",
            {
                "json": {
                    "query": "메타버스",
                    "grade": 0,
                    "similarityTopK": 5,
                    "knowledgeBases": ["news"],
                }
            },
        ),
        # spec 004
        (
            "POST",
            "/api/v1/retrieve",
            {"json": {"query": "메타버스", "resources": ["rag://news"], "local_search": True}},
        ),
    ]


def call(client: TestClient, method: str, path: str, key: str | None, **kwargs: Any):  # type: ignore[no-untyped-def]
    headers = {"X-API-Key": key} if key else {}
    return client.request(method, path, headers=headers, **kwargs)


def test_every_route_needs_credentials(setup: dict[str, Any]) -> None:
    client = setup["client"]
    for method, path, kwargs in routes(setup["kbs"]["news"]):
        for key in (None, "prk_wrong-key"):
            response = call(client, method, path, key, **kwargs)
            assert response.status_code == 401, (method, path, key, response.text)
            if path == "/api/v1/retrieve":
                assert response.json()["success"] is False  # spec 004 keeps its envelope
            else:
                assert "WWW-Authenticate" in response.headers


def test_a_key_scoped_to_another_knowledge_base_is_refused(setup: dict[str, Any]) -> None:
    client = setup["client"]
    for method, path, kwargs in routes(setup["kbs"]["news"]):
        response = call(client, method, path, setup["hr"], **kwargs)
        # 403 where a knowledge base is named (whether it exists or not); an id outside the
        # scope (a KB id in the path, a document id) reads as unknown: 404.
        by_id = path == "/rag/document" or path.startswith("/api/knowledge-bases/")
        expected = 404 if by_id else 403
        assert response.status_code == expected, (method, path, response.text)
        assert "메타버스는 비대면" not in response.text, (method, path)


def test_a_valid_key_is_served(setup: dict[str, Any]) -> None:
    client = setup["client"]
    for method, path, kwargs in routes(setup["kbs"]["news"]):
        response = call(client, method, path, setup["news"], **kwargs)
        assert response.status_code == 200, (method, path, response.text)


def test_listings_and_the_planner_see_only_the_scope(setup: dict[str, Any]) -> None:
    client, hr = setup["client"], setup["hr"]
    kbs = call(client, "GET", "/api/knowledge-bases", hr).json()
    assert [kb["name"] for kb in kbs] == ["hr"]
    resources = call(client, "GET", "/api/v1/retrieve/resources", hr).json()
    assert "rag://news" not in str(resources) and "rag://hr" in str(resources)
    plan = call(client, "POST", "/ai/v2/plan", hr, json={"question": "news 메타버스"}).json()
    assert plan["plan"]["knowledge_bases"] == ["hr"]
    retrieved = call(
        client,
        "POST",
        "/api/v1/rag/retrieve",
        hr,
        json={"query": "메타버스", "grade": 0, "similarityTopK": 5},
    )
    assert retrieved.status_code == 200 and "메타버스는 비대면" not in retrieved.text
    assert call(client, "POST", "/api/knowledge-bases", hr, json={"name": "x"}).status_code == 403
    renamed = call(
        client, "PATCH", f"/api/knowledge-bases/{setup['kbs']['hr']}", hr, json={"name": "y"}
    )
    assert renamed.status_code == 403


def test_sse_answers_and_traces_stay_in_scope(setup: dict[str, Any]) -> None:
    client = setup["client"]
    body = {"question": "메타버스 알려줘", "now": "2025-11-21T10:00:00"}
    answer = call(client, "POST", "/ai/v2/ask", setup["hr"], json=body)
    assert answer.status_code == 200 and "메타버스는 비대면" not in answer.text
    news_answer = call(client, "POST", "/ai/v2/ask", setup["news"], json=body)
    assert "메타버스" in news_answer.text
    news_traces = call(client, "GET", "/ai/v2/traces", setup["news"]).json()
    hr_traces = call(client, "GET", "/ai/v2/traces", setup["hr"]).json()
    news_ids = {t["id"] for t in news_traces if t["knowledge_bases"] == ["news"]}
    assert news_ids and not news_ids & {t["id"] for t in hr_traces}
    one = next(iter(news_ids))
    assert call(client, "GET", f"/ai/v2/traces/{one}", setup["hr"]).status_code == 404
    trace = call(client, "GET", f"/ai/v2/traces/{one}", setup["news"]).json()
    assert trace["principal"] == "key:news-reader"


def test_bearer_tokens_from_the_password_flow(setup: dict[str, Any]) -> None:
    client = setup["client"]
    wrong = client.post("/token", data={"username": "kim", "password": "nope-nope"})
    assert wrong.status_code == 401
    token = client.post("/token", data={"username": "kim", "password": "password-kim"}).json()
    assert token["token_type"] == "bearer" and token["expires_in"] == 3600
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    kb_news, kb_hr = setup["kbs"]["news"], setup["kbs"]["hr"]
    assert client.get(f"/api/knowledge-bases/{kb_news}", headers=headers).status_code == 200
    assert client.get(f"/api/knowledge-bases/{kb_hr}", headers=headers).status_code == 404
    bad = {"Authorization": "Bearer not-a-token"}
    assert client.get(f"/api/knowledge-bases/{kb_news}", headers=bad).status_code == 401


def test_revoked_keys_and_disabled_users_stop_at_once(setup: dict[str, Any]) -> None:
    client = setup["client"]
    auth = client.app.state.runtime.auth  # type: ignore[attr-defined]
    key, record = auth.create_key("temp")
    assert call(client, "GET", "/api/knowledge-bases", key).status_code == 200
    auth.revoke_key(record.prefix)
    assert call(client, "GET", "/api/knowledge-bases", key).status_code == 401
    auth.create_user("lee", "password-lee")
    token = client.post("/token", data={"username": "lee", "password": "password-lee"}).json()
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    assert client.get("/api/knowledge-bases", headers=headers).status_code == 200
    auth.disable_user("lee")
    assert client.get("/api/knowledge-bases", headers=headers).status_code == 401


def test_public_paths_and_secrets_kept_out_of_logs(setup, caplog) -> None:  # type: ignore[no-untyped-def]
    client = setup["client"]
    assert client.get("/healthz").status_code == 200
    assert client.get("/api/v1/health").status_code == 200
    with caplog.at_level(logging.DEBUG):
        call(client, "GET", "/api/knowledge-bases", "prk_secret-that-must-not-leak")
        call(client, "GET", "/api/knowledge-bases", setup["news"])
    assert "secret-that-must-not-leak" not in caplog.text
    assert setup["news"] not in caplog.text


def test_keys_are_stored_hashed(setup: dict[str, Any]) -> None:
    runtime = setup["client"].app.state.runtime
    with runtime.metadata.engine.connect() as conn:
        stored = " ".join(str(row) for row in conn.exec_driver_sql("SELECT * FROM api_keys"))
    assert setup["news"] not in stored and setup["news"][:12] in stored


def test_refuses_to_start_with_auth_on_and_the_default_secret(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, auth=AuthSettings(enabled=True))  # type: ignore[call-arg]
    with pytest.raises(InvalidInput, match="SECRET_KEY"):
        create_app(settings)


# ── every write route: refused outside the scope (nothing changes), served inside it ─────────
SCRATCH_DOC = news(domain="scratch", title="스크래치 문서", text="스크래치 KB의 원문입니다.")
SCRATCH_ID = "20240315-스크래치-문서"


@pytest.fixture(scope="module")
def scratch(setup: dict[str, Any]) -> dict[str, Any]:
    """A knowledge base `scratch` with one spec 000 document and one uploaded file, and a key
    scoped to it; the write matrix below aims at it."""
    client, admin = setup["client"], setup["admin"]
    assert call(client, "POST", "/rag/insert", admin, json=SCRATCH_DOC).status_code == 200
    kbs = call(client, "GET", "/api/knowledge-bases", admin).json()
    kb_id = next(kb["id"] for kb in kbs if kb["name"] == "scratch")
    files = {"files": ("memo.txt", "스크래치 메모 파일입니다.".encode())}
    uploaded = call(client, "POST", f"/api/knowledge-bases/{kb_id}/documents", admin, files=files)
    assert uploaded.status_code == 202, uploaded.text
    client.app.state.runtime.ingestion.wait(timeout=120)  # type: ignore[attr-defined]
    auth = client.app.state.runtime.auth  # type: ignore[attr-defined]
    writer, _ = auth.create_key("scratch-writer", ["scratch"], manage=["scratch"])
    member, _ = auth.create_key("scratch-member", ["scratch"])  # writes documents, not settings
    return {"kb_id": kb_id, "file_id": uploaded.json()[0]["id"], "writer": writer, "member": member}


def write_routes(kb_id: str, file_id: str, own: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every route that writes, aimed at the `scratch` knowledge base; `own` is the domain of
    the caller (a move out of `scratch` into it is a write on `scratch` too)."""
    moved = news(domain=own, title=SCRATCH_DOC["title"], text="공격자가 바꾼 본문")
    return [
        ("POST", "/api/knowledge-bases", {"json": {"name": "scratch"}}),  # create
        ("PATCH", f"/api/knowledge-bases/{kb_id}", {"json": {"top_k": 7}}),  # patch
        (
            "POST",
            f"/api/knowledge-bases/{kb_id}/documents",
            {"files": {"files": ("x.txt", "새 파일".encode())}},
        ),  # upload
        ("POST", "/rag/insert", {"json": news(domain="scratch", title="새 문서")}),  # insert
        ("POST", "/rag/insert", {"json": moved}),  # replace / move by stable id
        ("POST", f"/api/knowledge-bases/{kb_id}/reindex", {"json": {}}),  # reindex
        (
            "PATCH",
            f"/api/knowledge-bases/{kb_id}/documents/{file_id}",
            {"json": {"title": "바뀐 제목"}},
        ),  # document metadata
        ("DELETE", f"/api/knowledge-bases/{kb_id}/documents/{file_id}", {}),  # delete doc
        (
            "DELETE",
            "/rag/delete",
            {
                "params": {
                    "date": "20240315",
                    "title": SCRATCH_DOC["title"],
                    "author": SCRATCH_DOC["author"],
                    "domain": "scratch",
                }
            },
        ),  # delete by spec 000 id
        ("DELETE", f"/api/knowledge-bases/{kb_id}", {}),  # delete the KB
    ]


def scratch_state(setup: dict[str, Any], kb_id: str) -> object:
    admin, client = setup["admin"], setup["client"]
    kb = call(client, "GET", f"/api/knowledge-bases/{kb_id}", admin).json()
    docs = call(client, "GET", f"/api/knowledge-bases/{kb_id}/documents", admin).json()
    doc = call(client, "GET", "/rag/document", admin, params={"doc_id": SCRATCH_ID}).json()
    return (
        kb["name"],
        kb["top_k"],
        kb["per_user"],
        kb["vector_generation"],
        kb["reindex"],
        sorted((d["id"], d["metadata"]["title"]) for d in docs),
        doc["domain"],
        [p["text"] for p in doc["passages"]],
    )


def test_every_write_route_needs_credentials(setup, scratch) -> None:  # type: ignore[no-untyped-def]
    before = scratch_state(setup, scratch["kb_id"])
    for method, path, kwargs in write_routes(scratch["kb_id"], scratch["file_id"], "hr"):
        for key in (None, "prk_wrong-key"):
            response = call(setup["client"], method, path, key, **kwargs)
            assert response.status_code == 401, (method, path, key, response.text)
    assert scratch_state(setup, scratch["kb_id"]) == before


def test_write_routes_refuse_a_key_of_another_scope_and_change_nothing(setup, scratch) -> None:  # type: ignore[no-untyped-def]
    before = scratch_state(setup, scratch["kb_id"])
    for method, path, kwargs in write_routes(scratch["kb_id"], scratch["file_id"], "hr"):
        response = call(setup["client"], method, path, setup["hr"], **kwargs)
        # A KB named in the request: 403; a KB id in the path: the unknown id's 404.
        expected = 404 if scratch["kb_id"] in path else 403
        assert response.status_code == expected, (method, path, response.text)
        assert scratch_state(setup, scratch["kb_id"]) == before, (method, path)


def test_changing_a_kbs_settings_needs_the_manage_permission(setup, scratch) -> None:  # type: ignore[no-untyped-def]
    """A key of the scope without `manage` writes documents but cannot change, reindex or delete
    the knowledge base (403, nothing changes); per_user above all."""
    client, member, kb_id = setup["client"], scratch["member"], scratch["kb_id"]
    before = scratch_state(setup, kb_id)
    path = f"/api/knowledge-bases/{kb_id}"
    for method, suffix, body in (
        ("PATCH", "", {"per_user": True}),
        ("PATCH", "", {"top_k": 9}),
        ("PATCH", "", {"description": "x"}),
        ("DELETE", "", None),
        ("POST", "/reindex", {}),
    ):
        response = call(client, method, path + suffix, member, json=body)
        assert response.status_code == 403, (method, suffix, body, response.text)
        assert response.json()["error"]["code"] == "forbidden"
        assert scratch_state(setup, kb_id) == before, (method, suffix, body)
    for named in (["news"], ["scratch", "hr"]):  # manage only inside the scope
        with pytest.raises(InvalidInput, match="outside the scope"):
            client.app.state.runtime.auth.create_key("x", ["scratch"], manage=named)  # type: ignore[attr-defined]
    with pytest.raises(InvalidInput, match="admin"):
        client.app.state.runtime.auth.create_key("x", admin=True, manage=["scratch"])  # type: ignore[attr-defined]
    root, _ = client.app.state.runtime.auth.create_key("root", admin=True)  # type: ignore[attr-defined]
    body = {"name": "m", "knowledge_bases": ["hr"], "manage": ["hr"]}
    made = call(client, "POST", "/admin/keys", root, json=body)
    assert made.status_code == 201 and made.json()["record"]["manage"] == ["hr"]
    hr_manager = made.json()["key"]
    hr_path = f"/api/knowledge-bases/{setup['kbs']['hr']}"
    changed = call(client, "PATCH", hr_path, hr_manager, json={"description": "인사"})
    assert changed.status_code == 200 and changed.json()["description"] == "인사"
    assert call(client, "PATCH", path, hr_manager, json={"top_k": 9}).status_code == 404


def test_write_routes_serve_a_key_of_the_scope(setup, scratch) -> None:  # type: ignore[no-untyped-def]
    """A key of the scope that may manage it: every write route is served."""
    client, writer = setup["client"], scratch["writer"]
    for method, path, kwargs in write_routes(scratch["kb_id"], scratch["file_id"], "scratch"):
        response = call(client, method, path, writer, **kwargs)
        expected = 409 if method == "POST" and path == "/api/knowledge-bases" else None
        if expected:  # past authentication: the name is taken
            assert response.status_code == expected, (method, path, response.text)
        else:
            assert response.status_code < 300, (method, path, response.text)
        client.app.state.runtime.ingestion.wait(timeout=120)  # type: ignore[attr-defined]
        if path.endswith("/reindex"):
            wait_for_reindex(client, path, writer)
    gone = call(client, "GET", f"/api/knowledge-bases/{scratch['kb_id']}", setup["admin"])
    assert gone.status_code == 404


def wait_for_reindex(client: TestClient, path: str, key: str) -> None:
    deadline = time.monotonic() + 120
    while (status := call(client, "GET", path, key).json()["status"]) == "running":
        assert time.monotonic() < deadline, "reindex still running"
        time.sleep(0.1)
    assert status == "completed"


def test_an_unknown_id_and_an_id_outside_the_scope_get_the_same_answer(setup) -> None:  # type: ignore[no-untyped-def]
    client, hr, news_id = setup["client"], setup["hr"], setup["kbs"]["news"]
    unknown = "00000000-0000-0000-0000-000000000000"
    for suffix in ("", "/documents", "/documents/x", "/documents/x/chunks"):
        outside = call(client, "GET", f"/api/knowledge-bases/{news_id}{suffix}", hr)
        missing = call(client, "GET", f"/api/knowledge-bases/{unknown}{suffix}", hr)
        assert outside.status_code == missing.status_code == 404, suffix
        assert outside.json()["error"]["code"] == missing.json()["error"]["code"]
    docs = call(client, "GET", f"/api/knowledge-bases/{news_id}/documents", setup["admin"]).json()
    internal = docs[0]["id"]
    body = {"question": "메타버스", "now": "2025-11-21T10:00:00"}
    outside = call(client, "POST", "/ai/v2/ask", hr, json={**body, "doc_id": internal})
    missing = call(client, "POST", "/ai/v2/ask", hr, json={**body, "doc_id": unknown})
    assert outside.status_code == missing.status_code == 404
    assert outside.json()["error"]["code"] == missing.json()["error"]["code"]
    # Another KB's document through one's own KB path: unknown there, and left alone.
    own = f"/api/knowledge-bases/{setup['kbs']['hr']}/documents"
    for method, suffix in (("GET", ""), ("GET", "/chunks"), ("DELETE", "")):
        outside = call(client, method, f"{own}/{internal}{suffix}", hr)
        missing = call(client, method, f"{own}/{unknown}{suffix}", hr)
        assert outside.status_code == missing.status_code == 404, (method, suffix)
        assert outside.json()["error"]["code"] == missing.json()["error"]["code"]
    news_doc = {"doc_id": "20240315-메타버스-뉴스"}
    kept = call(client, "GET", "/rag/document", setup["admin"], params=news_doc)
    assert kept.status_code == 200 and kept.json()["domain"] == "news"


def kb_routes(client: TestClient) -> list[tuple[str, str]]:
    """(method, path template) of every route under /api/knowledge-bases/{kb_id}."""
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    return [
        (method.upper(), path)
        for path, operations in paths.items()
        if path.startswith("/api/knowledge-bases/{kb_id}")
        for method in operations
    ]


def test_a_kb_outside_the_scope_answers_as_a_missing_one_on_every_route(setup) -> None:  # type: ignore[no-untyped-def]
    """By name or by id, on every /api/knowledge-bases/{kb}/… route: the same status and body
    as a knowledge base that does not exist (naming what was given), never the id."""
    client, hr, news_id = setup["client"], setup["hr"], setup["kbs"]["news"]
    routes = kb_routes(client)
    assert len(routes) >= 13, routes
    unknown_id = "00000000-0000-0000-0000-000000000000"
    for method, template in routes:
        for outside, missing in (("news", "no-such-kb"), (news_id, unknown_id)):
            answers = []
            for value in (outside, missing):
                path = template.replace("{kb_id}", value).replace("{doc_id}", "d")
                response = call(client, method, path, hr, json={})
                answers.append((response.status_code, response.text.replace(value, "KB")))
                if value == "news":
                    assert news_id not in response.text, (method, path)
            assert answers[0] == answers[1], (method, template, answers)
            assert answers[0][0] == 404, (method, template, answers)
    kept = call(client, "GET", f"/api/knowledge-bases/{news_id}", setup["admin"])
    assert kept.status_code == 200 and kept.json()["per_user"] is False


def test_conversations_belong_to_one_credential_not_to_a_name(setup: dict[str, Any]) -> None:
    """Two keys with the same name are two principals: one never sees the other's turns."""
    client = setup["client"]
    auth = client.app.state.runtime.auth  # type: ignore[attr-defined]
    news_twin, _ = auth.create_key("twin", ["news"])
    hr_twin, _ = auth.create_key("twin", ["hr"])
    body = {
        "question": "메타버스 알려줘",
        "now": "2025-11-21T10:00:00",
        "conversation_id": "c-twin",
    }
    asked = call(client, "POST", "/ai/v2/ask", news_twin, json=body)
    assert asked.status_code == 200 and "메타버스" in asked.text
    own = call(client, "GET", "/ai/v2/conversations/c-twin", news_twin)
    assert own.status_code == 200 and "메타버스는 비대면" in own.text
    other = call(client, "GET", "/ai/v2/conversations/c-twin", hr_twin)
    assert other.status_code == 404 and "메타버스는 비대면" not in other.text
    listed = call(client, "GET", "/ai/v2/conversations", hr_twin).json()
    assert "c-twin" not in [c["id"] for c in listed]
    assert call(client, "DELETE", "/ai/v2/conversations/c-twin", hr_twin).status_code == 404
    assert call(client, "GET", "/ai/v2/conversations/c-twin", news_twin).status_code == 200
