"""The query micro-batcher: concurrent questions share model calls, results match the model's
own, repeated questions come from the cache, and a model failure reaches every waiter."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from planrag.llm.embedders import EmbedderRegistry
from planrag.llm.query_batching import BatchingEmbedder


class CountingEmbedder:
    """Wraps the real model and counts the batches it is given."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.batches: list[int] = []
        self.fail = False
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed(texts)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            self.batches.append(len(texts))
        if self.fail:
            raise RuntimeError("model crashed")
        return self.inner.embed_queries(texts)


@pytest.fixture
def model(embedders: EmbedderRegistry) -> CountingEmbedder:
    return CountingEmbedder(embedders.get())


def test_concurrent_queries_share_model_calls_and_match_the_model(model: CountingEmbedder) -> None:
    batcher = BatchingEmbedder(model, window_s=0.05)
    questions = [f"질문 {i}: 연차 휴가는 며칠인가요?" for i in range(24)]
    with ThreadPoolExecutor(max_workers=24) as pool:
        vectors = list(pool.map(lambda q: batcher.embed_queries([q])[0], questions))
    assert len(model.batches) < len(questions)  # shared calls
    assert sum(model.batches) == len(questions)
    direct = model.inner.embed_queries(questions)
    assert np.allclose(np.asarray(vectors), np.asarray(direct), atol=1e-4)


def test_repeated_questions_come_from_the_cache(model: CountingEmbedder) -> None:
    batcher = BatchingEmbedder(model, window_s=0.0, cache_size=2)
    first = batcher.embed_queries(["one"])[0]
    calls = len(model.batches)
    assert batcher.embed_queries(["one"])[0] == first
    assert len(model.batches) == calls
    batcher.embed_queries(["two"])
    batcher.embed_queries(["three"])  # "one" is evicted (LRU of 2)
    batcher.embed_queries(["one"])
    assert len(model.batches) == calls + 3


def test_a_model_failure_reaches_every_waiter(model: CountingEmbedder) -> None:
    batcher = BatchingEmbedder(model, window_s=0.05)
    model.fail = True
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(batcher.embed_queries, [f"q{i}"]) for i in range(4)]
    for future in futures:
        with pytest.raises(RuntimeError, match="model crashed"):
            future.result()
    model.fail = False
    assert batcher.embed_queries(["q0"])  # the batcher still works afterwards


def test_passages_pass_straight_through(model: CountingEmbedder) -> None:
    batcher = BatchingEmbedder(model)
    assert batcher.embed(["본문"]) == model.inner.embed(["본문"])
    assert model.batches == []
    assert batcher.dimension == model.dimension
