"""Admission of an ask's stages under load: the first event before other asks' searches.

An ask's front work (reading its scope from the metadata DB, planning) is a few milliseconds; its
search (query embedding, BM25 with Kiwi, the vector store, the extractive answer) is tens. Under a
burst both compete for two cores and one GIL, so without an order every ask's first event waits
for a share of everybody's searches. `StageAdmission` gives the front work priority: searches run
on a pool of `search_concurrency` threads (asks beyond it wait in the queue, holding no thread),
and while any front work is queued or running only one admitted search runs, the others wait.
Fronts are short and finite, so searches are slowed, never stopped.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class FrontCounter:
    """How much front work is queued or running, and the searches' turns around it."""

    def __init__(self) -> None:
        self._pending = 0
        self._searching = 0
        self._idle = threading.Condition()

    @property
    def pending(self) -> int:
        return self._pending

    def enter(self) -> None:
        with self._idle:
            self._pending += 1

    def leave(self) -> None:
        with self._idle:
            self._pending -= 1
            if self._pending <= 0:
                self._pending = 0
                self._idle.notify_all()

    def search_started(self) -> None:
        """Wait for a search's turn: at once when no front work is pending, or when no other
        search runs (one search keeps going meanwhile: much of it — the embedding engine, the
        vector store — is native code that would otherwise leave a core idle while the fronts,
        all Python, take turns on the GIL)."""
        with self._idle:
            self._idle.wait_for(lambda: self._pending == 0 or self._searching == 0)
            self._searching += 1

    def search_done(self) -> None:
        with self._idle:
            self._searching -= 1
            self._idle.notify_all()


class StageAdmission:
    """Where an ask's stages run: `front` on the front threads, ahead of `search` on at most
    `search_concurrency` threads. `search_concurrency=0` is the behaviour before this class: no
    limit (the loop's default pool) and no priority."""

    def __init__(self, front_threads: int, search_concurrency: int, fronts_first: bool) -> None:
        self._front_pool = ThreadPoolExecutor(front_threads, thread_name_prefix="ask-front")
        self.limit = search_concurrency
        self._search_pool = (
            ThreadPoolExecutor(search_concurrency, thread_name_prefix="ask-search")
            if search_concurrency
            else None
        )
        self.fronts = FrontCounter() if fronts_first and search_concurrency else None

    async def front(self, work: Callable[[], T]) -> T:
        """`work` before an ask's first event (metadata reads, planning), on a front thread."""
        loop = asyncio.get_running_loop()
        if self.fronts is None:
            return await loop.run_in_executor(self._front_pool, work)
        self.fronts.enter()
        future = loop.run_in_executor(self._front_pool, work)
        # done or cancelled (even before it ran): the count never leaks
        future.add_done_callback(lambda _: self.fronts.leave() if self.fronts else None)
        return await future

    async def search(self, work: Callable[[], T]) -> T:
        """CPU-heavy `work` of an ask (search, evidence, extractive answer) once admitted; never
        on the event loop."""
        if self._search_pool is None:
            return await asyncio.to_thread(work)
        fronts = self.fronts

        def after_fronts() -> T:
            if fronts is None:
                return work()
            fronts.search_started()
            try:
                return work()
            finally:
                fronts.search_done()

        return await asyncio.get_running_loop().run_in_executor(self._search_pool, after_fronts)

    def close(self) -> None:
        self._front_pool.shutdown(wait=False, cancel_futures=True)
        if self._search_pool is not None:
            self._search_pool.shutdown(wait=False, cancel_futures=True)
