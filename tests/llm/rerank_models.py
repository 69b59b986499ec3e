"""A small, seeded, randomly initialised cross-encoder written by the test itself (a BERT
sequence classifier shaped like ms-marco-MiniLM-L-6-v2, scaled down, and a WordPiece
tokenizer over a vocabulary built here), and a real rerank HTTP server in the TEI and Jina
shapes backed by it. Nothing is read from outside the checkout; scores are meaningless,
plumbing is real."""

from __future__ import annotations

import string
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.servers import serve

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# Common Hangul syllables of the test texts; anything else becomes [UNK] (fine for plumbing).
HANGUL = (
    "가각간갈감강개거검게겠고공과관교구국그근기김나남내너네노는늘니다단달담대더데도동"
    "되된될두드든들등디따때또라란람러레로록론료류르를리마만말매메면명모무문물미민바반"
    "발방배버법변보부분비사산상새서선설성세소수스습시신실심아안않알야약양어언얼업없었"
    "에여역연열영예오와완요용우운원위유으은을음의이인일임입있자작장재저적전정제조종주"
    "중지직진질차참책처천체초최추치카커코크키타터테토통트파판퍼페포표프피하한할함합해"
    "했행향현형호화확회후히"
)
PUNCTUATION = string.punctuation


def _vocabulary() -> list[str]:
    singles = list(string.ascii_lowercase + string.digits + PUNCTUATION + HANGUL)
    words = ["the", "cat", "sat", "on", "mat", "where", "is", "stocks", "fell", "monday"]
    return SPECIAL_TOKENS + singles + [f"##{s}" for s in singles] + words


def build_random_cross_encoder(target: Path, layers: int = 2, seed: int = 13) -> Path:
    """Write a loadable cross-encoder (weights, config, tokenizer) to `target`."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    target.mkdir(parents=True, exist_ok=True)
    vocab_file = target / "vocab.txt"
    vocab_file.write_text("\n".join(_vocabulary()) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab_file), do_lower_case=True)
    tokenizer.model_max_length = 512
    tokenizer.save_pretrained(target)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=64,
        num_hidden_layers=layers,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=512,
        num_labels=1,
        pad_token_id=0,
        architectures=["BertForSequenceClassification"],
    )
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(target)
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
