"""Run an ASGI app on a free loopback port in a background thread (test peers: the scripted
LLM, an embeddings endpoint, a rerank service)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from planrag.app.http_protocol import LenientH11Protocol


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Yields http://127.0.0.1:PORT while the app serves (with the server's own HTTP protocol);
    stops it afterwards."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="error", http=LenientH11Protocol
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
