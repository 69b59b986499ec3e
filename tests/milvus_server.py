"""Milvus Lite's own gRPC server (`milvus-lite server`) on loopback, for tests that reach Milvus
by URI exactly as they would a Milvus standalone or cluster: one server for the session."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["milvus_server"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def milvus_server() -> Iterator[str]:
    """The URI (http://127.0.0.1:PORT) of a running Milvus Lite gRPC server."""
    root = Path(tempfile.mkdtemp(prefix="planrag-test-milvus-"))
    port = _free_port()
    command = [
        str(Path(sys.executable).with_name("milvus-lite")),
        "server",
        "--data-dir",
        str(root / "data"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"milvus-lite server exited: {proc.stderr.read().decode()[-2000:]}"
                )  # type: ignore[union-attr]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("milvus-lite server did not start in 60 s") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(root, ignore_errors=True)
