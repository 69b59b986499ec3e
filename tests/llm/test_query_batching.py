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


class RecordingEmbedder:
    """The real model, recording the order of its calls (passages and questions)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.calls: list[str] = []
        self.first_passages = threading.Event()

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.first_passages.set()
        vectors = self.inner.embed(texts)
        self.calls.append("passages")
        return vectors

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        vectors = self.inner.embed_queries(texts)
        self.calls.append("question")
        return vectors


def test_a_question_goes_before_the_rest_of_an_indexing_batch(embedders: EmbedderRegistry) -> None:
    """Indexing embeds in slices that give way to questions: a question asked while a long
    document is being embedded is answered after one slice, not after the whole document."""
    model = RecordingEmbedder(embedders.get().inner)
    batcher = BatchingEmbedder(model, bulk_slice_s=0.0)  # one passage per slice after the first
    passages = [f"문단 {i}: 연차 휴가는 입사 첫해 15일이다." for i in range(12)]
    done: list[list[float]] = []
    indexing = threading.Thread(target=lambda: done.extend(batcher.embed(passages)))
    indexing.start()
    assert model.first_passages.wait(timeout=60)
    question = batcher.embed_queries(["연차 휴가는 며칠?"])
    indexing.join(timeout=120)
    assert model.calls.count("question") == 1
    asked = model.calls.index("question")
    assert "passages" in model.calls[asked + 1 :]  # indexing resumed after the question
    assert batcher.bulk_waits >= 1
    assert np.allclose(done, model.inner.embed(passages), atol=1e-5)
    assert np.allclose(question, model.inner.embed_queries(["연차 휴가는 며칠?"]), atol=1e-5)
