"""A real OpenAI-compatible `/v1/embeddings` server for tests, backed by the real local model.

Runs uvicorn in a thread on 127.0.0.1 and records the requests it served.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import FastAPI
from pydantic import BaseModel

from planrag.llm.embedders import Embedder
from tests.servers import serve


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
    calls: list[list[str]] = []
    with serve(build_app(embedder, calls)) as url:
        yield f"{url}/v1", calls
