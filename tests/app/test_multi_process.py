"""Several processes over shared stores: two API processes (`serve --workers 2 --no-worker`) and
two `planrag worker` processes on Milvus Lite's gRPC server and PostgreSQL (pgserver). One worker
is killed (SIGKILL) mid-run: every document still ends `completed` exactly once, with no
duplicate passages, and both API processes serve the new BM25 terms. Real processes throughout."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from planrag.stores.milvus import MilvusStore
from tests.milvus_server import milvus_server  # noqa: F401  (session fixture)
from tests.pg import sqlalchemy_url

pytestmark = pytest.mark.slow

DOCS = 12


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _planrag(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "planrag.cli.main", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: _stop reaches uvicorn's workers too
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the process and everything it started (a supervisor killed before its workers
    would leave them running after the test)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # any worker left in the group


@pytest.fixture
def shared_env(
    tmp_path: Path,
    milvus_server: str,  # noqa: F811
    pg_database: str,
) -> dict[str, str]:
    return {
        **os.environ,
        "PLANRAG_DATA_DIR": str(tmp_path / "data"),
        "PLANRAG_MILVUS__URI": milvus_server,
        "PLANRAG_DB__URL": sqlalchemy_url(pg_database),
        "PLANRAG_PG__URL": pg_database,
        "PLANRAG_INGEST__QUEUE": "database",
        "PLANRAG_INGEST__LEASE_S": "3",
        "PLANRAG_INGEST__POLL_S": "0.2",
        "PLANRAG_INGEST__CONCURRENCY": "1",
        "HF_HUB_OFFLINE": "1",
    }


@pytest.fixture
def api(shared_env: dict[str, str]) -> Iterator[str]:
    port = _free_port()
    proc = _planrag(["serve", "--workers", "2", "--no-worker", "--port", str(port)], shared_env)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(proc, url)
        yield url
    finally:
        _stop(proc)


def _wait_ready(proc: subprocess.Popen[bytes], url: str, timeout: float = 180.0) -> None:
    deadline, last = time.monotonic() + timeout, "no answer"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read().decode()[-3000:])  # type: ignore[union-attr]
        try:
            response = httpx.get(f"{url}/readyz", timeout=2)
            if response.status_code == 200:
                return
            last = response.text
        except httpx.TransportError as exc:
            last = repr(exc)
        time.sleep(0.3)
    raise AssertionError(f"API processes did not become ready: {last}")


def _documents(url: str, kb_id: str) -> list[dict]:
    response = httpx.get(f"{url}/api/knowledge-bases/{kb_id}/documents", timeout=30)
    response.raise_for_status()
    return response.json()


def test_two_api_processes_and_two_workers_one_killed(
    api: str,
    shared_env: dict[str, str],
    milvus_server: str,  # noqa: F811
) -> None:
    kb = httpx.post(f"{api}/api/knowledge-bases", json={"name": "shared"}, timeout=60).json()
    workers = [_planrag(["worker"], shared_env) for _ in range(2)]
    try:
        files = [
            (
                "files",
                (
                    f"doc{i}.md",
                    f"# 문서 {i}\n고유어휘{i}번 zetaword{i} 항목을 설명합니다.\n".encode(),
                    "text/markdown",
                ),
            )
            for i in range(DOCS)
        ]
        uploaded = httpx.post(
            f"{api}/api/knowledge-bases/{kb['id']}/documents", files=files, timeout=120
        )
        assert uploaded.status_code < 300, uploaded.text
        # Kill one worker as soon as indexing is under way.
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            docs = _documents(api, kb["id"])
            if any(d["status"] in ("processing", "completed") for d in docs):
                break
            time.sleep(0.2)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait(timeout=30)
        while time.monotonic() < deadline:
            docs = _documents(api, kb["id"])
            if all(d["status"] in ("completed", "error") for d in docs):
                break
            time.sleep(0.5)
        assert [d["status"] for d in docs] == ["completed"] * DOCS, docs
        assert len({d["id"] for d in docs}) == DOCS
    finally:
        for proc in workers:
            _stop(proc)

    # No duplicate passages: the vectors in Milvus are exactly the chunks the documents report.
    store = MilvusStore(milvus_server)
    try:
        assert store.count(kb["id"]) == sum(d["chunk_count"] for d in docs)
    finally:
        store.close()

    # Every API process serves the workers' BM25 terms (new connections spread over both).
    by_name = {d["filename"]: d["id"] for d in docs}
    for i in range(DOCS):
        for _ in range(2):
            with httpx.Client(timeout=60) as client:
                hits = client.post(
                    f"{api}/api/knowledge-bases/{kb['id']}/retrieve",
                    json={"query": f"zetaword{i}", "strategy": "bm25", "top_k": 1},
                ).json()
            assert hits and hits[0]["doc_id"] == by_name[f"doc{i}.md"], hits

    metrics = httpx.get(f"{api}/metrics", timeout=10).text
    assert "planrag_ingest_queue_depth 0.0" in metrics


@pytest.mark.parametrize("command", [["serve", "--workers", "2"], ["worker"]])
def test_several_processes_on_embedded_stores_are_refused(
    command: list[str], tmp_path: Path
) -> None:
    env = {**os.environ, "PLANRAG_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "planrag.cli.main", *command],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    message = "\n".join(line for line in lines if not line.startswith("import time:"))
    for setting in ("PLANRAG_INGEST__QUEUE", "PLANRAG_MILVUS__URI", "PLANRAG_DB__URL"):
        assert setting in message
    assert "Traceback" not in message
    assert not (tmp_path / "data").exists()
    # said before the stores, models and app are loaded: a refused command answers at once
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")
    }
    assert "planrag.core.settings" in imported
    assert not imported & {"planrag.runtime", "planrag.app.main", "torch"}
