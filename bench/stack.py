"""The multi-process set-up of the benches: shared stores, API and worker processes.

Milvus Lite's gRPC server and an embedded PostgreSQL (pgserver) in a temporary directory, the
ingestion queue in the metadata DB; `planrag serve --workers N --no-worker` and `planrag worker`
processes over them, each in a session of its own so that stopping one stops everything it
started (uvicorn's worker processes, an embedding helper). Used by bench.scale,
bench.ingest_workers and bench.soak.
"""

from __future__ import annotations

import contextlib
import csv
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.procstats import ProcessGroups, ProcessRoots, postmaster_pid
from bench.server import free_port

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
NEWS_CSV = SHARED / "data" / "ko_news_2017" / "korean_newspapers_twitter_2017.csv"
CONNECT_TIMEOUT_S = 120  # every client of the Milvus Lite server retries connecting this long


@dataclass
class Stack:
    """The shared stores' env for planrag processes, and their processes for bench.procstats."""

    env: dict[str, str]
    milvus_pid: int
    pgdata: Path

    def meter(self, **groups: ProcessRoots) -> ProcessGroups:
        """CPU/RSS/fd meter over the given groups plus the servers and this bench process."""
        own = os.getpid()
        pg = postmaster_pid(self.pgdata)
        return ProcessGroups(
            {
                **groups,
                "milvus": lambda: [self.milvus_pid],
                "postgres": lambda: [pg] if pg else [],
                "client": lambda: [own],
            },
            alone=["client"],
        )

    def _milvus(self) -> Any:
        from planrag.stores.milvus import connect, grpc_options

        uri = self.env["PLANRAG_MILVUS__URI"]
        return connect(uri, "", grpc_options(300.0), CONNECT_TIMEOUT_S)

    def vectors_by_doc(self, kb_id: str, doc_ids: list[str]) -> dict[str, dict[str, str]]:
        """chunk id → text of every vector of the given documents, by document."""
        from planrag.core.filters import In
        from planrag.stores.milvus import collection_name
        from planrag.stores.milvus_filter import render_milvus

        client, out = self._milvus(), {}
        try:
            for start in range(0, len(doc_ids), 50):
                rows = client.query(
                    collection_name(kb_id),
                    filter=render_milvus(In(field="doc_id", values=doc_ids[start : start + 50])),
                    output_fields=["chunk_id", "doc_id", "text"],
                )
                for row in rows:
                    out.setdefault(row["doc_id"], {})[row["chunk_id"]] = row["text"]
        finally:
            client.close()
        return out

    def vector_doc_ids(self, kb_id: str) -> set[str]:
        from planrag.stores.milvus import MilvusStore

        store = MilvusStore(self.env["PLANRAG_MILVUS__URI"], connect_timeout_s=CONNECT_TIMEOUT_S)
        try:
            return store.doc_ids(kb_id)
        finally:
            store.close()


def wait_for_port(port: int, proc: subprocess.Popen[bytes], deadline_s: float) -> None:
    """Until the server accepts connections (a loaded machine starts it slowly)."""
    deadline = time.monotonic() + deadline_s
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"milvus-lite server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"milvus-lite server silent for {deadline_s} s") from None
            time.sleep(0.5)


@contextmanager
def shared_stores(root: Path, embed_threads: int = 1) -> Iterator[Stack]:
    """A Milvus Lite gRPC server and an embedded PostgreSQL; the env that points at them.

    Every planrag process embeds with `embed_threads` e5 threads (one job at a time in a
    worker), so that N processes can use N cores without OpenMP threads fighting."""
    from planrag.stores.postgres import EmbeddedPostgres, sqlalchemy_url

    port = free_port()
    milvus = subprocess.Popen(
        [str(Path(sys.executable).with_name("milvus-lite")), "server", "--data-dir",
         str(root / "milvus"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_for_port(port, milvus, deadline_s=120)
    (root / "pg").mkdir(mode=0o755)
    postgres = EmbeddedPostgres(root / "pg" / "data")
    postgres.start()
    try:
        conninfo = postgres.conninfo("postgres")
        env = {
            **os.environ,
            "PLANRAG_DATA_DIR": str(root / "data"),
            "PLANRAG_MILVUS__URI": f"http://127.0.0.1:{port}",
            "PLANRAG_MILVUS__CONNECT_TIMEOUT_S": str(CONNECT_TIMEOUT_S),
            "PLANRAG_DB__URL": sqlalchemy_url(conninfo),
            "PLANRAG_PG__URL": conninfo,
            "PLANRAG_INGEST__QUEUE": "database",
            "PLANRAG_INGEST__LEASE_S": "10",
            "PLANRAG_INGEST__CONCURRENCY": "1",
            "PLANRAG_LOG_LEVEL": "WARNING",
            "HF_HUB_OFFLINE": "1",
            "OMP_NUM_THREADS": "1",
            "PLANRAG_EMBEDDING__THREADS": str(embed_threads),
        }
        yield Stack(env, milvus.pid, postgres.pgdata)
    finally:
        postgres.stop()
        milvus.terminate()
        milvus.wait(timeout=30)


def planrag(args: list[str], env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    """A planrag CLI process in a session of its own, its output appended to `log_path`."""
    with log_path.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "planrag.cli.main", *args],
            env=env, stdout=out, stderr=out, start_new_session=True,
        )  # fmt: skip


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after a minute; then SIGKILL to anything left in its session."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


@dataclass(frozen=True)
class Api:
    url: str
    pid: int  # the `planrag serve` process (uvicorn's supervisor when --workers > 1)


@contextmanager
def api(env: dict[str, str], workers: int, log_path: Path) -> Iterator[Api]:
    """`planrag serve --workers N --no-worker` until /readyz answers 200."""
    port = free_port()
    proc = planrag(
        ["serve", "--workers", str(workers), "--no-worker", "--port", str(port)], env, log_path
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600
        while True:
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"server exited; see {log_path}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"server not ready after 600 s; see {log_path}")
            time.sleep(0.5)
        yield Api(url, proc.pid)
    finally:
        stop(proc)


def news(n: int, skip: int = 0) -> list[dict[str, str]]:
    """Korean news items (tweets of 2017 newspapers, one chunk each) `skip`…`skip + n`."""
    rows = list(csv.DictReader(NEWS_CSV.open(encoding="utf-8")))[skip : skip + n]
    if len(rows) < n:
        raise SystemExit(f"{NEWS_CSV} has {skip + len(rows)} items; asked for {skip + n}")
    return rows


def upload(url: str, kb_id: str, rows: list[dict[str, str]], prefix: str = "news") -> list[str]:
    """Upload the items 50 per request; the distinct document ids (identical texts are one)."""
    ids: dict[str, None] = {}
    with httpx.Client(timeout=300) as client:
        for start in range(0, len(rows), 50):
            files = [
                ("files", (f"{prefix}-{start + i}.txt", row["text"].encode(), "text/plain"))
                for i, row in enumerate(rows[start : start + 50])
            ]
            response = client.post(f"{url}/api/knowledge-bases/{kb_id}/documents", files=files)
            response.raise_for_status()
            ids.update((doc["id"], None) for doc in response.json())
    return list(ids)
