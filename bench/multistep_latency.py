"""What steps cost a user: `POST /ai/v2/ask` wall time with and without steps (issue 27).

    flock /work/bench.lock python -m bench.multistep_latency --data-dir <copy of the e5 ingestion> \
        [--limit 100] [--start 0] [--out FILE]

A real `planrag serve` (embedded defaults: e5, hybrid, no LLM: extractive answers and
extractive step reads) over the HotpotQA-200 KB (`set-hotpotqa_200`, a copy of
/work/benchdata/e5/data), run twice on the same data dir, one after the other: "one step"
(`PLANRAG_PLANNER__MAX_STEPS=1`: no rule steps, no adaptive step) and "multi-step" (the
defaults). Each asks the same questions in order, one at a time, after three warm-up asks; the
time is from the request to the stream's last byte. Reported: p50/p90/mean over all questions,
and over the questions that got steps, their time on each side (the difference is what the steps
cost those questions), and how many got steps. Timing bench: run it under the shared lock and
say the load (reported at start and end).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import httpx  # noqa: E402

from bench.datasets import all_datasets  # noqa: E402
from bench.report import RESULTS_DIR, load_average, machine  # noqa: E402
from bench.server import environment, planrag_server  # noqa: E402

KB = "set-hotpotqa_200"
SIDES = {"one-step": {"PLANRAG_PLANNER__MAX_STEPS": "1"}, "multi-step": {}}
WARM_UP = 3


def timed_ask(url: str, question: str) -> dict[str, Any]:
    steps = 0
    adaptive = False
    name = "message"
    started = time.perf_counter()
    with httpx.stream(
        "POST",
        f"{url}/ai/v2/ask",
        json={"question": question, "knowledge_bases": [KB]},
        timeout=600,
    ) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:") and name == "step":
                steps += 1
                adaptive = adaptive or bool(json.loads(line[5:]).get("adaptive"))
    return {"ms": (time.perf_counter() - started) * 1000, "steps": steps, "adaptive": adaptive}


def run_side(
    data_dir: Path, side: str, questions: list[str], log_path: Path
) -> list[dict[str, Any]]:
    with environment(SIDES[side]), planrag_server(data_dir, log_path) as server:
        for question in questions[:WARM_UP]:
            timed_ask(server.base_url, question)
        rows = []
        for i, question in enumerate(questions, start=1):
            rows.append(timed_ask(server.base_url, question))
            if i % 20 == 0:
                print(f"{side} {i}/{len(questions)}", flush=True)
        return rows


def stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    return {
        "n": len(values),
        "p50_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 1),
        "mean_ms": round(statistics.fmean(ordered), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "multistep_latency.json")
    args = parser.parse_args()
    data = json.loads(all_datasets()["hotpotqa_200"].read_text())
    questions = list(data["queries"].values())[args.start : args.start + args.limit]
    data_dir = args.data_dir.resolve()  # the server runs from its parent
    load_start = load_average()
    sides = {
        side: run_side(data_dir, side, questions, args.out.with_suffix(f".{side}.log"))
        for side in SIDES
    }
    stepped = [i for i, row in enumerate(sides["multi-step"]) if row["steps"]]
    summary: dict[str, Any] = {
        "questions": len(questions),
        "with_steps": len(stepped),
        "adaptive": sum(r["adaptive"] for r in sides["multi-step"]),
        "load_average_at_start": load_start,
        "load_average_at_end": load_average(),
    }
    for side, rows in sides.items():
        summary[side] = {
            "all": stats([r["ms"] for r in rows]),
            "questions_with_steps": stats([rows[i]["ms"] for i in stepped]),
            "questions_without_steps": stats(
                [r["ms"] for i, r in enumerate(rows) if i not in set(stepped)]
            ),
        }
    args.out.write_text(
        json.dumps({"summary": summary, "machine": machine(), "rows": sides}, indent=1)
    )
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
