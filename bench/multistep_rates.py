"""How often single-hop questions pay for steps, through the ask path (issue 27).

    python -m bench.multistep_rates --data-dir <copy of the e5 ingestion> [--limit N]
    python -m bench.multistep_rates --ko          # tests/fixtures/ko_company/qa_answers.jsonl

Every question of publichealthqa_ko (77) and allganize_rag_ko (200; the KBs `set-…` of the
shared e5 ingestion), or of our Korean fixture questions (167 single-hop questions over the
fixture corpus, bench.multistep's KB), is asked once through the ask service (planner → search
→ steps → extractive answer, no LLM, the default step budget). Counted per set: questions whose
ask ran steps (planned by the rule planner, or the adaptive step), the step reads (each an LLM
call when one is configured: the adaptive step's first read, a step's answer) and the extra
searches (steps beyond the first search). `bench.multistep singlehop` counts the rule planner's
chains alone, without searching.

Steps on against off: a question whose ask ran steps is asked again with steps off
(`PLANRAG_PLANNER__MAX_STEPS=1`, the one-step side of `bench.multistep`; a question without
steps runs the same code on both sides). Per side: a gold document among the passages the
answer is given (`gold@10`), the answer citing a gold document's passage (`cites_gold`), and for
our fixture questions the gold answer (or an alias) in the answer text (`contains`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.datasets import RESULTS, all_datasets  # noqa: E402
from bench.multistep import FIXTURES, ask, ko_kb, service  # noqa: E402
from planrag.core.settings import E5_MODEL, EmbeddingSettings, Settings  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.answers import Passage  # noqa: E402
from planrag.services.ask_events import StepAnswer  # noqa: E402
from planrag.services.step_reader import StepReader  # noqa: E402

READS = {"n": 0}
_read = StepReader.read


def counted_read(
    self: StepReader,
    query: str,
    passages: list[Passage],
    bridge: bool = False,
    earlier: Sequence[str] = (),
) -> StepAnswer | None:
    READS["n"] += 1
    return _read(self, query, passages, bridge, earlier)


StepReader.read = counted_read  # type: ignore[method-assign]


def fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def figures(found: dict[str, Any], case: dict[str, Any], doc_key: Any) -> dict[str, bool]:
    """What the user got: a gold document among the passages, cited by the answer; the gold
    answer (or an alias) in the answer text when the question has one."""
    passages = found["passages"][:10]
    gold = set(case.get("docs", ()))
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", found["answer"])}
    out = {
        "gold@10": any(doc_key(p.doc_id) in gold for p in passages),
        "cites_gold": any(doc_key(p.doc_id) in gold for p in passages if p.n in cited),
    }
    answers = [a for a in (case.get("answer"), *case.get("aliases", ())) if a]
    if answers:
        out["contains"] = any(fold(a) in fold(found["answer"]) for a in answers)
    return out


def rates(
    runtime: Runtime, kb_name: str, cases: list[dict[str, Any]], doc_key: Any = None
) -> dict[str, Any]:
    kb = runtime.metadata.get_kb_by_name(kb_name)
    runtime.bm25.index(kb.id)
    asking, off = service(runtime, 4), service(runtime, 1)
    if doc_key is None:
        names = {
            d.id: d.filename.removesuffix(".txt") for d in runtime.metadata.list_documents(kb.id)
        }
        doc_key = names.get
    rows = []
    for case in cases:
        question = case["question"]
        before = READS["n"]
        found = ask(asking, kb, question)
        steps = found["steps"]
        row = {
            "question": question,
            "steps": len(steps),
            "planned": found.get("planned", 0) > 0,
            "adaptive": any(s.adaptive for s in steps),
            "reads": READS["n"] - before,
            "queries": [s.query for s in steps],
            "on": figures(found, case, doc_key),
        }
        # without steps both sides run the same code: the figures are the same
        row["off"] = figures(ask(off, kb, question), case, doc_key) if steps else row["on"]
        rows.append(row)
    n = len(rows)
    stepped = [r for r in rows if r["steps"]]
    keys = sorted({k for r in rows for k in r["on"]})
    return {
        "on_vs_off": {
            k: {
                "on": sum(r["on"][k] for r in rows),
                "off": sum(r["off"][k] for r in rows),
                "won": sum(r["on"][k] and not r["off"][k] for r in stepped),
                "lost": sum(r["off"][k] and not r["on"][k] for r in stepped),
            }
            for k in keys
        },
        "kb": kb_name,
        "questions": n,
        "with_steps": sum(r["steps"] > 0 for r in rows),
        "planned": sum(r["planned"] for r in rows),
        "adaptive": sum(r["adaptive"] for r in rows),
        "step_rate": round(sum(r["steps"] > 0 for r in rows) / n, 4),
        "step_reads": sum(r["reads"] for r in rows),
        "questions_with_a_step_read": sum(r["reads"] > 0 for r in rows),
        "extra_searches": sum(max(0, r["steps"] - 1) for r in rows),
        "examples": [r for r in rows if r["steps"]][:8],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=None, help="a copy of the e5 ingestion")
    parser.add_argument("--ko", action="store_true", help="our fixture questions instead")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=RESULTS / "multistep_rates.json")
    args = parser.parse_args()
    results = []
    if args.ko:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, data_dir=RESULTS / "multistep" / "ko" / E5_MODEL.replace("/", "_")
        )
        settings.embedding.threads = 1
        runtime = Runtime.open(settings)
        try:
            kb, names = ko_kb(runtime)
            lines = (FIXTURES / "qa_answers.jsonl").read_text().splitlines()
            cases = [json.loads(line) for line in lines][: args.limit]
            for case in cases:
                case["docs"] = [case["doc"]]
            results.append(rates(runtime, kb.name, cases, names.get))
        finally:
            runtime.close()
    else:
        if args.data_dir is None:
            parser.error("--data-dir: a copy of /work/benchdata/e5/data")
        runtime = Runtime.open(
            Settings(  # type: ignore[call-arg]
                _env_file=None,
                data_dir=args.data_dir,
                embedding=EmbeddingSettings(model=E5_MODEL, threads=1),
            )
        )
        try:
            for name in ("publichealthqa_ko", "allganize_rag_ko"):
                data = json.loads(all_datasets()[name].read_text())
                cases = [
                    {"question": text, "docs": list(data["qrels"][q])}
                    for q, text in data["queries"].items()
                ][: args.limit]
                results.append(rates(runtime, f"set-{name}", cases))
        finally:
            runtime.close()
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1))
    for result in results:
        print(json.dumps({k: v for k, v in result.items() if k != "examples"}, ensure_ascii=False))


if __name__ == "__main__":
    main()
