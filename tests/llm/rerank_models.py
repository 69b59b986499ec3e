"""A small, seeded, randomly initialised cross-encoder built from the real config and tokenizer
of ms-marco-MiniLM-L-6-v2 (../shared/models, no weights exist here), and a real rerank HTTP
server in the TEI and Jina shapes backed by it. Scores are meaningless; plumbing is real."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.servers import serve

SHARED_MODELS = Path(
    os.environ.get(
        "PLANRAG_SHARED_MODELS", Path(__file__).resolve().parents[3] / "shared" / "models"
    )
)
CONFIG_DIR = SHARED_MODELS / "ms-marco-MiniLM-L-6-v2-noweights"


def build_random_cross_encoder(target: Path, layers: int = 2, seed: int = 13) -> Path:
    import torch
    from transformers import AutoConfig, BertForSequenceClassification

    if not (CONFIG_DIR / "config.json").exists():
        raise RuntimeError(
            f"{CONFIG_DIR} is missing: the tests need ../shared/models beside the checkout "
            "(or PLANRAG_SHARED_MODELS)"
        )
    torch.manual_seed(seed)
    config = AutoConfig.from_pretrained(CONFIG_DIR, num_hidden_layers=layers)
    model = BertForSequenceClassification(config)
    model.save_pretrained(target)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(CONFIG_DIR / name, target / name)
    return target


@contextmanager
def serve_rerank(reranker, fail_first: int = 0) -> Iterator[tuple[str, list[dict]]]:  # type: ignore[no-untyped-def]
    """A rerank service answering TEI ({query, texts}) and Jina ({query, documents}) bodies.

    The first `fail_first` requests get a 503 (to exercise retries). Yields (url, requests)."""
    app = FastAPI()
    seen: list[dict] = []

    @app.post("/rerank")
    async def rerank(request: Request):  # type: ignore[no-untyped-def]
        body = await request.json()
        seen.append(body)
        if len(seen) <= fail_first:
            return JSONResponse({"error": "warming up"}, status_code=503)
        texts = body.get("texts") or body.get("documents") or []
        scores = reranker.score(body["query"], texts)
        ranked = sorted(enumerate(scores), key=lambda p: p[1], reverse=True)
        if "documents" in body:
            return {"results": [{"index": i, "relevance_score": s} for i, s in ranked]}
        return [{"index": i, "score": s} for i, s in ranked]

    with serve(app) as url:
        yield url, seen
