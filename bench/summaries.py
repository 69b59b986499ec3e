"""Summaries as a user reads them: "… 요약해줘" through `POST /ai/v2/ask`.

    python -m bench.summaries [--label after] [--data-dir DIR]

A real `planrag serve` (embedded defaults: e5, hybrid search, no LLM: extractive summaries) over
our Korean fixture corpus (tests/fixtures/ko_company/*.md, the KB `answers-ko` that
`bench.answers` also builds, reused) and the 20 requests of `summary_questions.jsonl`: Korean,
English and English over Korean, each with the facts ("nuggets") a good summary of the asked
topic holds and the documents it should come from. Written before the summariser was changed;
odd ids and even ids are reported apart (a change is tuned on neither, but read on both).
With `--replay results/summaries-<label>.json` the saved passages are summarised again
in-process by the code under test (no server), to try a change; the ask path is the measure.

Per request: nugget recall (the share of its facts in the summary, matched without
case, spaces or commas), on-topic share (the summary's cited sentences whose passage comes from
one of the request's documents) and length in characters, citations left out.
`/prompt/summarize` runs the same summariser (`services/summaries.py`).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path
from typing import Any

from bench.answers import KO_DIR, _fold, ask, ensure_kb, ko_set
from bench.report import RESULTS_DIR, log, machine, write_json
from bench.server import planrag_server

QUESTIONS = KO_DIR / "summary_questions.jsonl"
CITED = re.compile(r"([^\[\]]+?)\s*((?:\[\d+\]\s*)+)")
NUMBER = re.compile(r"\[(\d+)\]")


def cited_sentences(summary: str) -> list[tuple[str, list[int]]]:
    """The summary's sentences with the passage numbers each cites."""
    return [
        (text.strip(), [int(n) for n in NUMBER.findall(marks)])
        for text, marks in CITED.findall(summary)
    ]


def score(request: dict[str, Any], summary: str, files_by_n: dict[int, str]) -> dict[str, Any]:
    folded = _fold(summary)
    found = [n for n in request["nuggets"] if _fold(n) in folded]
    sentences = cited_sentences(summary)
    on_topic = [
        any(files_by_n.get(n) in request["docs"] for n in numbers) for _, numbers in sentences
    ]
    plain = NUMBER.sub("", summary)
    return {
        "id": request["id"],
        "query": request["query"],
        "recall": len(found) / len(request["nuggets"]),
        "missing": [n for n in request["nuggets"] if n not in found],
        "on_topic": sum(on_topic) / len(on_topic) if on_topic else 0.0,
        "chars": len(" ".join(plain.split())),
        "summary": summary,
    }


def via_ask(url: str, kb: str, files: dict[str, str], request: dict[str, Any]) -> dict[str, Any]:
    """The request asked; its row keeps the passages and the plan's query for `--replay`."""
    events = ask(url, kb, request["query"])
    passages = (events.get("context") or {}).get("passages", [])
    by_n = {p["n"]: files.get(p["doc_id"], p.get("title")) for p in passages}
    plan = (events.get("search_plan") or {}).get("plan") or {}
    row = score(request, events["answer"], by_n)
    return {**row, "passages": passages, "files": by_n, "search_text": plan.get("query")}


def replay(saved: Path, questions: Path) -> list[dict[str, Any]]:
    """The summaries of a saved run's passages made again by the code under test, in-process
    (the ask's extractor: relevance floor 0.5, the KB's e5): a change is tried in seconds."""
    from planrag.llm.e5 import E5Embedder
    from planrag.services.answers import Passage
    from planrag.services.extractive import Extractor

    extractor = Extractor((), 0.5, E5Embedder(1))
    requests = {r["id"]: r for r in map(json.loads, questions.open())}
    rows = []
    for old in json.loads(saved.read_text())["rows"]:
        passages = [Passage(**p) for p in old["passages"]]
        query = old.get("search_text") or old["query"]
        summary = extractor.summary(query, passages)
        by_n = {int(n): f for n, f in old["files"].items()}
        rows.append({**score(requests[old["id"]], summary, by_n), **_kept(old)})
    return rows


def _kept(old: dict[str, Any]) -> dict[str, Any]:
    return {k: old[k] for k in ("passages", "files", "search_text")}


def asked(data_dir: Path, questions: Path) -> list[dict[str, Any]]:
    data_dir = data_dir.resolve()  # the server runs from its parent directory
    data_dir.mkdir(parents=True, exist_ok=True)
    requests = [json.loads(line) for line in questions.open()]
    with planrag_server(data_dir, RESULTS_DIR / "summaries-server.log") as server:
        docs, _ = ko_set()
        kb_id, files = ensure_kb(server.base_url, "answers-ko", docs)
        return [via_ask(server.base_url, kb_id, files, request) for request in requests]


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if not rows:
        return {}
    return {
        "n": len(rows),
        "nugget_recall": round(statistics.mean(r["recall"] for r in rows), 3),
        "on_topic": round(statistics.mean(r["on_topic"] for r in rows), 3),
        "median_chars": statistics.median(r["chars"] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="run")
    parser.add_argument("--data-dir", type=Path, default=RESULTS_DIR / "answers-data")
    parser.add_argument("--replay", type=Path, help="a saved run: summarise its passages again")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="a request file")
    args = parser.parse_args()
    rows = (
        replay(args.replay, args.questions) if args.replay else asked(args.data_dir, args.questions)
    )
    results: dict[str, Any] = {"label": args.label, "machine": machine(), "rows": rows}
    for half, keep in (("odd", 1), ("even", 0)):
        chosen = [r for r in rows if int(r["id"][2:]) % 2 == keep]
        results[half] = summarise(chosen)
    results["all"] = summarise(rows)
    path = write_json(RESULTS_DIR / f"summaries-{args.label}.json", results)
    log(f"wrote {path}")
    for row in rows:
        print(
            f"{row['id']} recall {row['recall']:.2f} on-topic {row['on_topic']:.2f} "
            f"{row['chars']:4d}  missing {row['missing']}"
        )
    for half in ("odd", "even", "all"):
        print(half, json.dumps(results[half], ensure_ascii=False))


if __name__ == "__main__":
    main()
