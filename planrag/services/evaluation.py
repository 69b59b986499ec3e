"""`planrag eval`: retrieval quality of a strategy on a BEIR-style dataset, in a throw-away KB.

Dataset: `{"corpus": {id: {"title", "text"}}, "queries": {qid: text}, "qrels": {qid: {id: rel}}}`.
Each corpus entry becomes one document (title and text); hits are mapped back to corpus ids
(first occurrence wins) and scored with nDCG@10, Recall@5/10 and MRR@10 over the queries that
have relevance judgements.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from planrag.core.errors import InvalidInput
from planrag.core.strategies import StrategyName
from planrag.core.types import DocumentMetadata, DocumentStatus
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.metrics import all_found_at, mrr_at, ndcg_at, percentile, recall_at
from planrag.services.retrieval import MAX_QUERY_CHARS, RetrieveRequest

if TYPE_CHECKING:  # the runtime is above services: typing only
    from planrag.runtime import Runtime

UPLOAD_BATCH = 100
DEPTH = 10


class CorpusEntry(BaseModel):
    title: str = ""
    text: str = ""


class BeirDataset(BaseModel):
    corpus: dict[str, CorpusEntry]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    @classmethod
    def load(cls, path: Path) -> BeirDataset:
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError, ValidationError) as exc:
            raise InvalidInput(f"{path}: not a BEIR-style dataset: {exc}") from exc


class Latency(BaseModel):
    p50: float
    p95: float


class EvalReport(BaseModel):
    ndcg_at_10: float = Field(serialization_alias="ndcg@10")
    recall_at_5: float = Field(serialization_alias="recall@5")
    recall_at_10: float = Field(serialization_alias="recall@10")
    all_recall_at_10: float = Field(
        serialization_alias="all_recall@10",
        description="queries with every relevant document in the top 10 (multi-hop sets)",
    )
    mrr_at_10: float = Field(serialization_alias="mrr@10")
    latency_ms: Latency
    queries: int
    ingest_s: float

    def as_json(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True)


Progress = Callable[[str, int, int], None]


def _document_text(entry: CorpusEntry) -> str:
    title, text = entry.title.strip(), entry.text.strip()
    return f"{title}\n\n{text}" if title and text else (title or text)


def ingest_corpus(
    runtime: Runtime, kb_id: str, dataset: BeirDataset, progress: Progress | None = None
) -> dict[str, str]:
    """Index every corpus entry; returns planrag document id → corpus id."""
    entries = [(cid, _document_text(e), e.title.strip()) for cid, e in dataset.corpus.items()]
    entries = [(cid, text, title) for cid, text, title in entries if text]
    mapping: dict[str, str] = {}
    for start in range(0, len(entries), UPLOAD_BATCH):
        batch = entries[start : start + UPLOAD_BATCH]
        docs = [
            # The corpus title is the document's title (its title vector, for title weighting).
            runtime.ingestion.upload(
                kb_id,
                [UploadItem(filename=f"{cid}.txt", data=text.encode())],
                DocumentMetadata(title=title[:1000] or None),
                background=False,
            )[0]
            for cid, text, title in batch
        ]
        for doc, (cid, _, _) in zip(docs, batch, strict=True):
            mapping[doc.id] = cid
        todo = [d.id for d in docs if d.status != DocumentStatus.completed]
        for indexed in runtime.ingestion.index_many(todo):
            if indexed.status == DocumentStatus.error:
                raise InvalidInput(f"corpus entry {mapping[indexed.id]} failed: {indexed.error}")
        if progress:
            progress("ingest", min(start + UPLOAD_BATCH, len(entries)), len(entries))
    runtime.calibrator.refresh(kb_id, force=True)  # the whole corpus, as its first query did
    return mapping


class EvalSession:
    """A dataset ingested once into a throw-away KB, scored for any number of strategies."""

    def __init__(
        self,
        runtime: Runtime,
        dataset: BeirDataset,
        kb_settings: dict[str, Any] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.runtime = runtime
        self.dataset = dataset
        self.progress = progress
        self.keep = False  # a throw-away KB, deleted on close
        name = f"eval-{time.time_ns()}"
        create = KnowledgeBaseCreate.model_validate({"name": name, **(kb_settings or {})})
        self.kb_id = runtime.knowledge_bases.create(create).id
        try:
            started = time.perf_counter()
            self.mapping = ingest_corpus(runtime, self.kb_id, dataset, progress)
            runtime.bm25.index(self.kb_id)  # building the lexical index is part of ingestion
            self.ingest_s = time.perf_counter() - started
        except BaseException:
            self.close()
            raise

    @classmethod
    def existing(
        cls,
        runtime: Runtime,
        dataset: BeirDataset,
        kb_id: str,
        mapping: dict[str, str],
        ingest_s: float = 0.0,
    ) -> EvalSession:
        """A session over a KB ingested earlier (kept on close): benchmarks with slow models."""
        session = cls.__new__(cls)
        session.runtime, session.dataset, session.progress = runtime, dataset, None
        session.kb_id, session.mapping, session.ingest_s = kb_id, mapping, ingest_s
        session.keep = True
        return session

    def close(self) -> None:
        if not self.keep:
            self.runtime.knowledge_bases.delete(self.kb_id)

    def __enter__(self) -> EvalSession:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def run(self, strategy: StrategyName, **request: Any) -> EvalReport:
        dataset = self.dataset
        judged = [(qid, text) for qid, text in dataset.queries.items() if dataset.qrels.get(qid)]
        if not judged:
            raise InvalidInput("no query has relevance judgements (qrels)")
        totals = {"ndcg": 0.0, "r5": 0.0, "r10": 0.0, "all10": 0.0, "mrr": 0.0}
        latencies: list[float] = []
        for i, (qid, text) in enumerate(judged, start=1):
            body = RetrieveRequest.model_validate(
                {
                    "top_k": DEPTH * 3,
                    **request,
                    "query": text[:MAX_QUERY_CHARS],
                    "score_threshold": 0.0,
                    "strategy": strategy,
                }
            )
            started = time.perf_counter()
            hits = self.runtime.retrieval.retrieve(self.kb_id, body)
            latencies.append((time.perf_counter() - started) * 1000)
            ranking = list(dict.fromkeys(self.mapping[h.doc_id] for h in hits))
            qrels = dataset.qrels[qid]
            totals["ndcg"] += ndcg_at(ranking, qrels, DEPTH)
            totals["r5"] += recall_at(ranking, qrels, 5)
            totals["r10"] += recall_at(ranking, qrels, DEPTH)
            totals["all10"] += all_found_at(ranking, qrels, DEPTH)
            totals["mrr"] += mrr_at(ranking, qrels, DEPTH)
            if self.progress:
                self.progress("query", i, len(judged))
        n = len(judged)
        return EvalReport(
            ndcg_at_10=round(totals["ndcg"] / n, 4),
            recall_at_5=round(totals["r5"] / n, 4),
            recall_at_10=round(totals["r10"] / n, 4),
            all_recall_at_10=round(totals["all10"] / n, 4),
            mrr_at_10=round(totals["mrr"] / n, 4),
            latency_ms=Latency(
                p50=round(percentile(latencies, 50), 2), p95=round(percentile(latencies, 95), 2)
            ),
            queries=n,
            ingest_s=round(self.ingest_s, 2),
        )


def evaluate(
    runtime: Runtime,
    dataset: BeirDataset,
    strategy: StrategyName,
    kb_settings: dict[str, Any] | None = None,
    progress: Progress | None = None,
    **request: Any,
) -> EvalReport:
    with EvalSession(runtime, dataset, kb_settings, progress) as session:
        return session.run(strategy, **request)
