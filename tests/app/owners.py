"""A per-user knowledge base "team" where alice and bob each own one document, served with auth
off (uploads name their `user_id`) or on (each uploads with their own API key): the fixture of
the ownership tests (the ask paths', the document API's, the spec dialects')."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import AuthSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.sse import events

NOW = "2025-11-21T10:00:00+09:00"
ALICE_TEXT = "연차 휴가 규정: 알파카 팀의 연차 휴가는 20일이다."
BOB_TEXT = "연차 휴가 규정: 비버 팀의 연차 휴가는 10일이다."
QUESTION = "연차 휴가 규정 알려줘"
WORDS = {"alice": "알파카", "bob": "비버"}  # each user's document, recognisable in any field


def sse(response: httpx.Response) -> list[tuple[str, Any]]:
    assert response.status_code == 200, response.text
    return list(events(response))


def upload(
    client: TestClient, kb_id: str, name: str, text: str, headers: dict, **form: str
) -> httpx.Response:
    files = {"files": (name, text.encode(), "text/markdown")}
    return client.post(
        f"/api/knowledge-bases/{kb_id}/documents", files=files, data=form, headers=headers
    )


def wait(client: TestClient, kb_id: str, headers: dict) -> None:
    deadline = time.monotonic() + 120
    path = f"/api/knowledge-bases/{kb_id}/documents"
    while any(d["status"] != "completed" for d in client.get(path, headers=headers).json()):
        assert time.monotonic() < deadline
        time.sleep(0.2)


def team_app(
    tmp: Path, embedders: EmbedderRegistry, auth: bool, **settings: Any
) -> Iterator[dict[str, Any]]:
    """The app with the "team" KB filled: `client`, `kb`, `docs` (who → uploaded document),
    `heads` (who → request headers; empty with auth off) and `users` (who → owner id)."""
    if auth:
        settings["auth"] = AuthSettings(enabled=True, secret_key="x" * 40)
    config = Settings(_env_file=None, data_dir=tmp, **settings)  # type: ignore[call-arg]
    with TestClient(create_app(config, embedders)) as client:
        heads: dict[str, dict[str, str]] = {"admin": {}, "alice": {}, "bob": {}}
        users = {"alice": "alice", "bob": "bob"}
        if auth:
            runtime = client.app.state.runtime  # type: ignore[attr-defined]
            for name in heads:
                key, record = runtime.auth.create_key(name, admin=name == "admin")
                heads[name] = {"X-API-Key": key}
                users[name] = f"key:{record.id}"
        admin = heads["admin"]
        kb = client.post(
            "/api/knowledge-bases", json={"name": "team", "per_user": True}, headers=admin
        ).json()
        assert kb["per_user"] is True
        docs = {}
        for who, text in (("alice", ALICE_TEXT), ("bob", BOB_TEXT)):
            # auth off: the form's user_id; auth on: the caller, no field needed
            form = {} if auth else {"user_id": who}
            made = upload(client, kb["id"], f"{who}.md", text, heads[who], **form)
            assert made.status_code == 202, made.text
            docs[who] = made.json()[0]
            assert docs[who]["metadata"]["user_id"] == users[who]
        wait(client, kb["id"], admin)
        yield {"client": client, "kb": kb, "docs": docs, "heads": heads, "users": users}
