"""What one upload may become (issue 22 #5), through the API: an inflating DOCX and a document of
too many chunks fail with the reason in `error` and leave nothing indexed; a document deleted
while it is being embedded stops being embedded at the next batch, and nothing of it stays."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import IngestSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.services.document_indexer import EMBED_BATCH
from tests.conftest import wait_for_documents
from tests.ingest.test_inflation import inflating_docx


@pytest.fixture(scope="module")
def app(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path_factory.mktemp("limits") / "data",
        ingest=IngestSettings(max_inflated_mb=1.0, max_chunks=30, embed_process=False),
    )
    with TestClient(create_app(settings, embedders)) as client:
        kb = client.post("/api/knowledge-bases", json={"name": "limits"}).json()
        yield {"client": client, "kb": kb["id"]}


def upload(app: dict[str, Any], name: str, data: bytes) -> dict[str, Any]:
    files = {"files": (name, data)}
    made = app["client"].post(f"/api/knowledge-bases/{app['kb']}/documents", files=files)
    assert made.status_code == 202, made.text
    return dict(made.json()[0])


def sentences(count: int) -> bytes:
    return "\n\n".join(
        f"{i}번째 문단은 서로 다른 내용을 담고 있다." * 8 for i in range(count)
    ).encode()


def test_an_inflating_docx_and_too_many_chunks_fail_with_the_reason(app) -> None:  # type: ignore[no-untyped-def]
    bomb = upload(app, "bomb.docx", inflating_docx(3 * 1024 * 1024))
    many = upload(app, "many.md", sentences(200))
    fine = upload(app, "fine.md", sentences(3))
    docs = {d["id"]: d for d in wait_for_documents(app["client"], app["kb"])}
    assert docs[bomb["id"]]["status"] == "error"
    assert "PLANRAG_INGEST__MAX_INFLATED_MB" in docs[bomb["id"]]["error"]
    assert docs[many["id"]]["status"] == "error"
    assert "PLANRAG_INGEST__MAX_CHUNKS" in docs[many["id"]]["error"]
    assert docs[fine["id"]]["status"] == "completed"
    for failed in (bomb, many):
        chunks = app["client"].get(
            f"/api/knowledge-bases/{app['kb']}/documents/{failed['id']}/chunks"
        )
        assert chunks.json() == [] and docs[failed["id"]]["chunk_count"] == 0


def test_deleting_a_document_stops_its_embedding(app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The document is deleted while its first batch is embedded: no further batch is embedded
    for it, and none of its vectors remain."""
    runtime = app["client"].app.state.runtime
    indexer = runtime.ingestion.indexer
    original = indexer._indexing_embedder
    calls: list[int] = []
    first_batch, release = threading.Event(), threading.Event()

    class Watched:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def embed(self, texts: list[str]) -> Any:
            calls.append(len(texts))
            if len(calls) == 1:
                first_batch.set()
                assert release.wait(60)
            return self.inner.embed(texts)

    monkeypatch.setattr(indexer, "_indexing_embedder", lambda *a: Watched(original(*a)))
    monkeypatch.setattr(indexer, "_limits", indexer._limits.model_copy(update={"max_chunks": 500}))
    doc = upload(app, "long.md", sentences(4 * EMBED_BATCH))  # several batches
    assert first_batch.wait(120)
    path = f"/api/knowledge-bases/{app['kb']}/documents/{doc['id']}"
    assert app["client"].delete(path).status_code == 204
    release.set()
    runtime.ingestion.wait(timeout=120)
    assert calls == [EMBED_BATCH]  # the first batch only
    assert app["client"].get(path).status_code == 404
    assert doc["id"] not in runtime.vectors.doc_ids(app["kb"])
