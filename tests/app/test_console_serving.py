"""The built console is served at `/` with deep links falling back to index.html, never in the
way of the API (its 404s, /docs, /openapi.json stay as they were), public even with auth on;
without a build `/` says how to build it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import AuthSettings, ServerSettings, Settings
from planrag.llm.embedders import EmbedderRegistry

INDEX = "<!doctype html><title>console</title><div id=root></div>"


def built_console(folder: Path) -> Path:
    """What `npm run build` leaves in web/dist: index.html, hashed assets, public files."""
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(INDEX)
    (folder / "assets" / "index-abc123.js").write_text("console.log('console')")
    (folder / "favicon.svg").write_text("<svg/>")
    return folder


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, embedders: EmbedderRegistry
) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("console")
    (tmp / "secret.txt").write_text("outside the console")
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp / "data",
        server=ServerSettings(console_dir=str(built_console(tmp / "dist"))),
        auth=AuthSettings(enabled=True, secret_key="a-test-secret-that-is-long-enough"),
    )
    with TestClient(create_app(settings, embedders)) as test_client:
        yield test_client


@pytest.mark.parametrize("path", ["/", "/kb/123/settings", "/ask", "/traces/abc", "/signin"])
def test_client_routes_answer_the_console(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.text == INDEX
    assert response.headers["cache-control"] == "no-cache"


def test_built_files_are_served_and_hashed_assets_cached(client: TestClient) -> None:
    asset = client.get("/assets/index-abc123.js")
    assert asset.status_code == 200 and "console" in asset.text
    assert "immutable" in asset.headers["cache-control"]
    assert client.get("/favicon.svg").text == "<svg/>"


@pytest.mark.parametrize(
    "path", ["/assets/missing.js", "/missing.png", "/../secret.txt", "/%2e%2e/secret.txt"]
)
def test_missing_files_and_escapes_are_404(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert "outside the console" not in response.text


def test_api_paths_are_never_shadowed(client: TestClient) -> None:
    # Auth is on: the console is public, the API still asks for credentials.
    assert client.get("/api/knowledge-bases").status_code == 401
    unknown = client.get("/api/no-such-route")
    assert unknown.status_code in (401, 404) and unknown.headers["content-type"].startswith(
        "application/json"
    )
    assert client.get("/ai/v2/nothing").status_code in (401, 404)
    assert client.get("/healthz").json()["status"] == "ok"
    assert client.get("/openapi.json").json()["info"]["title"] == "planrag"
    assert "swagger" in client.get("/docs").text.lower()
    assert client.get("/docs/nothing").status_code == 404
    # Methods other than GET on the API keep their meaning.
    assert client.post("/api/knowledge-bases", json={}).status_code == 401


def test_without_a_build_the_root_says_how_to_build(
    tmp_path: Path, embedders: EmbedderRegistry
) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        server=ServerSettings(console_dir=str(tmp_path / "not-built")),
    )
    with TestClient(create_app(settings, embedders)) as plain:
        root = plain.get("/")
        assert root.status_code == 200
        assert "make setup" in root.text and "npm run build" in root.text
        assert plain.get("/kb/1").status_code == 404
        assert plain.get("/api/knowledge-bases").json() == []
