"""Admin routes for keys and users on a real server with authentication on: admin only,
revocation counts from the next request, and `planrag keys|users` go through them while the
server holds the data dir. Public health says nothing about the data."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from typer.testing import CliRunner

from planrag.app.main import create_app
from planrag.cli.admin_client import announce
from planrag.cli.main import app as cli
from planrag.core.settings import AuthSettings, Settings, get_settings
from planrag.llm.embedders import EmbedderRegistry
from tests.servers import serve

SECRET = "a-test-secret-that-is-long-enough"


@pytest.fixture(scope="module")
def server(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    data_dir = tmp_path_factory.mktemp("admin") / "data"
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=data_dir, auth=AuthSettings(enabled=True, secret_key=SECRET)
    )
    app: FastAPI = create_app(settings, embedders)
    with serve(app) as url:
        auth = app.state.runtime.auth
        root, _ = auth.create_key("root", admin=True)
        reader, _ = auth.create_key("reader")  # every knowledge base, but no admin
        scoped, _ = auth.create_key("scoped", ["news"])
        yield {"url": url, "root": root, "reader": reader, "scoped": scoped, "data_dir": data_dir}


def get(server: dict[str, Any], path: str, key: str | None = None) -> httpx.Response:
    headers = {"X-API-Key": key} if key else {}
    return httpx.get(server["url"] + path, headers=headers, timeout=30)


def post(server: dict[str, Any], path: str, key: str | None, **kwargs: Any) -> httpx.Response:
    headers = {"X-API-Key": key} if key else {}
    return httpx.post(server["url"] + path, headers=headers, timeout=30, **kwargs)


ADMIN_ROUTES = [
    ("GET", "/admin/keys", {}),
    ("POST", "/admin/keys", {"json": {"name": "x"}}),
    ("POST", "/admin/keys/prk_nothing/revoke", {}),
    ("GET", "/admin/users", {}),
    ("POST", "/admin/users", {"json": {"username": "x", "password": "long-password"}}),
    ("POST", "/admin/users/x/disable", {}),
]


def test_admin_routes_are_for_admins_only(server: dict[str, Any]) -> None:
    for method, path, kwargs in ADMIN_ROUTES:
        for key, status in ((None, 401), ("prk_wrong", 401), (server["reader"], 403)):
            headers = {"X-API-Key": key} if key else {}
            response = httpx.request(
                method, server["url"] + path, headers=headers, timeout=30, **kwargs
            )
            assert response.status_code == status, (method, path, key, response.text)
        scoped = httpx.request(
            method, server["url"] + path, headers={"X-API-Key": server["scoped"]}, **kwargs
        )
        assert scoped.status_code == 403, (method, path)
    assert [k["name"] for k in get(server, "/admin/keys", server["root"]).json()][:3] == [
        "root",
        "reader",
        "scoped",
    ]


def test_keys_created_and_revoked_over_http_count_from_the_next_request(
    server: dict[str, Any],
) -> None:
    root = server["root"]
    created = post(server, "/admin/keys", root, json={"name": "temp", "knowledge_bases": ["a"]})
    assert created.status_code == 201, created.text
    key, record = created.json()["key"], created.json()["record"]
    assert record["knowledge_bases"] == ["a"] and not record["admin"]
    assert key not in get(server, "/admin/keys", root).text  # only the prefix is listed
    assert get(server, "/api/knowledge-bases", key).status_code == 200
    revoked = post(server, f"/admin/keys/{record['prefix']}/revoke", root)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    assert get(server, "/api/knowledge-bases", key).status_code == 401
    assert post(server, "/admin/keys/prk_unknown/revoke", root).status_code == 404
    bad = post(
        server, "/admin/keys", root, json={"name": "x", "knowledge_bases": ["a"], "admin": True}
    )
    assert bad.status_code == 400  # an admin limited to knowledge bases would be a lie


def test_users_created_and_disabled_over_http(server: dict[str, Any]) -> None:
    root = server["root"]
    body = {"username": "park", "password": "password-park", "knowledge_bases": ["news"]}
    assert post(server, "/admin/users", root, json=body).status_code == 201
    assert post(server, "/admin/users", root, json=body).status_code == 409
    short = post(server, "/admin/users", root, json={**body, "username": "p2", "password": "x"})
    assert short.status_code == 422
    token = post(server, "/token", None, data={"username": "park", "password": "password-park"})
    bearer = {"Authorization": f"Bearer {token.json()['access_token']}"}
    url = server["url"] + "/api/knowledge-bases"
    assert httpx.get(url, headers=bearer).status_code == 200
    disabled = post(server, "/admin/users/park/disable", root)
    assert disabled.status_code == 200 and disabled.json()["disabled"] is True
    assert httpx.get(url, headers=bearer).status_code == 401
    users = get(server, "/admin/users", root).json()
    assert "password" not in str(users) and users[0]["username"] == "park"


@pytest.fixture
def cli_env(server: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("PLANRAG_DATA_DIR", str(server["data_dir"]))
    monkeypatch.setenv("PLANRAG_AUTH__ENABLED", "true")
    monkeypatch.setenv("PLANRAG_AUTH__SECRET_KEY", SECRET)
    for name in ("PLANRAG_SERVER_URL", "PLANRAG_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_the_cli_goes_through_the_server_it_finds_for_the_data_dir(
    server: dict[str, Any], cli_env: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    host, port = server["url"].removeprefix("http://").split(":")
    with announce(Path(server["data_dir"]), host, int(port)):
        # Through the server: without an admin key it is refused (the DB would not refuse).
        refused = cli_env.invoke(cli, ["keys", "list", "--json"])
        assert refused.exit_code == 1 and "PLANRAG_API_KEY" in refused.output
        monkeypatch.setenv("PLANRAG_API_KEY", server["root"])
        get_settings.cache_clear()
        created = cli_env.invoke(cli, ["keys", "create", "via-cli", "--kb", "news"])
        assert created.exit_code == 0, created.output
        key = created.stdout.strip().splitlines()[0]
        assert get(server, "/api/knowledge-bases", key).status_code == 200
        revoked = cli_env.invoke(cli, ["keys", "revoke", key[:12]])
        assert revoked.exit_code == 0, revoked.output
        assert get(server, "/api/knowledge-bases", key).status_code == 401  # at once
    # Gone from the data dir: the CLI writes the metadata DB directly (no Milvus lock taken).
    monkeypatch.delenv("PLANRAG_API_KEY")
    get_settings.cache_clear()
    listed = cli_env.invoke(cli, ["keys", "list", "--json"])
    assert listed.exit_code == 0 and "via-cli" in listed.stdout


def test_the_cli_uses_an_explicit_server_url_and_direct_for_the_first_admin_key(
    server: dict[str, Any], cli_env: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANRAG_SERVER_URL", server["url"])
    get_settings.cache_clear()
    refused = cli_env.invoke(cli, ["users", "list"])
    assert refused.exit_code == 1 and "admin key" in refused.output
    made = cli_env.invoke(cli, ["keys", "--direct", "create", "second-root", "--admin"])
    assert made.exit_code == 0, made.output
    admin_key = made.stdout.strip().splitlines()[0]
    monkeypatch.setenv("PLANRAG_API_KEY", admin_key)
    get_settings.cache_clear()
    users = cli_env.invoke(
        cli, ["users", "create", "choi", "--password-stdin"], input="pw-choi-123\n"
    )
    assert users.exit_code == 0, users.output
    assert get(server, "/admin/users", admin_key).status_code == 200


def test_public_health_is_minimal_and_admins_get_the_details(server: dict[str, Any]) -> None:
    public = get(server, "/healthz").json()
    assert set(public) == {"status", "ready"}
    assert set(get(server, "/healthz", server["scoped"]).json()) == {"status", "ready"}
    detailed = get(server, "/healthz", server["root"]).json()
    assert {"knowledge_bases", "version", "embedding_model"} <= set(detailed)
    spec003 = get(server, "/api/v1/health").json()
    assert all(c.get("detail") is None for c in spec003["components"].values())
    assert any(
        c.get("detail")
        for c in get(server, "/api/v1/health", server["root"]).json()["components"].values()
    )


def test_a_server_file_left_by_a_dead_server_is_ignored(tmp_path: Path) -> None:
    from planrag.cli.admin_client import SERVER_FILE, announced_url

    (tmp_path / SERVER_FILE).write_text('{"url": "http://127.0.0.1:9", "pid": 999999999}')
    assert announced_url(tmp_path) is None
    (tmp_path / SERVER_FILE).write_text(f'{{"url": "http://127.0.0.1:9", "pid": {os.getpid()}}}')
    assert announced_url(tmp_path) is None  # the process lives but nothing answers there


def test_a_terminated_server_removes_its_announcement(tmp_path: Path) -> None:
    """uvicorn re-raises SIGTERM after its graceful shutdown: the file must still go."""
    import signal

    from planrag.cli.admin_client import SERVER_FILE

    with pytest.raises(SystemExit), announce(tmp_path, "0.0.0.0", 8123):
        assert json.loads((tmp_path / SERVER_FILE).read_text())["url"] == "http://127.0.0.1:8123"
        signal.raise_signal(signal.SIGTERM)
    assert not (tmp_path / SERVER_FILE).exists()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # restored


def test_the_admin_routes_answers_are_documented(server: dict[str, Any]) -> None:
    paths = httpx.get(server["url"] + "/openapi.json").json()["paths"]
    assert {"401", "403", "409", "422"} <= set(paths["/admin/users"]["post"]["responses"])
    assert {"401", "403", "404"} <= set(paths["/admin/keys/{key}/revoke"]["post"]["responses"])
