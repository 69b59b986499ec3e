"""The crash harness (issue 10): a real server is SIGKILLed at seeded moments while it indexes
and while it deletes documents, restarted, and after each restart every index must agree about
every document — chunk rows = BM25 terms = vectors for each completed document, nothing of a
deleted document anywhere, no document left `deleting`, `pending` or `processing`, and (for a
knowledge base with a graph) no graph provenance of a document that is not completed.

One round of each kind per run; `PLANRAG_CRASH_ROUNDS=N` runs N of each (the issue's probe ran 6
indexing and 4 deletion rounds).
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import httpx
import pytest

from planrag.core.settings import Settings
from planrag.core.types import ChunkKind, DocumentStatus
from planrag.runtime import Runtime
from tests.app.test_crash_recovery import Server, documents

pytestmark = pytest.mark.slow

ROUNDS = int(os.environ.get("PLANRAG_CRASH_ROUNDS", "1"))
SEED = 10
# The KB's graph backend: "none" here; a graph backend makes the check below compare graph
# provenance too (the hook for graph knowledge bases).
GRAPH_BACKEND = "none"


def text(seed: int) -> bytes:
    sentences = [
        f"Record {seed}-{i}: the depot in district {i % 13} received {i * seed} crates today."
        for i in range(300)
    ]
    return " ".join(sentences).encode()


def settled(server: Server, kb_id: str, timeout: float = 300) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        docs = documents(server, kb_id)
        if all(d["status"] in ("completed", "error") for d in docs):
            return docs
        assert time.monotonic() < deadline, [d["status"] for d in docs]
        time.sleep(0.2)


def check_indexes(data_dir: Path, kb_id: str) -> int:
    """Every index of the KB agrees about every document (no server running on the data dir).
    Returns the number of completed documents."""
    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    runtime = Runtime.open(settings)
    try:
        kb = runtime.metadata.get_kb(kb_id)
        docs = runtime.metadata.list_documents(kb_id)
        assert {d.status for d in docs} <= {DocumentStatus.completed, DocumentStatus.error}
        completed = {d.id for d in docs if d.status == DocumentStatus.completed}
        assert runtime.ingestion.checker.broken(kb) == []
        assert runtime.vectors.doc_ids(kb_id) <= completed  # nothing of deleted or failed ones
        searchable = {
            c.id
            for doc_id in completed
            for c in runtime.metadata.list_chunks(doc_id)
            if c.kind != ChunkKind.parent
        }
        assert set(runtime.bm25.index(kb_id).chunk_ids) == searchable
        graph = runtime.ingestion.graph_docs(kb)
        if graph is not None:
            assert graph <= completed
        return len(completed)
    finally:
        runtime.close()


def assert_indexes_agree(data_dir: Path, kb_id: str) -> int:
    """`check_indexes` on the stopped server's data dir, in this process: closing the runtime
    frees Milvus Lite's lock on the data dir, so the next server can start."""
    return check_indexes(data_dir, kb_id)


def kill_while_indexing(server: Server, kb_id: str, round_: int, rng: random.Random) -> None:
    files = [("files", (f"r{round_}-{i}.txt", text(round_ * 10 + i + 1))) for i in range(4)]
    response = httpx.post(
        f"{server.url}/api/knowledge-bases/{kb_id}/documents",
        files=files,
        data={"user_id": owner_of(round_)},  # the KB is per-user: each round another user's
        timeout=60,
    )
    assert response.status_code == 202, response.text
    deadline = time.monotonic() + 120
    while "processing" not in {d["status"] for d in documents(server, kb_id)}:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(rng.uniform(0.0, 1.5))
    server.kill()


def owner_of(round_: int) -> str:
    return f"user-{round_ % 2}"


def assert_owners_kept(docs: list[dict]) -> None:
    """Every document of the per-user KB still has the owner it was uploaded with."""
    for doc in docs:
        round_ = int(doc["filename"][1:].split("-", 1)[0])
        assert doc["metadata"]["user_id"] == owner_of(round_), doc


def kill_while_deleting(server: Server, kb_id: str, rng: random.Random) -> None:
    doomed = [d["id"] for d in documents(server, kb_id) if d["status"] == "completed"]
    rng.shuffle(doomed)
    doomed = doomed[: max(2, len(doomed) // 2)]
    first = threading.Event()

    def delete_all() -> None:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            for doc_id in doomed:
                try:
                    http.delete(f"/api/knowledge-bases/{kb_id}/documents/{doc_id}")
                except httpx.TransportError:
                    return  # the server died under it
                finally:
                    first.set()

    deleter = threading.Thread(target=delete_all, daemon=True)
    deleter.start()
    assert first.wait(timeout=60)
    time.sleep(rng.uniform(0.0, 0.2))
    server.kill()
    deleter.join(timeout=60)


def test_kill_during_indexing_and_deletion_leaves_indexes_agreeing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    rng = random.Random(SEED)
    server = Server(data_dir)
    try:
        body = {"name": "harness", "graph_backend": GRAPH_BACKEND, "per_user": True}
        response = httpx.post(f"{server.url}/api/knowledge-bases", json=body, timeout=60)
        assert response.status_code == 201, response.text
        kb_id = response.json()["id"]
        for round_ in range(ROUNDS):
            kill_while_indexing(server, kb_id, round_, rng)
            server = Server(data_dir)
            assert_owners_kept(settled(server, kb_id))
            server.stop()
            assert assert_indexes_agree(data_dir, kb_id) > 0
            server = Server(data_dir)
        for round_ in range(ROUNDS):
            before = len(settled(server, kb_id))
            kill_while_deleting(server, kb_id, rng)
            server = Server(data_dir)
            after = settled(server, kb_id)
            assert len(after) < before  # at least the first deletion went through
            assert_owners_kept(after)
            server.stop()
            assert_indexes_agree(data_dir, kb_id)
            if round_ < ROUNDS - 1:  # a server for the next round only (a start is ~20 CPU s)
                server = Server(data_dir)
    finally:
        server.stop()
