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
        self._in_flight = 0  # questions being embedded now
        self._quiet = threading.Condition(threading.Lock())  # signalled when questions finish
        self.bulk_slices = 0  # slices of passages sent to the model (tests read it)
        self.bulk_waits = 0  # slices that waited for questions first
        self._window_s = window_s
        self._max_batch = max_batch
        self._cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._waiting: list[tuple[str, Future[list[float]]]] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self.model_calls = 0  # batches sent to the model (tests and benchmarks read it)

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

    def _questions_pending(self) -> bool:
        with self._lock:
            return bool(self._waiting) or self._in_flight > 0

    def _give_way(self) -> None:
        """Wait while questions wait or are embedded (at most `bulk_max_wait_s` in a row, so
        indexing still advances under a steady stream of questions)."""
        deadline = time.monotonic() + self._bulk_max_wait_s
        waited = False
        with self._quiet:
            while self._questions_pending() and time.monotonic() < deadline:
                waited = True
                self._quiet.wait(timeout=0.05)
        self.bulk_slices += 1
        self.bulk_waits += waited

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        futures: list[Future[list[float]]] = []
        with self._lock:
            for text in texts:
                future: Future[list[float]] = Future()
                cached = self._cache.get(text)
                if cached is not None:
                    self._cache.move_to_end(text)
                    future.set_result(cached)
                else:
                    self._waiting.append((text, future))
                futures.append(future)
            if any(not f.done() for f in futures):
                self._ensure_thread()
                self._arrived.notify()
        return [f.result() for f in futures]

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="query-batcher", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._waiting:
                    if not self._arrived.wait(timeout=30):
                        self._thread = None  # idle: exit; the next query starts a new one
                        return
            time.sleep(self._window_s)  # let the rest of a burst arrive
            with self._lock:
                batch, self._waiting = (
                    self._waiting[: self._max_batch],
                    self._waiting[self._max_batch :],
                )
                self._in_flight += len(batch)
            try:
                self._embed_batch(batch)
            finally:
                with self._lock:
                    self._in_flight -= len(batch)
                with self._quiet:
                    self._quiet.notify_all()

    def _embed_batch(self, batch: list[tuple[str, Future[list[float]]]]) -> None:
        unique = list(dict.fromkeys(text for text, _ in batch))
        try:
            vectors = dict(zip(unique, self.inner.embed_queries(unique), strict=True))
        except BaseException as exc:  # every waiter learns of the failure
            for _, future in batch:
                future.set_exception(exc)
            return
        with self._lock:
            self.model_calls += 1
            for text, vector in vectors.items():
                self._cache[text] = vector
                self._cache.move_to_end(text)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        for text, future in batch:
            future.set_result(vectors[text])
