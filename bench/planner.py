"""Planner and ask benchmarks:

    python -m bench.planner [--docs 300] [--sequential 50] [--concurrent 200]

1. Heuristic planning latency, in process: every shared plan case and the bench's own questions,
   planned repeatedly (target < 2 ms per question).
2. A real `planrag serve` (embedded defaults, no LLM) over `--docs` dated Korean news headlines
   (../shared/data/ko_news_2017, read at run time, never committed): time to the `search_plan`
   event and to `end` for sequential asks.
3. `--concurrent` SSE asks at once: errors (non-200, `error` events, streams without `end`), wall
   time, time to the response headers, to the first event (`search_plan`) and to `end` (p50/p95),
   and the server's resident memory before and at peak (VmRSS / VmHWM). The burst's client is a
   bare asyncio HTTP/1.1 client: httpx spent ~7 ms of CPU per request on 200 connections
   (measured), on the same two cores as the server, which would time the client.
   `--compare` runs the burst twice, on fresh servers over the same data: first with
   `PLANRAG_ASK__SEARCH_CONCURRENCY=0` (no admission limit, no plan priority: the server before
   them), then with the defaults. `--data-dir DIR` keeps the filled corpus in DIR and reuses it.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import httpx  # noqa: E402

from bench.ann_measure import release_milvus_lite  # noqa: E402
from bench.report import RESULTS_DIR, log, machine, summarise_ms, write_json  # noqa: E402
from bench.server import environment, planrag_server  # noqa: E402
from planrag.core.settings import LLMSettings, PlannerSettings  # noqa: E402
from planrag.core.types import KbFacets  # noqa: E402
from planrag.llm.chat import ChatClient  # noqa: E402
from planrag.planner.planner import Planner  # noqa: E402
from planrag.planner.scope import KbInfo, PlanScope  # noqa: E402

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
NEWS_CSV = SHARED / "data" / "ko_news_2017" / "korean_newspapers_twitter_2017.csv"
NOW = "2017-08-11T18:00:00+09:00"  # the corpus ends 2017-08-11
ASK_QUESTIONS = [
    "지난주 북한 미사일 관련 기사 알려줘",
    "최근 3일 동안의 경제 뉴스",
    "8월 초 사드 배치 기사 2개만",
    "7월 말 문재인 대통령 지지율 기사",
    "어제 올라온 부동산 기사",
    "최신순으로 일자리 정책 기사 5개",
    "가장 오래된 탈원전 기사부터 보여줘",
    "이번 주 트럼프 관련 소식",
    "news about North Korea since July 25",
    "the 3 most recent articles about the economy",
]
OWN_QUESTIONS = ASK_QUESTIONS + [
    "안녕하세요",
    "고마워요!",
    "2016년 하반기 금리 보도",
    "between March 1 and March 15, 2017",
    "지난 분기 실적 발표 내용",
    "12월 말 기사 중 오래된 순으로 10개",
    '"사드 배치" 관련 기사',
]


def plan_latency(rounds: int) -> dict[str, Any]:
    shared = [json.loads(line) for line in (SHARED / "eval" / "plan_cases.jsonl").open()]
    questions = [(c["question"], datetime.fromisoformat(c["now"])) for c in shared]
    questions += [(q, datetime.fromisoformat(NOW)) for q in OWN_QUESTIONS]
    facets = KbFacets(kb_id="kb", documents=5000, authors=["chosun", "hanitweet", "kyunghyang"])
    planner = Planner(PlannerSettings(), LLMSettings(), ChatClient(LLMSettings()))
    timings: list[float] = []
    for question, now in questions:
        scope = PlanScope(
            knowledge_bases=[KbInfo(id="kb", name="news", facets=facets)],
            strategies=["ann", "keyword", "bm25", "hybrid", "2-stage"],
            now=now,
        )
        planner.plan(question, scope)  # warm the regex caches
        for _ in range(rounds):
            start = time.perf_counter()
            planner.plan(question, scope)
            timings.append(time.perf_counter() - start)
    return {"questions": len(questions), "rounds": rounds, **summarise_ms(timings)}


CONVERSATION = [
    "2024년 인사 규정 변경 알려줘",
    "그럼 작년에는?",
    "그 중 두 번째 문서 요약해줘",
    "Who is the CEO of SpaceX?",
    "and who founded it?",
    "지난주 회의록 요약해줘",
    "그럼 이번 주는?",
    "security incidents this week",
    "and last week?",
    "삼성전자 3분기 실적 알려줘",
]
FOLLOW_UPS = ["그럼 작년에는?", "두 번째 문서 요약해줘", "and who founded it?", "그 회사 전망은?"]


def conversation_latency(rounds: int) -> dict[str, Any]:
    """Planning a follow-up with 10 prior turns, no LLM: the rule carry-over (standalone
    question) plus the heuristic plan of it."""
    from planrag.planner.conversation import Source, Turn, resolve, trim_history

    now = datetime.fromisoformat(NOW)
    tz = now.tzinfo
    turns = [
        Turn(
            question=q,
            knowledge_bases=["news"],
            sources=[Source(doc_id=f"d{i}{j}", title=f"doc {j}") for j in range(5)],
            answer="답변 " * 80,
        )
        for i, q in enumerate(CONVERSATION)
    ]
    facets = KbFacets(kb_id="kb", documents=5000)
    planner = Planner(PlannerSettings(), LLMSettings(), ChatClient(LLMSettings()))
    scope = PlanScope(
        knowledge_bases=[KbInfo(id="kb", name="news", facets=facets)],
        strategies=["ann", "keyword", "bm25", "hybrid", "2-stage"],
        now=now,
    )
    timings: list[float] = []
    for question in FOLLOW_UPS:
        planner.plan(resolve(question, turns, now, tz).standalone, scope)  # warm caches
        for _ in range(rounds):
            start = time.perf_counter()
            kept = trim_history(turns, 6000)
            followup = resolve(question, kept, now, tz)
            planner.plan(followup.standalone, scope)
            timings.append(time.perf_counter() - start)
    return {"prior_turns": len(turns), "follow_ups": len(FOLLOW_UPS), **summarise_ms(timings)}


def fill(data_dir: Path, docs: int) -> int:
    """Dated headlines as documents (author = the newspaper), indexed through the product."""
    from planrag.core.settings import Settings
    from planrag.core.types import DocumentMetadata
    from planrag.runtime import Runtime
    from planrag.services.ingestion import UploadItem
    from planrag.services.knowledge_bases import KnowledgeBaseCreate

    rows = list(csv.DictReader(NEWS_CSV.open(encoding="utf-8")))[:docs]
    runtime = Runtime.open(Settings(_env_file=None, data_dir=data_dir))  # type: ignore[call-arg]
    try:
        kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="news"))
        for i, row in enumerate(rows):
            meta = DocumentMetadata(
                title=row["text"][:60], author=row["paper_name"], date=row["created"][:10]
            )
            item = UploadItem(filename=f"tweet-{i}.txt", data=row["text"].encode())
            runtime.ingestion.upload(kb.id, [item], meta)
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            statuses = {d.status for d in runtime.metadata.list_documents(kb.id)}
            if statuses <= {"completed", "error"}:
                break
            time.sleep(0.5)
        return len(rows)
    finally:
        runtime.close()
        release_milvus_lite(runtime.settings.milvus_uri)  # let the server process open the dir


async def one_ask(client: httpx.AsyncClient, question: str) -> dict[str, Any]:
    start = time.perf_counter()
    first: dict[str, float] = {}
    names: list[str] = []
    status = 0
    try:
        async with client.stream(
            "POST", "/ai/v2/ask", json={"question": question, "now": NOW}
        ) as response:
            status = response.status_code
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    name = line[6:].strip()
                    names.append(name)
                    first.setdefault(name, time.perf_counter() - start)
    except httpx.HTTPError as exc:
        names.append(f"transport:{type(exc).__name__}")
    ok = status == 200 and "error" not in names and names[-1:] == ["end"]
    return {"ok": ok, "status": status, "events": names, "first": first}


async def raw_ask(host: str, port: int, question: str) -> dict[str, Any]:
    """One SSE ask over a bare connection: the times to the headers and to each first event."""
    body = json.dumps({"question": question, "now": NOW}, ensure_ascii=False).encode()
    head = (
        "POST /ai/v2/ask HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        f"Accept: text/event-stream\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    start = time.perf_counter()
    first: dict[str, float] = {}
    names: list[str] = []
    status = 0
    try:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(head.encode() + body)
        status = int((await reader.readline()).split()[1])
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        first["headers"] = time.perf_counter() - start
        while line := await reader.readline():  # chunk-size lines never start with "event:"
            if line.startswith(b"event:"):
                name = line[6:].strip().decode()
                names.append(name)
                first.setdefault(name, time.perf_counter() - start)
                if name in ("end", "error"):
                    break
        writer.close()
    except (OSError, ValueError, IndexError) as exc:
        names.append(f"transport:{type(exc).__name__}")
    ok = status == 200 and "error" not in names and names[-1:] == ["end"]
    return {"ok": ok, "status": status, "events": names, "first": first}


def rss_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS", "VmHWM")):
            key, value = line.split(":")
            fields[key] = int(value.split()[0])
    return fields


async def sequential(base_url: str, n: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base_url, timeout=300) as client:
        await one_ask(client, ASK_QUESTIONS[0])  # warm: model, Kiwi, BM25 index
        results = [await one_ask(client, ASK_QUESTIONS[i % len(ASK_QUESTIONS)]) for i in range(n)]
    return {
        "asks": n,
        "errors": sum(not r["ok"] for r in results),
        "search_plan": summarise_ms([r["first"]["search_plan"] for r in results]),
        "end": summarise_ms([r["first"]["end"] for r in results if "end" in r["first"]]),
    }


async def concurrent(base_url: str, pid: int, n: int) -> dict[str, Any]:
    host, port = base_url.removeprefix("http://").split(":")
    for question in ASK_QUESTIONS:  # warm: model, Kiwi, BM25 index, every question's path
        await raw_ask(host, int(port), question)
    before = rss_kib(pid)
    start = time.perf_counter()
    results = await asyncio.gather(
        *(raw_ask(host, int(port), ASK_QUESTIONS[i % len(ASK_QUESTIONS)]) for i in range(n))
    )
    wall = time.perf_counter() - start
    after = rss_kib(pid)
    failures = [r for r in results if not r["ok"]]

    def times(name: str) -> dict[str, float]:
        return summarise_ms([r["first"][name] for r in results if name in r["first"]])

    return {
        "asks": n,
        "errors": len(failures),
        "error_samples": failures[:3],
        "wall_s": round(wall, 2),
        "headers": times("headers"),
        "search_plan": times("search_plan"),
        "end": times("end"),
        "rss_mib_before": round(before["VmRSS"] / 1024, 1),
        "rss_mib_after": round(after["VmRSS"] / 1024, 1),
        "rss_mib_peak": round(after["VmHWM"] / 1024, 1),
    }


FILLED = "bench-planner-docs"  # marks a data dir `fill` completed


def burst(data_dir: Path, tmp: Path, env: dict[str, str], n: int) -> dict[str, Any]:
    """`n` concurrent asks against a fresh server started with `env` over `data_dir`."""
    with environment(env), planrag_server(data_dir, tmp / "server.log") as server:
        return {"env": env, **asyncio.run(concurrent(server.base_url, server.pid, n))}


def headline(run: dict[str, Any]) -> str:
    def p(name: str) -> str:
        return f"{run[name]['p50_ms'] / 1000:.2f} / {run[name]['p95_ms'] / 1000:.2f} s"

    return (
        f"{run['asks']} asks, {run['errors']} errors, wall {run['wall_s']} s; p50 / p95 to the "
        f"first event (search_plan) {p('search_plan')}, to end {p('end')}, headers {p('headers')}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--sequential", type=int, default=50)
    parser.add_argument("--concurrent", type=int, default=200)
    parser.add_argument("--planning-only", action="store_true", help="no server, no asks")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="the burst with the admission limit and plan priority off, then on (the defaults)",
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="keep (and reuse) the filled corpus here"
    )
    args = parser.parse_args()
    report: dict[str, Any] = {"machine": machine()}
    report["heuristic_planning"] = plan_latency(args.rounds)
    log(f"heuristic planning: {report['heuristic_planning']}")
    report["conversation_planning"] = conversation_latency(args.rounds)
    log(f"follow-up planning with 10 prior turns: {report['conversation_planning']}")
    if args.planning_only:
        write_json(RESULTS_DIR / "planner.json", report)
        return
    with tempfile.TemporaryDirectory(prefix="planrag-bench-ask-") as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        started = time.perf_counter()
        if not (data_dir / FILLED).exists():
            report["docs"] = fill(data_dir, args.docs)
            (data_dir / FILLED).write_text(str(report["docs"]))
        report["docs"] = int((data_dir / FILLED).read_text())
        report["fill_s"] = round(time.perf_counter() - started, 1)
        with planrag_server(data_dir, Path(tmp) / "server.log") as server:
            if args.sequential:
                report["sequential"] = asyncio.run(sequential(server.base_url, args.sequential))
                log(f"sequential: {report['sequential']}")
        runs = {"off": {"PLANRAG_ASK__SEARCH_CONCURRENCY": "0"}, "on": {}} if args.compare else {}
        for label, env in (runs or {"defaults": {}}).items():
            report[f"concurrent_{label}"] = burst(data_dir, Path(tmp), env, args.concurrent)
            log(f"concurrent ({label}): {report[f'concurrent_{label}']}")
        for label in runs or {"defaults": {}}:
            log(f"{label:>8}: " + headline(report[f"concurrent_{label}"]))
    path = write_json(RESULTS_DIR / "planner.json", report)
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
