"""StageAdmission: searches bounded and behind front work; front work never waits for searches.
Searches are held on events, so nothing here depends on timing."""

from __future__ import annotations

import asyncio
import threading

from planrag.services.admission import StageAdmission

WAIT = 30.0  # a bound on waits that must end (a hang fails instead of blocking the suite)


class Held:
    """Work that blocks until released, recording how many ran at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.running = 0
        self.peak = 0
        self.started = threading.Semaphore(0)
        self._lock = threading.Lock()

    def work(self, value: int) -> int:
        with self._lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        self.started.release()
        assert self.release.wait(WAIT)
        with self._lock:
            self.running -= 1
        return value


def test_the_limit_bounds_concurrent_searches_and_every_result_comes_back() -> None:
    held = Held()
    stages = StageAdmission(front_threads=2, search_concurrency=2, fronts_first=True)

    async def main() -> list[int]:
        tasks = [asyncio.create_task(stages.search(lambda i=i: held.work(i))) for i in range(8)]
        for _ in range(2):  # two start; the other six wait in the queue, holding no thread
            assert await asyncio.to_thread(held.started.acquire, True, WAIT)
        assert held.running == 2
        held.release.set()
        return await asyncio.gather(*tasks)

    try:
        assert asyncio.run(main()) == list(range(8))
        assert held.peak == 2
    finally:
        stages.close()


def test_front_work_runs_while_every_search_slot_is_held() -> None:
    held = Held()
    stages = StageAdmission(front_threads=2, search_concurrency=1, fronts_first=True)

    async def main() -> str:
        searches = [asyncio.create_task(stages.search(lambda: held.work(0))) for _ in range(3)]
        assert await asyncio.to_thread(held.started.acquire, True, WAIT)
        planned = await stages.front(lambda: "plan")  # not queued behind the searches
        held.release.set()
        await asyncio.gather(*searches)
        return planned

    try:
        assert asyncio.run(main()) == "plan"
    finally:
        stages.close()


def test_while_front_work_is_pending_only_one_search_runs() -> None:
    front_release = threading.Event()
    held = Held()
    order: list[str] = []
    stages = StageAdmission(front_threads=2, search_concurrency=3, fronts_first=True)

    def front() -> None:
        assert front_release.wait(WAIT)
        order.append("front")

    async def main() -> None:
        planning = asyncio.create_task(stages.front(front))
        await asyncio.sleep(0)  # the front is counted from the call on
        first = asyncio.create_task(stages.search(lambda: held.work(0)))
        assert await asyncio.to_thread(held.started.acquire, True, WAIT)  # one search runs
        second = asyncio.create_task(stages.search(lambda: order.append("search")))
        await asyncio.sleep(0.05)
        assert order == []  # admitted (a free thread) but waiting for the plan
        front_release.set()
        await asyncio.gather(planning, second)
        held.release.set()
        await first

    try:
        asyncio.run(main())
        assert order == ["front", "search"]
        assert stages.fronts is not None and stages.fronts.pending == 0
    finally:
        stages.close()


def test_a_cancelled_front_leaves_no_count_behind() -> None:
    blocker = threading.Event()
    stages = StageAdmission(front_threads=1, search_concurrency=1, fronts_first=True)

    async def main() -> str:
        running = asyncio.create_task(stages.front(lambda: blocker.wait(WAIT)))
        queued = asyncio.create_task(stages.front(lambda: "never"))
        await asyncio.sleep(0)
        queued.cancel()  # cancelled while waiting for the one front thread
        blocker.set()
        await running
        return await stages.search(lambda: "searched")  # would wait forever on a leaked count

    try:
        assert asyncio.run(main()) == "searched"
        assert stages.fronts is not None and stages.fronts.pending == 0
    finally:
        stages.close()


def test_without_a_limit_there_is_no_priority_and_searches_still_run() -> None:
    stages = StageAdmission(front_threads=1, search_concurrency=0, fronts_first=True)

    async def main() -> tuple[str, str]:
        return await stages.front(lambda: "plan"), await stages.search(lambda: "hits")

    try:
        assert stages.fronts is None
        assert asyncio.run(main()) == ("plan", "hits")
    finally:
        stages.close()
