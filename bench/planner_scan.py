"""How often the rule planner changes a question that does not ask for documents by time, count or
order (issue 23): every question of the evaluation sets in ../shared/data plus our own written
set (bench/fixtures/world_questions.txt), planned by the heuristic planner and the policy.

    python -m bench.planner_scan [--out FILE.json] [--examples 8]

Rates: a time filter (spurious: none of these questions scopes documents by date), a limit or a
sort, the search text changed (`plan.query` set and different from the question), and a direct
answer (no search). Prints a markdown table and examples of what is left. To measure another
revision, put its `planrag/` first on PYTHONPATH (`git archive REV planrag | tar -x -C DIR`).
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bench.corpus import DEFAULT_DATA_DIR  # noqa: E402
from bench.datasets import BEIR_SETS, RESULTS, smart_records  # noqa: E402
from bench.report import markdown_table, revision  # noqa: E402
from planrag.core.settings import PlannerSettings  # noqa: E402
from planrag.core.types import KbFacets  # noqa: E402
from planrag.planner.heuristic import HeuristicPlanner  # noqa: E402
from planrag.planner.policy import apply_policy  # noqa: E402
from planrag.planner.scope import KbInfo, PlanScope  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "world_questions.txt"
NOW = datetime(2025, 11, 21, 10, 0, tzinfo=ZoneInfo("Asia/Seoul"))


def questions(data_dir: Path = DEFAULT_DATA_DIR) -> dict[str, list[str]]:
    """Every question by set: the BEIR sets' queries, CISI's, and our own written set."""
    found: dict[str, list[str]] = {}
    for name, rel in BEIR_SETS.items():
        path = data_dir / rel
        if path.exists():
            found[name] = list(json.loads(path.read_text(encoding="utf-8"))["queries"].values())
    cisi = data_dir / "cisi" / "CISI.QRY"
    if cisi.exists():
        records = smart_records(cisi.read_text(encoding="latin-1"))
        found["cisi"] = [r["W"] for r in records.values() if r.get("W")]
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    found["ours (world_questions.txt)"] = [q for q in lines if q.strip() and not q.startswith("#")]
    return found


def scope() -> PlanScope:
    facets = KbFacets(kb_id="kb", documents=1000, date_from="2017-01-01", date_to="2025-11-21")
    return PlanScope(
        knowledge_bases=[KbInfo(id="kb", name="kb", facets=facets)],
        requested=False,
        strategies=["ann", "keyword", "bm25", "hybrid", "2-stage"],
        now=NOW,
    )


def scan(sets: dict[str, list[str]], examples: int) -> dict[str, Any]:
    planner = HeuristicPlanner(PlannerSettings())
    at = scope()
    tz = ZoneInfo("Asia/Seoul")
    kinds = ("time", "limit_or_sort", "text_changed", "direct")
    counts = {kind: 0 for kind in kinds}
    shown: dict[str, list[str]] = {kind: [] for kind in kinds}
    total = errors = 0
    for name, qs in sets.items():
        for question in qs:
            total += 1
            try:
                plan = apply_policy(planner.plan(question, at), at, tz)
            except Exception:  # the product falls back to the fixed pipeline: nothing changed
                errors += 1
                continue
            hits = {
                "time": plan.filters.time is not None,
                "limit_or_sort": plan.limit is not None or plan.sort != "relevance",
                "text_changed": plan.query is not None and plan.query != question.strip(),
                "direct": plan.mode == "direct",
            }
            for kind, hit in hits.items():
                if hit:
                    counts[kind] += 1
                    if len(shown[kind]) < examples:
                        time = plan.filters.time
                        said = f"{time.from_}..{time.to}" if time else ""
                        shown[kind].append(
                            f"[{name}] {question[:90]} → query={plan.query!r} {said} "
                            f"limit={plan.limit} sort={plan.sort}"
                        )
    rates = {kind: round(100 * counts[kind] / total, 2) for kind in kinds}
    return {
        "questions": total,
        "planner_errors": errors,
        "counts": counts,
        "rates_pct": rates,
        "examples": shown,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=RESULTS / "planner_scan.json")
    parser.add_argument("--examples", type=int, default=8)
    args = parser.parse_args()
    sets = questions()
    result = scan(sets, args.examples)
    result["sets"] = {name: len(qs) for name, qs in sets.items()}
    result["revision"] = revision()
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=2))
    rates, counts = result["rates_pct"], result["counts"]
    rows = [[kind, counts[kind], f"{rates[kind]} %"] for kind in rates]
    print(f"{result['questions']} questions: {result['sets']}")
    print(f"planner errors (fixed pipeline used): {result['planner_errors']}")
    print(markdown_table(["what the planner did", "questions", "share"], rows))
    for kind, lines in result["examples"].items():
        if lines:
            print(f"\n{kind}:")
            for line in lines:
                print("  " + line)


if __name__ == "__main__":
    main()
