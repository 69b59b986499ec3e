"""Query embeddings under bursts: a micro-batcher and a cache in front of any `Embedder`.

Many concurrent asks each embed one short question. One model call per question wastes the model's
batching and makes every caller queue for the CPU separately; here the questions that arrive within
a short window (`window_s`, default 3 ms) go to the model as one batch, and the vectors of recent
questions are kept (an LRU of `cache_size`), so a repeated question costs no model call at all.

Questions come first. Passages (`embed`, indexing) go to the model in slices of about
`bulk_slice_s` of work each, and a slice starts only when no question is waiting or being
embedded: a search waits for at most one slice of indexing, never for a whole document (a 1 MB
Korean text used to hold the model for a minute). The slice size adapts to the measured time
per passage.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from concurrent.futures import Future

from planrag.core.micro_batching import MicroBatcher
from planrag.llm.embedders import Embedder

__all__ = ["BatchingEmbedder"]


class BatchingEmbedder:
    def __init__(
        self,
        inner: Embedder,
        *,
        window_s: float = 0.003,
        max_batch: int = 64,
        cache_size: int = 2048,
        bulk_slice_s: float = 0.2,
        bulk_max_wait_s: float = 2.0,
    ) -> None:
        self.inner = inner
        self.name: str = str(getattr(inner, "name", type(inner).__name__))
        self._bulk_slice_s = bulk_slice_s
        self._bulk_max_wait_s = bulk_max_wait_s
        self._per_passage_s: float | None = None  # measured, smoothed
        self.bulk_slices = 0  # slices of passages sent to the model (tests read it)
        self.bulk_waits = 0  # slices that waited for questions first
        self._cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()
        # One key: every question can share a model call with every other.
        self._batcher: MicroBatcher[None, str, list[float]] = MicroBatcher(
            self._embed_batch, window_s=window_s, max_batch=max_batch, name="query-batcher"
        )

    @property
    def model_calls(self) -> int:
        """Batches of questions sent to the model (tests and benchmarks read it)."""
        return self._batcher.calls

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def __getattr__(self, name: str) -> object:
        """Anything else (a model's name, its settings) is the wrapped embedder's."""
        if name == "inner":  # not set yet (during unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Passages, in slices that give way to questions (see the module's docstring)."""
        vectors: list[list[float]] = []
        start = 0
        while start < len(texts):
            part = texts[start : start + self._slice_size()]
            self._give_way()
            began = time.perf_counter()
            vectors += self.inner.embed(part)
            self._learn((time.perf_counter() - began) / len(part))
            start += len(part)
        return vectors

    def _slice_size(self) -> int:
        if self._per_passage_s is None:
            return 4  # first slice: small, to measure
        return max(1, min(256, int(self._bulk_slice_s / max(self._per_passage_s, 1e-6))))

    def _learn(self, seconds_per_passage: float) -> None:
        known = self._per_passage_s
        self._per_passage_s = (
            seconds_per_passage if known is None else 0.7 * known + 0.3 * seconds_per_passage
        )

    def _give_way(self) -> None:
        """Wait while questions wait or are embedded (at most `bulk_max_wait_s` in a row, so
        indexing still advances under a steady stream of questions)."""
        waited = self._batcher.wait_quiet(time.monotonic() + self._bulk_max_wait_s)
        self.bulk_slices += 1
        self.bulk_waits += waited

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        futures: list[Future[list[float]]] = []
        for text in texts:
            with self._lock:
                cached = self._cache.get(text)
                if cached is not None:
                    self._cache.move_to_end(text)
            if cached is not None:
                future: Future[list[float]] = Future()
                future.set_result(cached)
            else:
                future = self._batcher.submit(None, text)
            futures.append(future)
        return [f.result() for f in futures]

    def _embed_batch(self, _: None, batch: list[str]) -> list[list[float]]:
        unique = list(dict.fromkeys(batch))
        vectors = dict(zip(unique, self.inner.embed_queries(unique), strict=True))
        with self._lock:
            for text, vector in vectors.items():
                self._cache[text] = vector
                self._cache.move_to_end(text)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return [vectors[text] for text in batch]
