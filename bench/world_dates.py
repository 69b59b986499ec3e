"""Is an absolute date in a question about the world worth a soft signal? (issue 23)

    python -m bench.world_dates [--news-docs 1500] [--sets ko_news_2017_world ko_news_2017]

The issue allows a date the planner keeps in the search text ("2017년 7월 28일 북한이 발사한
ICBM은?") to be used "at most as a soft signal that can only add, never remove, candidates".
This bench measures, before anything is built, what such a signal would do on the dated
ko_news_2017 KB of `bench.ask_vs_retrieve` (ingested there first): per question, the ask
path's own search (the plan, unfiltered) and a second search of the same text filtered to the
date the question names (`time_range.resolve`), then

- `plain`: the unfiltered ranking (what the ask gives the answer today), nDCG@10;
- `append`: the unfiltered top 10, then up to 2 dated hits not among them (only adds: the
  first ten are untouched, so nDCG@10 cannot move; what the answer would get in addition
  shows in recall over the 10 + 2 passages against recall@10, and nDCG@12 against the plain
  first ten scored at 12);
- `rrf`: both rankings fused by reciprocal rank (k 60), nDCG@10 — a boost, which can push
  an undated-matching relevant document out of the top 10 (it removes, so the issue's rule
  does not allow it; measured to show what it would gain or cost).

Questions whose date resolves to no range (or that filter by time already) are counted under
`plain` for all variants. The searches here apply no plan filter: the doc-time set is listed
as a control (the signal must not fire there).
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import datetime
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.ask_vs_retrieve import ROOT, _session, _settings  # noqa: E402
from bench.datasets import RESULTS  # noqa: E402
from bench.news_sets import NEWS_DOCS, NEWS_NOW  # noqa: E402
from bench.report import markdown_table, revision  # noqa: E402
from planrag.core.filters import RetrieveFilters  # noqa: E402
from planrag.planner.time_range import resolve  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.ask_requests import PlanRequest  # noqa: E402
from planrag.services.evaluation import EvalSession  # noqa: E402
from planrag.services.metrics import ndcg_at, recall_at  # noqa: E402
from planrag.services.retrieval import MAX_QUERY_CHARS, RetrieveRequest  # noqa: E402

EXTRA = 2
RRF_K = 60


def _search(runtime: Runtime, s: EvalSession, plan: Any, text: str, **filters: str) -> list[str]:
    request = RetrieveRequest(
        query=text[:MAX_QUERY_CHARS],
        strategy=plan.strategy,
        top_k=20,
        score_threshold=plan.threshold,
        hybrid_mode=plan.hybrid_mode,
        filters=RetrieveFilters(**filters) if filters else None,
    )
    hits = runtime.retrieval.retrieve(s.kb_id, request)
    return list(dict.fromkeys(s.mapping[h.doc_id] for h in hits))


def _rrf(*rankings: list[str]) -> list[str]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, cid in enumerate(ranking, start=1):
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores, key=lambda cid: -scores[cid])


def measure(runtime: Runtime, s: EvalSession) -> dict[str, Any]:
    kb = runtime.knowledge_bases.get(s.kb_id)
    now = datetime.fromisoformat(NEWS_NOW)
    sums = {k: 0.0 for k in ("plain@10", "rrf@10", "plain10@12", "append@12", "r_plain@10",
                             "r_append@12")}  # fmt: skip
    rows, fired = [], 0
    for qid, question in s.dataset.queries.items():
        qrels = s.dataset.qrels[qid]
        plan = runtime.ask.plan(PlanRequest.model_validate({"question": question, "now": NEWS_NOW}),
                                [kb]).plan  # fmt: skip
        text = plan.query or question
        plain = _search(runtime, s, plan, text)
        found = resolve(question, now) if plan.filters.time is None else None
        dated: list[str] = []
        if found is not None and found.start and found.end:
            start, end = found.iso()
            dated = _search(runtime, s, plan, text, date_from=start, date_to=end)
            fired += 1
        extra = [cid for cid in dated if cid not in plain[:10]][:EXTRA]
        append = plain[:10] + extra
        fused = _rrf(plain, dated) if dated else plain
        figures = {
            "plain@10": ndcg_at(plain, qrels, 10),
            "rrf@10": ndcg_at(fused, qrels, 10),
            "plain10@12": ndcg_at(plain[:10], qrels, 12),
            "append@12": ndcg_at(append, qrels, 12),
            "r_plain@10": recall_at(plain, qrels, 10),
            "r_append@12": recall_at(append, qrels, 12),
        }
        for key, value in figures.items():
            sums[key] += value
        rounded = {k: round(v, 3) for k, v in figures.items()}
        rows.append(
            {"question": question, "date": found and found.expression, "dated_hits": len(dated),
             **rounded}
        )  # fmt: skip
    n = len(rows)
    return {"questions": n, "fired": fired, **{k: round(v / n, 4) for k, v in sums.items()},
            "rrf_worse": sum(r["rrf@10"] < r["plain@10"] for r in rows),
            "rrf_better": sum(r["rrf@10"] > r["plain@10"] for r in rows),
            "append_added_relevant": sum(r["r_append@12"] > r["r_plain@10"] for r in rows),
            "rows": rows}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--news-docs", type=int, default=NEWS_DOCS)
    parser.add_argument("--sets", nargs="+", default=["ko_news_2017_world", "ko_news_2017"])
    args = parser.parse_args()
    directory = ROOT / f"ko_news_2017-{args.news_docs}"
    if not (directory / "session.json").exists():
        raise SystemExit(
            f"ingest first: python -m bench.ask_vs_retrieve --set ko_news_2017 ({directory})"
        )
    runtime = Runtime.open(_settings(directory / "data"))
    results: dict[str, Any] = {"revision": revision()}
    try:
        for name in args.sets:
            session, _ = _session(runtime, name, directory, args.news_docs)
            results[name] = measure(runtime, session)
    finally:
        runtime.close()
    (RESULTS / "world_dates.json").write_text(json.dumps(results, ensure_ascii=False, indent=2))
    keys = ["questions", "fired", "plain@10", "rrf@10", "rrf_better", "rrf_worse", "plain10@12",
            "append@12", "r_plain@10", "r_append@12", "append_added_relevant"]  # fmt: skip
    print(markdown_table(["set", *keys], [[n, *(r[k] for k in keys)] for n, r in results.items()
                                          if isinstance(r, dict)]))  # fmt: skip


if __name__ == "__main__":
    main()
