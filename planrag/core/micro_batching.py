"""A micro-batcher: single calls from many threads gathered into batched calls of a backend.

Callers `submit` one item under a *key* (items of one key can share one backend call: the same
model, the same collection and search parameters) and wait for its result. A background thread
sends the items of a key that arrived within `window_s` of the first of them as one call of
`run(key, items)` (at most `max_batch` items; a full batch goes at once), and hands each caller
its own result. A lone item waits at most the window (plus whatever the backend is busy with);
when the backend fails, every caller of that batch gets the error. Batches run one at a time, in
order of arrival: the backends batched here (a CPU-bound model, Milvus Lite) serve one call at
a time anyway.

Used by the query-embedding batcher (`planrag.llm.query_batching`) and the vector-search
batcher (`planrag.stores.search_batching`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")
R = TypeVar("R")

__all__ = ["MicroBatcher"]

IDLE_EXIT_S = 30.0  # the thread exits after this long without work; the next item restarts it


@dataclass
class _Group(Generic[T, R]):
    since: float  # arrival of the oldest waiting item
    items: list[tuple[T, Future[R]]] = field(default_factory=list)


class MicroBatcher(Generic[K, T, R]):
    def __init__(
        self,
        run: Callable[[K, list[T]], Sequence[R]],
        *,
        window_s: float = 0.003,
        max_batch: int = 64,
        name: str = "micro-batcher",
    ) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self._run_batch = run
        self._window_s = window_s
        self._max_batch = max_batch
        self._name = name
        self._groups: dict[K, _Group[T, R]] = {}  # in order of arrival
        self._in_flight = 0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._idle = threading.Condition(self._lock)  # notified when a batch ends
        self._thread: threading.Thread | None = None
        self._closed = False
        self.calls = 0  # batches sent to the backend (tests and benchmarks read them)
        self.items = 0  # items in them

    # ── callers ─────────────────────────────────────────────────────────────────────
    def submit(self, key: K, item: T) -> Future[R]:
        future: Future[R] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError(f"{self._name} is closed")
            group = self._groups.get(key)
            if group is None:
                group = self._groups[key] = _Group(since=time.monotonic())
            group.items.append((item, future))
            self._ensure_thread()
            self._arrived.notify()
        return future

    def call(self, key: K, item: T) -> R:
        """Submit and wait for the result (raising the backend's error)."""
        return self.submit(key, item).result()

    def busy(self) -> bool:
        """Whether items are waiting or being run."""
        with self._lock:
            return bool(self._groups) or self._in_flight > 0

    def wait_quiet(self, deadline: float) -> bool:
        """Wait (until `time.monotonic()` reaches `deadline`) for nothing to be waiting or
        running; whether it had to wait."""
        waited = False
        with self._lock:
            while (self._groups or self._in_flight) and time.monotonic() < deadline:
                waited = True
                self._idle.wait(timeout=min(0.05, max(0.0, deadline - time.monotonic())))
        return waited

    def close(self) -> None:
        """Refuse new items; those already waiting are still run."""
        with self._lock:
            self._closed = True
            self._arrived.notify()

    # ── the batching thread ────────────────────────────────────────────────────────
    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()

    def _next_batch(self) -> tuple[K, list[tuple[T, Future[R]]]] | None:
        """Wait for a batch that is due (its window passed, or full), oldest first; None when
        idle long enough to exit. Called with the lock held."""
        idle_since = time.monotonic()
        while True:
            now = time.monotonic()
            if not self._groups:
                if self._closed or now - idle_since > IDLE_EXIT_S:
                    return None
                self._arrived.wait(timeout=IDLE_EXIT_S)
                continue
            for key, group in self._groups.items():
                full = len(group.items) >= self._max_batch
                if full or self._closed or now >= group.since + self._window_s:
                    return key, self._take(key, group)
            due = min(group.since for group in self._groups.values()) + self._window_s
            self._arrived.wait(timeout=due - now)

    def _take(self, key: K, group: _Group[T, R]) -> list[tuple[T, Future[R]]]:
        """Up to `max_batch` items of a group; the rest stay due (they waited already)."""
        batch, group.items = group.items[: self._max_batch], group.items[self._max_batch :]
        if not group.items:
            del self._groups[key]
        self._in_flight += len(batch)
        return batch

    def _loop(self) -> None:
        while True:
            with self._lock:
                taken = self._next_batch()
                if taken is None:
                    self._thread = None
                    return
            key, batch = taken
            try:
                self._run(key, batch)
            finally:
                with self._lock:
                    self._in_flight -= len(batch)
                    self._idle.notify_all()

    def _run(self, key: K, batch: list[tuple[T, Future[R]]]) -> None:
        try:
            results = list(self._run_batch(key, [item for item, _ in batch]))
            if len(results) != len(batch):
                raise RuntimeError(f"{self._name}: {len(results)} results for {len(batch)} items")
        except BaseException as exc:  # every waiter of the batch learns of the failure
            for _, future in batch:
                future.set_exception(exc)
            return
        with self._lock:
            self.calls += 1
            self.items += len(batch)
        for (_, future), result in zip(batch, results, strict=True):
            future.set_result(result)
