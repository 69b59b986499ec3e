"""Multi-step plans (issue 27): one step against multi-step, same KB, through the ask path
(planner → steps → search → extractive answer; no LLM), and how often the rule planner adds
steps to single-hop questions.

    python -m bench.multistep ko [--graph]        # tests/fixtures/ko_company/multihop.jsonl
    python -m bench.multistep ko --questions multihop_heldout.jsonl   # the held-out 27
    python -m bench.multistep hotpot [--limit N] [--data-dir <copy of the e5 ingestion>]
    python -m bench.multistep hotpot24 --data-dir <copy>   # 24 HotpotQA questions never tuned on
    python -m bench.multistep en                  # tests/fixtures/en_pages/chains.jsonl (14)
    python -m bench.multistep en_heldout          # tests/fixtures/en_pages_heldout (18, held out)
    python -m bench.multistep singlehop           # step rate on publichealthqa_ko, allganize
    (--sides one-step|multi-step: one side only; --out FILE: where the rows go; --gated: only
    the questions the rule planner or the adaptive step may give steps; --reuse FILE: a question
    the multi-step side runs no step for takes that file's one-step row)

Per question: all-gold recall@10 (every supporting document among the 10 passages the answer is
given: the merged passages of every step for multi-step, the search's for one step) and answer
containment (the gold answer in the answer text); also all-gold@3 (the passages an answer
leans on most), whether a step read the bridge entity, and how many steps the graph answered.
"One step" is the same server with `PLANRAG_PLANNER__MAX_STEPS=1` (no rule steps, no adaptive
step). Both sides give the answer 10 passages (`PLANRAG_ASK__MAX_PASSAGES=10`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import unicodedata
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.corpus import DEFAULT_DATA_DIR  # noqa: E402
from bench.datasets import RESULTS, all_datasets  # noqa: E402
from bench.fusion import open_runtime  # noqa: E402
from planrag.core.errors import KnowledgeBaseNotFound  # noqa: E402
from planrag.core.settings import E5_MODEL, EmbeddingSettings, Settings  # noqa: E402
from planrag.core.types import DocumentStatus, KnowledgeBase  # noqa: E402
from planrag.planner.chains import chain_steps, may_chain  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.adaptive_steps import plan_adaptive  # noqa: E402
from planrag.services.ask import AskService, graph_path  # noqa: E402
from planrag.services.ask_events import ContextEvent, EndEvent, SearchPlanEvent, StepEvent  # noqa: E402
from planrag.services.ask_requests import AskRequest  # noqa: E402
from planrag.services.ingestion import UploadItem  # noqa: E402
from planrag.services.knowledge_bases import KnowledgeBaseCreate  # noqa: E402
from planrag.services.step_reader import StepReader  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ko_company"
EN_PAGES = FIXTURES.parent / "en_pages"  # English entity pages and chain questions (session 13)
EN_HELDOUT = FIXTURES.parent / "en_pages_heldout"  # the same shape, held out (session 14)
DEPTH = 10


def service(runtime: Runtime, max_steps: int) -> AskService:
    s = runtime.settings
    settings = s.model_copy(
        update={
            "planner": s.planner.model_copy(update={"max_steps": max_steps}),
            "ask": s.ask.model_copy(update={"max_passages": DEPTH}),
        }
    )
    return AskService.build(
        settings, runtime.metadata, runtime.retrieval, runtime.chat, runtime.executors.strategies
    )


def ask(asking: AskService, kb: KnowledgeBase, question: str) -> dict[str, Any]:
    request = AskRequest(question=question, knowledge_bases=[kb.name])
    scope = asking.scope(request, [kb])
    found: dict[str, Any] = {"steps": [], "passages": [], "answer": ""}

    async def collect() -> None:
        async for event in asking.ask(request, scope, [kb]):
            if isinstance(event, SearchPlanEvent):
                found["planned"] = len(event.plan.steps)
            elif isinstance(event, StepEvent):
                found["steps"].append(event)
            elif isinstance(event, ContextEvent):
                found["passages"] = event.passages
            elif isinstance(event, EndEvent):
                found["end"] = event
            elif hasattr(event, "delta"):
                found["answer"] += event.delta

    asyncio.run(collect())
    return found


def steps_may_run(asking: AskService, kb: KnowledgeBase, question: str) -> bool:
    """Whether the ask would run steps (planned, or the adaptive step): the plan, the first
    search and the adaptive step's decision, as `AskService` makes them. Without steps the
    multi-step side runs the one-step side's code, so `--reuse` copies its row."""
    request = AskRequest(question=question, knowledge_bases=[kb.name])
    plan = asking._planner.plan(question, asking.scope(request, [kb]), None).plan
    if plan.steps:
        return True
    if plan.mode == "direct" or not asking._may_adapt(plan, question):
        return False
    passages, stages = asking._executor.execute(
        plan, question, {kb.name: kb}, asking._owners.restriction([kb], None)
    )
    if graph_path(stages, passages) is not None:
        return False
    reader = StepReader()
    return (
        plan_adaptive(question, reader, plan, (passages, stages), may_chain(question)) is not None
    )


def fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def score(
    found: dict[str, Any], gold: set[str], answer: str, doc_key: Any, bridge: str | None = None
) -> dict[str, Any]:
    top = [doc_key(p.doc_id) for p in found["passages"][:DEPTH]]
    union = {doc_key(h.doc_id) for s in found["steps"] for h in s.hits} | set(top)
    read = [s.answer.text for s in found["steps"] if s.answer is not None]
    return {
        "all_gold": gold <= set(top),
        "all_gold_3": gold <= set(top[:3]),
        "bridge": bridge is not None and any(fold(bridge) in fold(r) for r in read[:-1] or read),
        "graph_steps": sum(1 for s in found["steps"] if s.answer and s.answer.source == "graph"),
        "all_gold_union": gold <= union,
        "contains": fold(answer) in fold(found["answer"]),
        "steps": len(found["steps"]),
        "planned": found.get("planned", 0),
        "adaptive": any(s.adaptive for s in found["steps"]),
    }


SIDES = ("one-step", "multi-step")


def compare(
    runtime: Runtime,
    kb: KnowledgeBase,
    cases: list[dict[str, Any]],
    doc_key: Any,
    out: Path,
    names: tuple[str, ...] = SIDES,
    reuse: dict[str, Any] | None = None,
) -> dict[str, Any]:
    steps = {"one-step": 1, "multi-step": 4}
    sides = {name: service(runtime, steps[name]) for name in names}
    rows = []
    started = time.perf_counter()
    for i, case in enumerate(cases, start=1):
        row: dict[str, Any] = {"id": case["id"], "question": case["question"]}
        for name, asking in sides.items():
            earlier = (reuse or {}).get(case["id"])
            if name == "multi-step" and earlier and not steps_may_run(asking, kb, case["question"]):
                row[name] = {**earlier["one-step"], "reused": True}  # the same code path
                continue
            found = ask(asking, kb, case["question"])
            row[name] = score(found, set(case["docs"]), case["answer"], doc_key, case.get("bridge"))
            if name == "multi-step":
                row["step_queries"] = [s.query for s in found["steps"]]
                row["step_answers"] = [
                    [s.answer.text, s.answer.source] if s.answer else None for s in found["steps"]
                ]
                row["expected_types"] = [s.expected_type for s in found["steps"]]
                row["answer"] = found["answer"][:300]
        rows.append(row)
        if i % 10 == 0:
            print(f"{i}/{len(cases)} {time.perf_counter() - started:.0f} s", flush=True)
    summary: dict[str, Any] = {"questions": len(rows)}
    for name in sides:
        part = [r[name] for r in rows]
        summary[name] = {
            "all_gold@10": round(sum(p["all_gold"] for p in part) / len(part), 3),
            "all_gold@3": round(sum(p["all_gold_3"] for p in part) / len(part), 3),
            "bridge_read": round(sum(p["bridge"] for p in part) / len(part), 3),
            "graph_steps": sum(p["graph_steps"] for p in part),
            "all_gold_any_step": round(sum(p["all_gold_union"] for p in part) / len(part), 3),
            "contains": round(sum(p["contains"] for p in part) / len(part), 3),
            "with_steps": round(sum(p["steps"] > 0 for p in part) / len(part), 3),
            "planned_steps": round(sum(p["planned"] > 0 for p in part) / len(part), 3),
            "adaptive": round(sum(p["adaptive"] for p in part) / len(part), 3),
        }
    out.write_text(json.dumps({"summary": summary, "rows": rows}, ensure_ascii=False, indent=1))
    return summary


def ko_kb(
    runtime: Runtime, graph: bool = False, folder: Path = FIXTURES, pattern: str = "*.md"
) -> tuple[KnowledgeBase, dict[str, str]]:
    """The fixture corpus in its own KB (ingested once; `graph`: a KB with the rule-extracted
    graph, ontology backend; `folder`: another fixture folder, its KB named after it);
    document id → file name."""
    name = "ko_company_graph" if graph else "ko_company"
    if folder != FIXTURES:
        name = folder.name
    try:
        kb = runtime.metadata.get_kb_by_name(name)
    except KnowledgeBaseNotFound:
        backend = "ontology" if graph else "none"
        kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=name, graph_backend=backend))
    have = {d.filename for d in runtime.metadata.list_documents(kb.id)}
    files = [p for p in sorted(folder.glob(pattern)) if p.name != "README.md"]
    for path in files:
        if path.name not in have:
            doc = runtime.ingestion.upload(
                kb.id, [UploadItem(filename=path.name, data=path.read_bytes())], background=False
            )[0]
            runtime.ingestion.index_many([doc.id])
    runtime.bm25.index(kb.id)
    docs = runtime.metadata.list_documents(kb.id, [DocumentStatus.completed])
    return kb, {d.id: d.filename for d in docs}


def run_ko(
    runtime: Runtime,
    sides: tuple[str, ...],
    out: Path,
    graph: bool = False,
    questions: str = "multihop.jsonl",
) -> None:
    kb, names = ko_kb(runtime, graph)
    cases = [json.loads(line) for line in (FIXTURES / questions).read_text().splitlines()]
    print(json.dumps(compare(runtime, kb, cases, names.get, out, sides), indent=1))


def run_en(runtime: Runtime, sides: tuple[str, ...], out: Path, folder: Path = EN_PAGES) -> None:
    """Our English entity pages and their chain questions (`tests/fixtures/en_pages`, 14;
    `folder`: another such folder, e.g. the held-out `en_pages_heldout`)."""
    kb, names = ko_kb(runtime, folder=folder, pattern="*.txt")
    cases = [json.loads(line) for line in (folder / "chains.jsonl").read_text().splitlines()]
    print(json.dumps(compare(runtime, kb, cases, names.get, out, sides), indent=1))


def run_hotpot(
    runtime: Runtime,
    limit: int | None,
    sides: tuple[str, ...],
    out: Path,
    gated: bool = False,
    reuse: dict[str, Any] | None = None,
    name: str = "hotpotqa_200",
) -> None:
    """The questions whose paragraphs are all in the KB `set-<name>` (hotpotqa_24: the lead's
    24 questions outside the 200, `hotpotqa_dev_subset/hotpotqa_24.json`)."""
    path = all_datasets().get(name) or DEFAULT_DATA_DIR / "hotpotqa_dev_subset" / f"{name}.json"
    data = json.loads(path.read_text())
    kb = runtime.metadata.get_kb_by_name(f"set-{name}")
    runtime.bm25.index(kb.id)
    docs = runtime.metadata.list_documents(kb.id, [DocumentStatus.completed])
    corpus_id = {d.id: d.filename.removesuffix(".txt") for d in docs}
    have = set(corpus_id.values())
    cases = [
        {"id": q, "question": text, "answer": data["answers"][q], "docs": list(data["qrels"][q])}
        for q, text in data["queries"].items()
        if set(data["qrels"][q]) <= have
    ][:limit]
    if gated:  # the others run the same code on both sides (no rule steps, no adaptive gate)
        cases = [c for c in cases if may_chain(c["question"])]
    print(f"{len(cases)} questions, {len(docs)} paragraphs in the KB", flush=True)
    print(json.dumps(compare(runtime, kb, cases, corpus_id.get, out, sides, reuse), indent=1))


def run_singlehop() -> None:
    """How often the rule planner adds steps, and how often the adaptive step may be tried."""
    for name in ("publichealthqa_ko", "allganize_rag_ko"):
        data = json.loads(all_datasets()[name].read_text())
        questions = list(data["queries"].values())
        chained = [q for q in questions if len(chain_steps(q)) > 1]
        gated = [q for q in questions if may_chain(q)]
        print(
            json.dumps(
                {
                    "set": name,
                    "questions": len(questions),
                    "rule_steps": len(chained),
                    "rule_step_rate": round(len(chained) / len(questions), 4),
                    "adaptive_gate_rate": round(len(gated) / len(questions), 4),
                    "examples": chained[:5],
                },
                ensure_ascii=False,
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "what", choices=["ko", "en", "en_heldout", "hotpot", "hotpot24", "singlehop"]
    )
    parser.add_argument("--model", default=E5_MODEL)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--sides", choices=["both", *SIDES], default="both")
    parser.add_argument("--out", type=Path, default=None, help="the result file")
    parser.add_argument("--graph", action="store_true", help="ko: a KB with a graph (ontology)")
    parser.add_argument(
        "--questions", default="multihop.jsonl", help="ko: the question file in the fixtures"
    )
    parser.add_argument(
        "--gated",
        action="store_true",
        help="hotpot: only the questions shaped like a chain (planner.chains.may_chain); the "
        "others get no step on either side, so both sides run the same code for them",
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="a copy of the shared e5 ingestion (hotpot)"
    )
    parser.add_argument(
        "--reuse",
        type=Path,
        default=None,
        help="hotpot: an earlier result file with one-step rows; a question the multi-step side "
        "would run no step for (planned or adaptive) takes its one-step row (the same code path)",
    )
    args = parser.parse_args()
    if args.what == "singlehop":
        run_singlehop()
        return
    sides = SIDES if args.sides == "both" else (args.sides,)
    out = args.out or RESULTS / f"multistep_{args.what}.json"
    if args.what in ("ko", "en", "en_heldout"):
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            data_dir=RESULTS / "multistep" / args.what / args.model.replace("/", "_"),
        )
        settings.embedding.model = args.model
        settings.embedding.threads = 1
        runtime = Runtime.open(settings)
        try:
            if args.what == "en":
                run_en(runtime, sides, out)
            elif args.what == "en_heldout":
                run_en(runtime, sides, out, EN_HELDOUT)
            else:
                run_ko(runtime, sides, out, args.graph, args.questions)
        finally:
            runtime.close()
        return
    if args.data_dir is None:
        runtime = open_runtime(args.model, 1)
    else:
        runtime = Runtime.open(
            Settings(  # type: ignore[call-arg]
                _env_file=None,
                data_dir=args.data_dir,
                embedding=EmbeddingSettings(model=args.model, threads=1),
            )
        )
    try:
        reuse = None
        if args.reuse is not None:
            reuse = {r["id"]: r for r in json.loads(args.reuse.read_text())["rows"]}
        name = "hotpotqa_24" if args.what == "hotpot24" else "hotpotqa_200"
        run_hotpot(runtime, args.limit, sides, out, args.gated, reuse, name)
    finally:
        runtime.close()


if __name__ == "__main__":
    main()
