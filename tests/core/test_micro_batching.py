"""The micro-batcher under the query-embedding and vector-search batchers: items of one key go
in one call, keys never mix, a full batch goes without waiting out the window, results come
back to their own callers."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from planrag.core.micro_batching import MicroBatcher


def test_keys_never_mix_and_full_batches_split() -> None:
    calls: list[tuple[str, list[int]]] = []
    lock = threading.Lock()

    def run(key: str, items: list[int]) -> list[str]:
        with lock:
            calls.append((key, items))
        return [f"{key}{item}" for item in items]

    batcher: MicroBatcher[str, int, str] = MicroBatcher(run, window_s=30.0, max_batch=3)
    jobs = [("a", i) for i in range(6)] + [("b", i) for i in range(3)]
    start = threading.Barrier(len(jobs))

    def submit(job: tuple[str, int]) -> str:
        start.wait()
        return batcher.call(*job)

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        results = list(pool.map(submit, jobs))
    assert results == [f"{key}{item}" for key, item in jobs]
    assert sorted((key, len(items)) for key, items in calls) == [("a", 3), ("a", 3), ("b", 3)]
    assert (batcher.calls, batcher.items) == (3, 9)
    assert not batcher.busy()


def test_a_lone_item_goes_after_the_window_and_errors_reach_the_caller() -> None:
    def run(key: None, items: list[int]) -> list[int]:
        if any(item < 0 for item in items):
            raise ValueError("negative")
        return [item * 2 for item in items]

    batcher: MicroBatcher[None, int, int] = MicroBatcher(run, window_s=0.01, max_batch=64)
    assert batcher.call(None, 21) == 42
    with pytest.raises(ValueError, match="negative"):
        batcher.call(None, -1)
    batcher.close()
    with pytest.raises(RuntimeError, match="closed"):
        batcher.submit(None, 1)
