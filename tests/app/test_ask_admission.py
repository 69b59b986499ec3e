"""POST /ai/v2/ask under held searches (a real uvicorn server): a new ask still gets its
`search_plan` while every admitted search is blocked, searches never exceed
`ask.search_concurrency`, and every ask then ends with its events complete and in order."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from planrag.app.main import create_app
from planrag.core.settings import AskSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.kb_fill import fill_kb
from tests.app.sse import events
from tests.servers import serve

NOW = "2025-11-21T10:00:00+09:00"
DOCS = [
    ("chips.md", "반도체 수출이 9월에 크게 늘었다. 메모리 반도체 가격이 상승했다.",
     {"date": "20250925", "author": "연합뉴스", "title": "반도체 수출"}),
    ("rates.md", "The central bank raised interest rates by 0.25 percentage points.",
     {"date": "20251112", "author": "Reuters", "title": "Interest rates"}),
]  # fmt: skip
LIMIT = 2
ORDER = ["search_plan", "search_result", "exist_in_post_status", "context", "answer", "end"]
WAIT = 60.0  # bounds waits that must end, so a regression fails instead of hanging


class HeldSearches:
    """Wraps the plan executor: every search blocks until released; counts how many ran."""

    def __init__(self, execute: Any) -> None:
        self._execute = execute
        self.release = threading.Event()
        self.started = threading.Semaphore(0)
        self.running = self.peak = 0
        self._lock = threading.Lock()

    def __call__(self, *args: Any) -> Any:
        with self._lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        self.started.release()
        try:
            assert self.release.wait(WAIT)
            return self._execute(*args)
        finally:
            with self._lock:
                self.running -= 1


@pytest.fixture(scope="module")
def server(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[tuple[str, Any]]:
    tmp: Path = tmp_path_factory.mktemp("admission")
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp, ask=AskSettings(search_concurrency=LIMIT)
    )
    app = create_app(settings, embedders)
    with serve(app) as url:
        fill_kb(url, "news", DOCS)
        yield url, app.state.runtime.ask


def ask_events(url: str, question: str) -> list[str]:
    body = {"question": question, "now": NOW}
    with httpx.stream("POST", f"{url}/ai/v2/ask", json=body, timeout=WAIT * 2) as response:
        assert response.status_code == 200
        return [name for name, _ in events(response)]


def first_event(url: str, question: str) -> tuple[str, dict]:
    body = {"question": question, "now": NOW}
    with httpx.stream("POST", f"{url}/ai/v2/ask", json=body, timeout=WAIT) as response:
        assert response.status_code == 200
        return next(events(response))


def test_a_new_ask_gets_its_plan_while_every_search_is_held(server, monkeypatch) -> None:
    url, asking = server
    held = HeldSearches(asking._executor.execute)
    monkeypatch.setattr(asking._executor, "execute", held)
    questions = ["반도체 수출 알려줘", "interest rates news", "9월 반도체 기사", "central bank"]
    with ThreadPoolExecutor(len(questions)) as pool:
        waiting = [pool.submit(ask_events, url, q) for q in questions]
        for _ in range(LIMIT):  # the admitted searches are running (and held)
            assert held.started.acquire(timeout=WAIT)
        name, data = first_event(url, "메모리 가격 기사")  # planned while searches are held
        assert name == "search_plan"
        assert data["plan"]["knowledge_bases"] == ["news"]
        assert held.running == LIMIT  # the other asks wait for a turn, not in a search
        held.release.set()
        results = [future.result(timeout=WAIT * 2) for future in waiting]
    assert held.peak == LIMIT
    for names in results:  # nothing lost, nothing reordered
        assert list(dict.fromkeys(names)) == ORDER  # answer* may repeat, in its place


def test_a_trace_is_stored_before_end_arrives(server) -> None:
    url, _ = server
    body = {"question": "반도체 수출", "now": NOW}
    with httpx.stream("POST", f"{url}/ai/v2/ask", json=body, timeout=WAIT) as response:
        for name, data in events(response):
            if name == "end":  # read while the stream is still open
                trace = httpx.get(f"{url}/ai/v2/traces/{data['trace_id']}", timeout=WAIT)
                assert trace.status_code == 200
                assert trace.json()["status"] == "ok"
                assert "search_wait" in trace.json()["data"]["timings_ms"]
