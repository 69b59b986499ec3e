"""The ask path against `/retrieve`, on the same knowledge base and the same questions (issue 23).

    python -m bench.ask_vs_retrieve --set publichealthqa_ko [--set …] [--limit N]

For each question: `/retrieve` with the raw question (the plan's strategy, top_k and threshold, no
filters), and the ask path — the heuristic planner (with the relax check), then the plan run by
the ask's executor (filters, search text, sort, limit, listing). Both rankings are mapped back to
the set's ids and scored with nDCG@10; the questions where the two differ are listed.

Sets: the BEIR-style sets and CISI (`bench.datasets`), and `ko_news_2017`: 1,500 dated headlines
with time questions written here, whose relevant documents are the headlines of that period that
contain the topic word (computed at run time from the CSV, never committed). Each set is ingested
once into `bench/results/ask_vs_retrieve/<set>/` and reused (`--fresh` to rebuild).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.corpus import DEFAULT_DATA_DIR  # noqa: E402
from bench.datasets import RESULTS, all_datasets  # noqa: E402
from bench.report import markdown_table, revision  # noqa: E402
from planrag.core.settings import Settings  # noqa: E402
from planrag.core.types import DocumentMetadata  # noqa: E402
from planrag.planner.time_range import resolve  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.ask import PlanRequest  # noqa: E402
from planrag.services.evaluation import BeirDataset, EvalSession, ingest_corpus  # noqa: E402
from planrag.services.ingestion import UploadItem  # noqa: E402
from planrag.services.knowledge_bases import KnowledgeBaseCreate  # noqa: E402
from planrag.services.metrics import ndcg_at  # noqa: E402
from planrag.services.retrieval import RetrieveRequest  # noqa: E402

ROOT = RESULTS / "ask_vs_retrieve"
NEWS_CSV = DEFAULT_DATA_DIR / "ko_news_2017" / "korean_newspapers_twitter_2017.csv"
NEWS_NOW = "2017-08-11T18:00:00+09:00"  # the corpus ends 2017-08-11
NEWS_DOCS = 1500
# (question, topic word the relevant headlines contain)
NEWS_QUESTIONS = [
    ("지난주 북한 미사일 관련 기사 알려줘", "미사일"),
    ("최근 3일 동안의 사드 뉴스", "사드"),
    ("8월 초 문재인 대통령 기사", "문재인"),
    ("7월 말 트럼프 관련 기사", "트럼프"),
    ("어제 올라온 부동산 기사", "부동산"),
    ("이번 주 북한 관련 소식", "북한"),
    ("지난달 탈원전 기사", "원전"),
    ("최근 일주일 최저임금 뉴스", "최저임금"),
    ("8월 첫째 주 국정원 기사", "국정원"),
    ("지난 2주간 증세 관련 기사", "증세"),
    ("7월 4주차 청와대 기사", "청와대"),
    ("그저께 나온 미국 관련 뉴스", "미국"),
    ("news about North Korea since August 1", "북한"),
    ("articles from last week about Trump", "트럼프"),
    ("8월 기사 중 검찰 관련 기사", "검찰"),
    ("지난주 연합뉴스 사드 기사", "사드"),
    ("2017년 7월 말 한국 경제 뉴스", "경제"),
    ("이번 달 대통령 지지율 기사", "지지율"),
    ("최근 5일 폭염 관련 소식", "폭염"),
    ("8월 초순 일본 관련 기사", "일본"),
]


def _settings(data_dir: Path) -> Settings:
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o711)  # an embedded PostgreSQL runs as another OS user when root
    return Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]


def _news_dataset(docs: int) -> tuple[BeirDataset, dict[str, dict[str, str]]]:
    rows = list(csv.DictReader(NEWS_CSV.open(encoding="utf-8")))[:docs]
    corpus = {f"n{i}": {"title": "", "text": row["text"]} for i, row in enumerate(rows)}
    meta = {
        f"n{i}": {"date": row["created"][:10], "author": row["paper_name"]}
        for i, row in enumerate(rows)
    }
    now = datetime.fromisoformat(NEWS_NOW)
    queries, qrels = {}, {}
    for j, (question, topic) in enumerate(NEWS_QUESTIONS):
        found = resolve(question, now)
        assert found is not None and found.start and found.end, question
        start, end = found.start.isoformat(), found.end.isoformat()
        relevant = {
            cid: 1
            for cid, entry in corpus.items()
            if topic in entry["text"] and start <= meta[cid]["date"] <= end
        }
        if relevant:
            queries[f"q{j}"], qrels[f"q{j}"] = question, relevant
    return BeirDataset.model_validate({"corpus": corpus, "queries": queries, "qrels": qrels}), meta


def _ingest_news(runtime: Runtime, dataset: BeirDataset, meta: dict[str, dict[str, str]]) -> Any:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate.model_validate({"name": "news"}))
    mapping: dict[str, str] = {}
    for cid, entry in dataset.corpus.items():
        doc = runtime.ingestion.upload(
            kb.id,
            [UploadItem(filename=f"{cid}.txt", data=entry.text.encode())],
            DocumentMetadata(date=meta[cid]["date"], author=meta[cid]["author"]),
            background=False,
        )[0]
        mapping[doc.id] = cid
    todo = [d for d in mapping]
    list(runtime.ingestion.index_many(todo))
    runtime.bm25.index(kb.id)
    runtime.calibrator.refresh(kb.id, force=True)
    return kb.id, mapping


def _session(
    runtime: Runtime, name: str, directory: Path, news_docs: int = NEWS_DOCS
) -> tuple[EvalSession, str | None]:
    """The set's session, ingested once and reused; the `now` its questions are asked at."""
    saved = directory / "session.json"
    now = None
    if name == "ko_news_2017":
        dataset, meta = _news_dataset(news_docs)
        now = NEWS_NOW
    else:
        dataset = BeirDataset.load(all_datasets()[name])
    if saved.exists():
        state = json.loads(saved.read_text())
        return EvalSession.existing(runtime, dataset, state["kb_id"], state["mapping"]), now
    if name == "ko_news_2017":
        kb_id, mapping = _ingest_news(runtime, dataset, meta)
    else:
        create = KnowledgeBaseCreate.model_validate({"name": name.replace("_", "-")})
        kb_id = runtime.knowledge_bases.create(create).id
        mapping = ingest_corpus(runtime, kb_id, dataset)
        runtime.bm25.index(kb_id)
    saved.write_text(json.dumps({"kb_id": kb_id, "mapping": mapping}))
    return EvalSession.existing(runtime, dataset, kb_id, mapping), now


def compare(runtime: Runtime, session: EvalSession, now: str | None, limit: int | None) -> dict:
    kb = runtime.knowledge_bases.get(session.kb_id)
    judged = [(q, t) for q, t in session.dataset.queries.items() if session.dataset.qrels.get(q)]
    judged = judged[:limit] if limit else judged
    executor = runtime.ask._executor  # the ask's own executor (a bench may look inside)
    totals = {"retrieve": 0.0, "ask": 0.0}
    diffs: list[dict[str, Any]] = []
    for qid, question in judged:
        request = PlanRequest.model_validate({"question": question, "now": now})
        plan = runtime.ask.plan(request, [kb]).plan
        raw = RetrieveRequest(
            query=question[:2000],
            strategy=plan.strategy,
            top_k=max(plan.top_k, 10),
            score_threshold=plan.threshold,
            hybrid_mode=plan.hybrid_mode,
        )
        hits = runtime.retrieval.retrieve(session.kb_id, raw)
        plain = list(dict.fromkeys(session.mapping[h.doc_id] for h in hits))
        passages, _ = executor.execute(plan, question, {kb.name: kb})
        asked = list(dict.fromkeys(session.mapping[p.doc_id] for p in passages))
        qrels = session.dataset.qrels[qid]
        a, r = ndcg_at(asked, qrels, 10), ndcg_at(plain, qrels, 10)
        totals["retrieve"] += r
        totals["ask"] += a
        if abs(a - r) > 1e-9:
            diffs.append(
                {"question": question, "retrieve": round(r, 3), "ask": round(a, 3),
                 "query": plan.query, "time": plan.filters.time and plan.filters.time.model_dump(),
                 "sort": plan.sort, "limit": plan.limit, "listing": plan.listing}
            )  # fmt: skip
    n = len(judged)
    return {
        "questions": n,
        "retrieve_ndcg@10": round(totals["retrieve"] / n, 4),
        "ask_ndcg@10": round(totals["ask"] / n, 4),
        "better": sum(d["ask"] > d["retrieve"] for d in diffs),
        "worse": sum(d["ask"] < d["retrieve"] for d in diffs),
        "differences": diffs,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", action="append", dest="sets", required=True)
    parser.add_argument("--limit", type=int, help="at most this many questions per set")
    parser.add_argument("--fresh", action="store_true", help="ingest again")
    parser.add_argument("--news-docs", type=int, default=NEWS_DOCS, help="ko_news_2017 headlines")
    args = parser.parse_args()
    results: dict[str, Any] = {"revision": revision()}
    for name in args.sets:
        directory = ROOT / (f"{name}-{args.news_docs}" if name == "ko_news_2017" else name)
        if args.fresh and (directory / "session.json").exists():
            (directory / "session.json").unlink()
        settings = _settings(directory / "data")
        # max_passages 10: both sides are scored on ten documents
        settings = settings.model_copy(
            update={"ask": settings.ask.model_copy(update={"max_passages": 10})}
        )
        runtime = Runtime.open(settings)
        try:
            session, now = _session(runtime, name, directory, args.news_docs)
            results[name] = compare(runtime, session, now, args.limit)
        finally:
            runtime.close()
        shown = {k: v for k, v in results[name].items() if k != "differences"}
        print(name, json.dumps(shown), flush=True)
    out = RESULTS / f"ask_vs_retrieve_{'_'.join(args.sets)}.json"
    out.write_text(json.dumps(results, ensure_ascii=False, indent=2))
    rows = [
        [name, r["questions"], r["retrieve_ndcg@10"], r["ask_ndcg@10"], r["better"], r["worse"]]
        for name, r in results.items()
        if isinstance(r, dict)
    ]
    print(markdown_table(["set", "questions", "/retrieve nDCG@10", "ask nDCG@10", "ask better",
                          "ask worse"], rows))  # fmt: skip


if __name__ == "__main__":
    main()
