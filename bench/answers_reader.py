"""The extractive answer alone, on passages from an in-process BM25 search (no server, no
ingestion): for sets too large to ingest on a busy machine.

    python -m bench.answers_reader [--sets hotpot,allganize,ko] [--limit N] [--label after]

Per question, the top 8 passages of a bm25s index over the set's documents, tokenised with the
product's lexical tokenizer (Kiwi for Korean, stemmed English words), go to
`planrag.services.extractive.Extractor` exactly as the ask path without an LLM gives them (the
reader with e5 when this checkout has it; run with PYTHONPATH at an older checkout for the
"before" figures: its Extractor has the same `relevant` / `answer` calls). The ask's retrieval
is hybrid (BM25 + e5), so absolute figures differ from `bench.answers`; the comparison before /
after is on the same passages. Same measures as `bench.answers`.
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bm25s  # noqa: E402
import numpy as np  # noqa: E402

from bench.answers import SHARED, gold_in, lead_of, load_set, summarise  # noqa: E402
from bench.report import RESULTS_DIR, log, machine, write_json  # noqa: E402
from planrag.services.answers import Passage  # noqa: E402
from planrag.services.extractive import Extractor  # noqa: E402
from planrag.text.tokenizer import tokenizer_for  # noqa: E402

TOP = 8


def extractor() -> Extractor:
    if "embedder" in inspect.signature(Extractor.__init__).parameters:
        from planrag.llm.e5 import E5Embedder

        return Extractor((), 0.5, E5Embedder(2))  # type: ignore[call-arg]
    return Extractor((), 0.5)


def run_set(name: str, shared: Path, limit: int, answerer: Extractor) -> dict[str, Any]:
    docs, questions = load_set(name, shared)
    names = list(docs)
    tokenizer = tokenizer_for()
    index = bm25s.BM25()
    index.index(tokenizer.tokenize_many(docs[n][1] for n in names), show_progress=False)
    chosen = questions[:limit] if limit else questions
    rows = []
    for i, question in enumerate(chosen, 1):
        terms = tokenizer.tokenize(question["question"]) or ["_"]
        found, scores = index.retrieve([terms], k=min(TOP, len(names)), show_progress=False)
        passages = [
            Passage(
                n=rank + 1,
                chunk_id=names[int(j)],
                doc_id=names[int(j)],
                knowledge_base=name,
                title=docs[names[int(j)]][0],
                score=float(s),
                content=docs[names[int(j)]][1],
            )
            for rank, (j, s) in enumerate(zip(np.ravel(found), np.ravel(scores), strict=True))
        ]
        relevant = answerer.relevant(question["question"], passages)
        answer = answerer.answer(question["question"], passages, None) if relevant else ""
        rows.append(_row(question, passages, relevant, answer))
        if i % 50 == 0:
            log(f"  {name}: {i}/{len(chosen)} {summarise(rows)}")
    return {"summary": summarise(rows), "rows": rows}


def _row(
    question: dict[str, Any], passages: list[Passage], relevant: bool, answer: str
) -> dict[str, Any]:
    golds = [g for g in question["golds"] if g]
    cited = answer[answer.find("[") + 1 : answer.find("]")] if "[" in answer else ""
    lead_doc = passages[int(cited) - 1].doc_id if cited.isdigit() else None
    return {
        "id": question.get("id"),
        "question": question["question"],
        "golds": question["golds"],
        "answer": answer,
        "in_lead": gold_in(golds, lead_of(answer)) if golds else None,
        "anywhere": gold_in(golds, answer) if golds else None,
        "gold_first": bool(passages) and passages[0].doc_id in question["gold_docs"],
        "lead_from_gold": lead_doc in question["gold_docs"],
        "not_found": not (relevant and answer),
        "disagree": False,
        "length": len(answer),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="hotpot,allganize,ko")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--label", default="run")
    parser.add_argument("--shared", type=Path, default=SHARED)
    args = parser.parse_args()
    answerer = extractor()
    results: dict[str, Any] = {"label": args.label, "machine": machine(), "sets": {}}
    for name in args.sets.split(","):
        results["sets"][name] = run_set(name, args.shared, args.limit, answerer)
        log(f"{name}: {results['sets'][name]['summary']}")
    write_json(RESULTS_DIR / f"answers-reader-{args.label}.json", results)
    for name, result in results["sets"].items():
        lengths = [r["length"] for r in result["rows"]]
        print(name, result["summary"], "p90 chars", statistics.quantiles(lengths, n=10)[-1])


if __name__ == "__main__":
    main()
