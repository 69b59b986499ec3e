"""Untrusted sizes and names: the request cap (413 with the limits, before or while the body
is read), uploads streamed to disk, and the embedding-model allow-list (400, nothing probed)."""

from __future__ import annotations

import asyncio
import io
import json
import socket
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.errors import InvalidInput
from planrag.core.settings import E5_MODEL, EmbeddingSettings, IngestSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.stores.files import FileStore
from tests.servers import serve

MB = 1024 * 1024
LIMITS = {"max_request_bytes": MB, "max_upload_bytes": MB // 2, "max_files_per_request": 3}


def limited_settings(data_dir: Path) -> Settings:
    ingest = IngestSettings(max_request_mb=1, max_upload_mb=0.5, max_files_per_request=3)
    return Settings(_env_file=None, data_dir=data_dir, ingest=ingest)  # type: ignore[call-arg]


@pytest.fixture(scope="module")
def app(tmp_path_factory, embedders: EmbedderRegistry) -> FastAPI:  # type: ignore[no-untyped-def]
    return create_app(limited_settings(tmp_path_factory.mktemp("limits") / "data"), embedders)


@pytest.fixture(scope="module")
def server(app: FastAPI) -> Iterator[dict[str, Any]]:
    with serve(app) as url:
        kb = httpx.post(f"{url}/api/knowledge-bases", json={"name": "limits"}).json()
        yield {"url": url, "kb": kb["id"]}


def raw_request(url: str, head: str) -> tuple[int, dict[str, Any]]:
    """Send only a request head (no body at all) and read the whole answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head.encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


def test_a_declared_oversize_body_is_refused_before_it_is_sent(server: dict[str, Any]) -> None:
    for path in (f"/api/knowledge-bases/{server['kb']}/documents", "/rag/insert"):
        head = (
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {5 * 1024 * MB}\r\n\r\n"
        )
        # Nothing of the 5 GB is sent: the answer comes from the headers alone.
        status, body = raw_request(server["url"], head)
        assert status == 413, body
        assert body["error"]["code"] == "upload_too_large"
        assert body["error"]["details"] == LIMITS
        assert "PLANRAG_INGEST__MAX_REQUEST_MB" in body["error"]["message"]


def test_a_chunked_body_is_cut_at_the_limit(app: FastAPI, server: dict[str, Any]) -> None:
    """No Content-Length: the server stops pulling the body once it passes the limit."""
    pulled = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal pulled
        yield b'--b\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\n'
        for _ in range(200):  # 200 MB offered
            pulled += MB
            yield b"x" * MB

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.post(
                f"/api/knowledge-bases/{server['kb']}/documents",
                content=body(),
                headers={"content-type": "multipart/form-data; boundary=b"},
            )

    response = asyncio.run(send())
    assert response.status_code == 413, response.text
    assert response.json()["error"]["details"] == LIMITS
    assert pulled <= 2 * MB  # the rest of the 200 MB was never read


def test_uploads_within_the_limits_and_a_file_over_its_own(server: dict[str, Any]) -> None:
    url = f"{server['url']}/api/knowledge-bases/{server['kb']}/documents"
    files = [("files", (f"{i}.txt", f"문서 {i}번의 본문입니다.".encode())) for i in range(3)]
    accepted = httpx.post(url, files=files, timeout=60)
    assert accepted.status_code == 202 and len(accepted.json()) == 3
    big = httpx.post(url, files={"files": ("big.txt", b"y" * (MB // 2 + 1))}, timeout=60)
    assert big.status_code == 413
    assert big.json()["error"]["details"] == {"filename": "big.txt", **LIMITS}
    four = httpx.post(url, files=files + [("files", ("3.txt", b"four"))], timeout=60)
    assert four.status_code == 400 and "at most 3" in four.text


def test_staging_and_storing_an_upload_does_not_hold_it_in_memory(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="big"))
    payload = io.BytesIO(("가나다라마바사 " * 1_000_000).encode())  # ~21 MB
    size = payload.getbuffer().nbytes
    tracemalloc.start()
    try:
        path = runtime.files.stage(payload, 64 * MB)
        assert path is not None
        item = UploadItem(filename="big.txt", path=path)
        runtime.ingestion.upload(kb.id, [item], background=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MB, peak  # block by block, never the ~21 MB at once
    stored = runtime.ingestion.documents(kb.id)[0]
    assert stored.size == size
    assert runtime.files.path(kb.id, stored.id, "txt").stat().st_size == size


def test_staging_stops_at_the_limit_and_leaves_nothing(tmp_path: Path) -> None:
    files = FileStore(tmp_path)
    assert files.stage(io.BytesIO(b"z" * (3 * MB)), MB) is None
    assert list((tmp_path / ".incoming").iterdir()) == []


# ── the embedding-model allow-list ──────────────────────────────────────────────────────────
PROBES = ["/etc", "/no/such/dir", "../../etc/passwd", "someone/unknown-model", "/tmp"]


def test_an_embedding_model_off_the_list_is_a_400_that_reveals_nothing(client: TestClient) -> None:
    bodies = set()
    for i, model in enumerate(PROBES):
        response = client.post(
            "/api/knowledge-bases", json={"name": f"probe{i}", "embedding_model": model}
        )
        assert response.status_code == 400, (model, response.text)
        bodies.add(response.text)
    # One answer whatever exists on disk or on a hub: no probing, nothing loaded.
    assert len(bodies) == 1
    assert not any(client.app.state.runtime.embedders.is_loaded(m) for m in PROBES)  # type: ignore[attr-defined]
    assert "allowed" in bodies.pop()
    names = [kb["name"] for kb in client.get("/api/knowledge-bases").json()]
    assert not any(n.startswith("probe") for n in names)
    chosen = client.post("/api/knowledge-bases", json={"name": "e5", "embedding_model": "e5"})
    assert chosen.status_code == 201 and chosen.json()["embedding_model"] == E5_MODEL


def test_a_reindex_with_a_model_off_the_list_is_the_same_400(client: TestClient) -> None:
    kb = client.post("/api/knowledge-bases", json={"name": "reindexed"}).json()
    bodies = set()
    for model in PROBES:
        response = client.post(
            f"/api/knowledge-bases/{kb['id']}/reindex", json={"embedding_model": model}
        )
        assert response.status_code == 400, (model, response.text)
        bodies.add(response.text)
    assert len(bodies) == 1
    assert not any(client.app.state.runtime.embedders.is_loaded(m) for m in PROBES)  # type: ignore[attr-defined]
    after = client.get(f"/api/knowledge-bases/{kb['id']}").json()
    assert (after["vector_generation"], after["reindex"]) == (0, None)


def test_the_allow_list_is_a_setting() -> None:
    registry = EmbedderRegistry(EmbeddingSettings(allowed_models=["my-org/my-model"]))
    assert registry.check_allowed("my-org/my-model") == "my-org/my-model"
    assert registry.check_allowed(E5_MODEL) == E5_MODEL  # the configured model always is
    default = EmbedderRegistry(EmbeddingSettings())
    assert default.check_allowed("sentence-transformers/all-MiniLM-L6-v2")
    with pytest.raises(InvalidInput):
        registry.check_allowed("sentence-transformers/all-MiniLM-L6-v2")


def test_the_413_is_documented_wherever_a_body_is_taken(app: FastAPI) -> None:
    paths = app.openapi()["paths"]
    for path, method in (
        ("/rag/insert", "post"),
        ("/api/knowledge-bases", "post"),
        ("/api/knowledge-bases/{kb_id}/documents", "post"),
        ("/ai/v2/ask", "post"),
    ):
        assert "413" in paths[path][method]["responses"], (path, method)
