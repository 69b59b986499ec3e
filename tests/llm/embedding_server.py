"""A real OpenAI-compatible `/v1/embeddings` server for tests, backed by the real local model.

Runs uvicorn in a thread on 127.0.0.1 and records the requests it served.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel

from planrag.llm.embedders import Embedder


class EmbeddingRequest(BaseModel):
    model: str
    input: list[str] | str
    encoding_format: str | None = None


def build_app(embedder: Embedder, calls: list[list[str]]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/embeddings")
    def embeddings(body: EmbeddingRequest) -> dict:
        texts = [body.input] if isinstance(body.input, str) else body.input
        calls.append(texts)
        vectors = embedder.embed(texts)
        # Scaled (not unit) vectors, in reverse order: the client must sort and normalise.
        data = [
            {"object": "embedding", "index": i, "embedding": [x * 3.0 for x in v]}
            for i, v in enumerate(vectors)
        ][::-1]
        return {
            "object": "list",
            "data": data,
            "model": body.model,
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    return app


@contextmanager
def serve_embeddings(embedder: Embedder) -> Iterator[tuple[str, list[list[str]]]]:
    """Yields (base_url, calls)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    calls: list[list[str]] = []
    config = uvicorn.Config(
        build_app(embedder, calls), host="127.0.0.1", port=port, log_level="error"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("embedding server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/v1", calls
    finally:
        server.should_exit = True
        thread.join(timeout=10)
