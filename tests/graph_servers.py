"""Session fixtures: the real graph servers the graph backends are tested against, one of each
per test session, on 127.0.0.1 — `oxigraph serve` (a SPARQL 1.1 protocol server, from the
`oxigraph` wheel) and a Bolt server (ArcadeDB from the `arcadedb-embedded` wheel, in a child
process; see tests/stores/bolt_server.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.stores.bolt_server import DATABASE

BOLT_PASSWORD = "planrag-test-pw"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class SparqlServer:
    query_url: str
    update_url: str


@dataclass
class BoltServer:
    uri: str
    user: str
    password: str
    database: str


def _oxigraph_binary() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    if not Path(found).exists():
        raise RuntimeError("the `oxigraph` command is missing: pip install oxigraph")
    return found


@pytest.fixture(scope="session")
def sparql_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlServer]:
    port = free_port()
    location = tmp_path_factory.mktemp("oxigraph")
    proc = subprocess.Popen(
        [_oxigraph_binary(), "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/query", params={"query": "ASK {}"}, timeout=2)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("oxigraph serve did not start") from None
                time.sleep(0.1)
        yield SparqlServer(query_url=f"{base}/query", update_url=f"{base}/update")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="session")
def bolt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoltServer]:
    port = free_port()
    root = tmp_path_factory.mktemp("arcadedb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.stores.bolt_server", str(root), str(port), BOLT_PASSWORD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=root,  # ArcadeDB writes its log/ into the working directory
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip().endswith("ready"):
                break
        else:
            raise RuntimeError("the ArcadeDB Bolt server did not start")
        yield BoltServer(f"bolt://127.0.0.1:{port}", "root", BOLT_PASSWORD, DATABASE)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
