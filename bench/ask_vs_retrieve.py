"""The ask path against `/retrieve`, on the same knowledge base and the same questions (issue 23).

    python -m bench.ask_vs_retrieve --set publichealthqa_ko [--set …] [--limit N]
    python -m bench.ask_vs_retrieve --set cisi --data-dir bench/results/e5-data  # a copy!

For each question: `/retrieve` with the raw question (the plan's strategy, top_k and threshold, no
filters), and the ask path — the heuristic planner (with the relax check), then the plan run by
the ask's executor (filters, search text, sort, limit, listing). Both rankings are mapped back to
the set's ids and scored with nDCG@10; the questions where the two differ are listed.

Sets: the BEIR-style sets and CISI (`bench.datasets`), and `ko_news_2017`: 1,500 dated headlines
with time questions written here, whose relevant documents are the headlines of that period that
contain the topic word (computed at run time from the CSV, never committed). Each set is ingested
once into `bench/results/ask_vs_retrieve/<set>/` and reused (`--fresh` to rebuild).
`--data-dir` opens a planrag data dir ingested elsewhere instead (the lead's e5 sets: KB
`set-<name>`, each document named `<corpus id>.txt`); open a *copy*, never a shared one in place
(Milvus Lite and pgserver allow one opener).

Question length: the ask refuses a question longer than `ask.max_question_chars` (2,000, a
user-facing bound, docs/planner.md); some CISI queries are abstracts of up to ~4,000
characters. The bench raises that setting to 20,000 for its run (both sides then search the
first 2,000 characters, the search's own limit), so every query of the set is compared.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.corpus import DEFAULT_DATA_DIR  # noqa: E402
from bench.datasets import RESULTS, all_datasets  # noqa: E402
from bench.news_sets import NEWS_DOCS, NEWS_NOW, NEWS_SETS, ingest_news, news_dataset  # noqa: E402
from bench.report import markdown_table, revision  # noqa: E402
from planrag.core.settings import Settings  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.ask_requests import PlanRequest  # noqa: E402
from planrag.services.evaluation import BeirDataset, EvalSession, ingest_corpus  # noqa: E402
from planrag.services.knowledge_bases import KnowledgeBaseCreate  # noqa: E402
from planrag.services.metrics import ndcg_at, recall_at  # noqa: E402
from planrag.services.retrieval import MAX_QUERY_CHARS, RetrieveRequest  # noqa: E402

ROOT = RESULTS / "ask_vs_retrieve"


def _settings(data_dir: Path) -> Settings:
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o711)  # an embedded PostgreSQL runs as another OS user when root
    return Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]


def _ingested(runtime: Runtime, name: str) -> tuple[EvalSession, str | None]:
    """The set's KB `set-<name>` in a data dir ingested elsewhere, its documents mapped back to
    corpus ids by their filenames (`<corpus id>.txt`)."""
    # hotpotqa_24 (the lead's set-hotpotqa_24) is not among bench.datasets' sets
    path = all_datasets().get(name) or DEFAULT_DATA_DIR / "hotpotqa_dev_subset" / f"{name}.json"
    dataset = BeirDataset.load(path)
    kb = runtime.metadata.get_kb_by_name(f"set-{name}")
    documents = runtime.metadata.list_documents(kb.id)
    mapping = {d.id: d.filename.removesuffix(".txt") for d in documents}  # ids may hold "/"
    missing = set(dataset.corpus) - set(mapping.values())
    if missing:
        print(f"{name}: {len(missing)} corpus entries are not in the KB", flush=True)
    return EvalSession.existing(runtime, dataset, kb.id, mapping), None


def _session(
    runtime: Runtime, name: str, directory: Path, news_docs: int = NEWS_DOCS
) -> tuple[EvalSession, str | None]:
    """The set's session, ingested once and reused; the `now` its questions are asked at."""
    saved = directory / "session.json"
    now = None
    if name in NEWS_SETS:
        dataset, meta = news_dataset(name, news_docs)
        now = NEWS_NOW
    else:
        dataset = BeirDataset.load(all_datasets()[name])
    if saved.exists():
        state = json.loads(saved.read_text())
        return EvalSession.existing(runtime, dataset, state["kb_id"], state["mapping"]), now
    if name in NEWS_SETS:
        kb_id, mapping = ingest_news(runtime, dataset, meta)
    else:
        create = KnowledgeBaseCreate.model_validate({"name": name.replace("_", "-")})
        kb_id = runtime.knowledge_bases.create(create).id
        mapping = ingest_corpus(runtime, kb_id, dataset)
        runtime.bm25.index(kb_id)
    saved.write_text(json.dumps({"kb_id": kb_id, "mapping": mapping}))
    return EvalSession.existing(runtime, dataset, kb_id, mapping), now


def _ranked(runtime: Runtime, session: EvalSession, question: str, **request: Any) -> list[str]:
    """`/retrieve` with the raw question: the corpus ids, best first."""
    raw = RetrieveRequest(query=question[:MAX_QUERY_CHARS], **request)
    hits = runtime.retrieval.retrieve(session.kb_id, raw)
    return list(dict.fromkeys(session.mapping[h.doc_id] for h in hits))


def compare(runtime: Runtime, session: EvalSession, now: str | None, limit: int | None) -> dict:
    """Per question: the ask path, `/retrieve` with the plan's strategy, top_k and threshold
    (the issue's check), and `/retrieve` with the planner's default strategy (what the
    retrieval benchmarks measure: it shows a strategy the planner chose, e.g. keyword for a
    quoted phrase)."""
    kb = runtime.knowledge_bases.get(session.kb_id)
    judged = [(q, t) for q, t in session.dataset.queries.items() if session.dataset.qrels.get(q)]
    judged = judged[:limit] if limit else judged
    executor = runtime.ask._executor  # the ask's own executor (a bench may look inside)
    default = runtime.settings.planner.strategy
    totals = dict.fromkeys(("retrieve", "ask", "default", "ask_recall", "retrieve_recall"), 0.0)
    diffs: list[dict[str, Any]] = []
    for qid, question in judged:
        request = PlanRequest.model_validate({"question": question, "now": now})
        plan = runtime.ask.plan(request, [kb]).plan
        top_k, threshold = max(plan.top_k, 10), plan.threshold
        plain = _ranked(
            runtime,
            session,
            question,
            strategy=plan.strategy,
            top_k=top_k,
            score_threshold=threshold,
            hybrid_mode=plan.hybrid_mode,
        )
        base = (
            plain
            if plan.strategy == default
            else _ranked(
                runtime, session, question, strategy=default, top_k=top_k, score_threshold=threshold
            )
        )
        passages, _ = executor.execute(plan, question, {kb.name: kb})
        asked = list(dict.fromkeys(session.mapping[p.doc_id] for p in passages))
        qrels = session.dataset.qrels[qid]
        a, r, d = (ndcg_at(x, qrels, 10) for x in (asked, plain, base))
        totals["ask_recall"] += recall_at(asked, qrels, len(asked))  # extras of a world date too
        totals["retrieve_recall"] += recall_at(plain, qrels, 10)
        totals["retrieve"] += r
        totals["ask"] += a
        totals["default"] += d
        if abs(a - r) > 1e-9 or abs(a - d) > 1e-9:
            diffs.append(
                {"question": question[:300], "retrieve": round(r, 3), "ask": round(a, 3),
                 "default": round(d, 3), "strategy": plan.strategy, "query": plan.query,
                 "time": plan.filters.time and plan.filters.time.model_dump(),
                 "sort": plan.sort, "limit": plan.limit, "listing": plan.listing,
                 "rationale": plan.rationale}
            )  # fmt: skip
    n = len(judged)
    return {
        "questions": n,
        "retrieve_ndcg@10": round(totals["retrieve"] / n, 4),
        "ask_ndcg@10": round(totals["ask"] / n, 4),
        "default_ndcg@10": round(totals["default"] / n, 4),
        "retrieve_recall@10": round(totals["retrieve_recall"] / n, 4),
        "ask_recall_all_passages": round(totals["ask_recall"] / n, 4),
        "better": sum(d["ask"] > d["retrieve"] for d in diffs),
        "worse": sum(d["ask"] < d["retrieve"] for d in diffs),
        "worse_than_default": sum(d["ask"] < d["default"] for d in diffs),
        "differences": diffs,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", action="append", dest="sets", required=True)
    parser.add_argument("--limit", type=int, help="at most this many questions per set")
    parser.add_argument("--fresh", action="store_true", help="ingest again")
    parser.add_argument("--news-docs", type=int, default=NEWS_DOCS, help="ko_news_2017 headlines")
    parser.add_argument("--data-dir", type=Path, help="a copy of a data dir with KBs set-<name>")
    args = parser.parse_args()
    results: dict[str, Any] = {"revision": revision()}
    for name in args.sets:
        news = name in NEWS_SETS  # both news sets share one KB
        directory = ROOT / (f"ko_news_2017-{args.news_docs}" if news else name)
        if args.fresh and (directory / "session.json").exists():
            (directory / "session.json").unlink()
        settings = _settings(args.data_dir or directory / "data")
        # max_passages 10: both sides are scored on ten documents; long CISI queries are asked
        settings = settings.model_copy(
            update={"ask": settings.ask.model_copy(
                update={"max_passages": 10, "max_question_chars": 20000})}
        )  # fmt: skip
        runtime = Runtime.open(settings)
        try:
            if args.data_dir is not None:
                session, now = _ingested(runtime, name)
            else:
                session, now = _session(runtime, name, directory, args.news_docs)
            results[name] = compare(runtime, session, now, args.limit)
        finally:
            runtime.close()
        shown = {k: v for k, v in results[name].items() if k != "differences"}
        print(name, json.dumps(shown), flush=True)
    out = RESULTS / f"ask_vs_retrieve_{'_'.join(args.sets)}.json"
    out.write_text(json.dumps(results, ensure_ascii=False, indent=2))
    rows = [
        [name, r["questions"], r["retrieve_ndcg@10"], r["ask_ndcg@10"], r["better"], r["worse"],
         r["default_ndcg@10"], r["worse_than_default"]]
        for name, r in results.items()
        if isinstance(r, dict)
    ]  # fmt: skip
    print(markdown_table(["set", "questions", "/retrieve nDCG@10", "ask nDCG@10", "ask better",
                          "ask worse", "/retrieve default strategy", "ask worse than it"],
                         rows))  # fmt: skip


if __name__ == "__main__":
    main()
