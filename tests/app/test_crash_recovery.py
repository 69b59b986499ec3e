"""A server killed mid-ingestion, restarted, ends with every document completed or error and
no orphan or duplicate vectors. Real processes, real SIGKILL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from planrag.core.filters import Eq
from planrag.core.settings import E5_MODEL, MINILM_MODEL, Settings
from planrag.runtime import Runtime
from planrag.stores.router import vector_key

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, data_dir: Path, **extra_env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "PLANRAG_DATA_DIR": str(data_dir),
            "PLANRAG_INGEST__CONCURRENCY": "1",
            "HF_HUB_OFFLINE": "1",
            **extra_env,
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "planrag.cli.main", "serve", "--port", str(self.port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(self.proc.stderr.read().decode()[-3000:])  # type: ignore[union-attr]
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).json()["ready"]:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.stop()  # never leave a server behind (it kept serving after a failed test)
        raise AssertionError("server did not start")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "data"


def documents(server: Server, kb_id: str) -> list[dict]:
    # 60 s: a server indexing and calibrating on a loaded 2-core machine answered a listing in
    # over 10 s (a hung server still fails the test)
    return httpx.get(f"{server.url}/api/knowledge-bases/{kb_id}/documents", timeout=60).json()


def long_text(seed: int) -> bytes:
    sentences = [
        f"Document {seed} sentence {i}: the warehouse in region {i % 17} ships {i * seed} parcels."
        for i in range(300)
    ]
    return " ".join(sentences).encode()


def test_kill_mid_ingestion_then_restart_recovers(data_dir: Path, embedders) -> None:
    server = Server(data_dir)
    try:
        kb = httpx.post(
            f"{server.url}/api/knowledge-bases", json={"name": "crash"}, timeout=60
        ).json()
        files = [("files", (f"doc{i}.txt", long_text(i + 1))) for i in range(8)]
        files.append(("files", ("broken.pdf", b"%PDF-1.7 garbage")))
        response = httpx.post(
            f"{server.url}/api/knowledge-bases/{kb['id']}/documents", files=files, timeout=60
        )
        assert response.status_code == 202, response.text

        deadline = time.monotonic() + 120
        while True:  # kill while one document is half written and others wait
            statuses = [d["status"] for d in documents(server, kb["id"])]
            if "processing" in statuses and "pending" in statuses:
                break
            assert time.monotonic() < deadline, statuses
            time.sleep(0.05)
        server.kill()
    finally:
        server.stop()

    server = Server(data_dir)
    try:
        deadline = time.monotonic() + 300
        while True:
            docs = documents(server, kb["id"])
            if all(d["status"] in ("completed", "error") for d in docs):
                break
            assert time.monotonic() < deadline, [d["status"] for d in docs]
            time.sleep(0.2)
    finally:
        server.stop()

    by_name = {d["filename"]: d for d in docs}
    assert by_name.pop("broken.pdf")["status"] == "error"
    assert {d["status"] for d in by_name.values()} == {"completed"}

    runtime = Runtime.open(Settings(_env_file=None, data_dir=data_dir), embedders)  # type: ignore[call-arg]
    try:
        for doc in docs:
            stored = runtime.vectors.count(kb["id"], Eq(field="doc_id", value=doc["id"]))
            assert stored == doc["chunk_count"], doc["filename"]
            assert len(runtime.metadata.list_chunks(doc["id"])) == doc["chunk_count"]
        assert runtime.vectors.doc_ids(kb["id"]) == {d["id"] for d in by_name.values()}
        assert runtime.vectors.count(kb["id"]) == sum(d["chunk_count"] for d in docs)
    finally:
        runtime.close()


def filler(paragraphs: int) -> bytes:
    return "\n\n".join(
        f"Paragraph {i}. The regional office {i} reviewed its budget, staffing and training "
        f"plans for the coming year, and reported {i * 7} open positions to headquarters. "
        "Managers agreed to publish the summary in the internal newsletter next quarter."
        for i in range(paragraphs)
    ).encode()


def reindex_status(server: Server, kb_id: str) -> dict:
    return httpx.get(f"{server.url}/api/knowledge-bases/{kb_id}/reindex", timeout=10).json()


def test_kill_mid_reindex_leaves_the_old_vectors_serving(data_dir: Path, embedders) -> None:
    server = Server(data_dir, PLANRAG_EMBEDDING__BATCH_SIZE="4")
    try:
        kb = httpx.post(f"{server.url}/api/knowledge-bases", json={"name": "re"}, timeout=60).json()
        assert kb["embedding_model"] == MINILM_MODEL
        files = [
            ("files", ("museum.txt", b"The city museum is closed on Mondays.")),
            ("files", ("offices.txt", filler(40))),
        ]
        httpx.post(f"{server.url}/api/knowledge-bases/{kb['id']}/documents", files=files)
        deadline = time.monotonic() + 120
        while {d["status"] for d in documents(server, kb["id"])} != {"completed"}:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        started = httpx.post(
            f"{server.url}/api/knowledge-bases/{kb['id']}/reindex",
            json={"embedding_model": E5_MODEL},
            timeout=60,
        )
        assert started.status_code == 202, started.text
        while True:  # kill once some, not all, new vectors are written
            status = reindex_status(server, kb["id"])
            assert status["status"] == "running", status
            if status["done"] >= 4:
                break
            time.sleep(0.05)
        server.kill()
    finally:
        server.stop()

    server = Server(data_dir)
    try:
        status = reindex_status(server, kb["id"])
        assert status["status"] == "failed" and "interrupted" in status["error"]
        serving = httpx.get(f"{server.url}/api/knowledge-bases/{kb['id']}", timeout=10).json()
        assert serving["embedding_model"] == MINILM_MODEL
        hits = httpx.post(
            f"{server.url}/api/knowledge-bases/{kb['id']}/retrieve",
            json={"query": "When is the museum closed?", "top_k": 3, "strategy": "ann"},
            timeout=60,
        ).json()
        assert hits[0]["metadata"]["filename"] == "museum.txt"
        chunks = sum(d["chunk_count"] for d in documents(server, kb["id"]))
    finally:
        server.stop()

    runtime = Runtime.open(Settings(_env_file=None, data_dir=data_dir), embedders)  # type: ignore[call-arg]
    try:
        assert runtime.vectors.count(kb["id"]) == chunks
        partial, key = runtime.vectors.at_generation(kb["id"], status["generation"])
        assert key == vector_key(kb["id"], 1) and not partial.has_collection(key)
    finally:
        runtime.close()
