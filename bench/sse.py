"""A burst of concurrent SSE asks across 2 API processes (bench.scale's phase `sse`).

`planrag serve --workers 2 --no-worker` over the shared stores, a KB that already has
documents, no LLM (extractive answers). `asks` clients connect at once (one connection each,
spread over the two processes by the kernel, as uvicorn's workers share one socket) and each
posts one `/ai/v2/ask` and reads the whole stream. Per ask: the time to the first SSE event
(the first `event:` line received), and to the end of the stream. An ask counts as an error
when the status is not 200, the stream carries an `error` event or no `end` event, or the
connection fails. RSS of every API process before the burst, after it, and its peak (sampled
every second), and the CPU seconds of each process group during the burst. Before the burst,
two bursts of 50 asks warm both processes up (their first asks load the e5 model).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.report import load_average, log, summarise_ms
from bench.scale import QUERIES
from bench.stack import Stack, api

ASK_TIMEOUT_S = 900.0


async def one_ask(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    first: float | None = None
    events: Counter[str] = Counter()
    try:
        async with client.stream("POST", f"{url}/ai/v2/ask", json=body) as response:
            if response.status_code != 200:
                await response.aread()
                return {"error": f"HTTP {response.status_code}"}
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    first = first or time.perf_counter()
                    events[line.split(":", 1)[1].strip()] += 1
    except httpx.HTTPError as exc:
        return {"error": type(exc).__name__}
    if events["error"]:
        return {"error": "error event"}
    if not events["end"]:
        return {"error": "no end event"}
    ended = time.perf_counter()
    return {"first_s": (first or ended) - started, "end_s": ended - started}


async def burst(url: str, kb_name: str, asks: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=asks + 10, max_keepalive_connections=asks + 10)
    timeout = httpx.Timeout(ASK_TIMEOUT_S, connect=120.0)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        started = time.perf_counter()
        results = await asyncio.gather(
            *(
                one_ask(client, url, {"question": QUERIES[i % len(QUERIES)],
                                      "knowledge_bases": [kb_name]})
                for i in range(asks)
            )
        )  # fmt: skip
        elapsed = time.perf_counter() - started
    ok = [r for r in results if "error" not in r]
    errors = Counter(r["error"] for r in results if "error" in r)
    return {
        "asks": asks,
        "errors": sum(errors.values()),
        "errors_by_kind": dict(errors),
        "seconds": round(elapsed, 1),
        "first_event": summarise_ms([r["first_s"] for r in ok]) if ok else None,
        "end": summarise_ms([r["end_s"] for r in ok]) if ok else None,
    }


def rss_of_api(snapshot: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"pid": p["pid"], "role": p["role"], "rss_mb": p["rss_mb"]} for p in snapshot["api"]]


def run(stack: Stack, kb_name: str, asks: int, logs: Path) -> dict[str, Any]:
    """`asks` concurrent asks against 2 API processes; the figures above."""
    with api(stack.env, 2, logs / "api-sse.log") as server:
        meter = stack.meter(api=lambda: [server.pid])
        # first asks load what each process loads lazily (the e5 model, a KB's BM25 index):
        # two bursts on new connections, which the kernel spreads over both processes
        warm = [asyncio.run(burst(server.url, kb_name, min(asks, 50))) for _ in range(2)]
        before = rss_of_api(meter.snapshot())
        load_before = load_average()
        meter.start()
        result = asyncio.run(burst(server.url, kb_name, asks))
        cpu = meter.stop()
        after = rss_of_api(meter.snapshot())
    peaks = {p["pid"]: p["peak_rss_mb"] for p in cpu["processes"] if p["group"] == "api"}
    result.update(
        warm_up_errors=sum(w["errors"] for w in warm),
        rss_api_mb=[
            {**b, "rss_mb_after": next((a["rss_mb"] for a in after if a["pid"] == b["pid"]), None),
             "rss_mb_peak": peaks.get(b["pid"])}
            for b in before
        ],
        cpu=cpu,
        load_before=load_before,
        load_after=load_average(),
    )  # fmt: skip
    log(f"sse, {asks} concurrent asks over 2 API processes: {result}")
    return result
