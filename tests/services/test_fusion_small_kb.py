"""Hybrid fusion on a small knowledge base and across languages, with e5 (the default model,
which reads Korean and English) over our own fixture corpus tests/fixtures/ko_company: eight
Korean documents and three English ones, one chunk each.

Issue 25: five such documents used to calibrate the dense leg down to 0.0027, so hybrid was BM25
alone and missed what only the dense leg finds; English questions over the Korean documents
reached hybrid's answer only when no query word matched anything.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.settings import E5_MODEL, EmbeddingSettings, Settings
from planrag.core.types import DocumentMetadata
from planrag.executors.calibration import FLOOR
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"


class Corpus:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        kb = runtime.knowledge_bases.create(
            KnowledgeBaseCreate(name="ko-company", embedding_model=E5_MODEL)
        )
        self.kb_id = kb.id
        self.names: dict[str, str] = {}
        for path in sorted(p for p in CORPUS.glob("*.md") if p.name != "README.md"):
            item = UploadItem(filename=path.name, data=path.read_bytes())
            doc = runtime.ingestion.upload(kb.id, [item], DocumentMetadata(), background=False)
            self.names[doc[0].id] = path.name
        runtime.ingestion.index_many(list(self.names))  # calibrates when it finishes

    def search(self, query: str, strategy: str, top_k: int = 3) -> list[tuple[str, str]]:
        request = RetrieveRequest.model_validate(
            {"query": query, "strategy": strategy, "top_k": top_k, "score_threshold": 0.0}
        )
        hits = self.runtime.retrieval.retrieve(self.kb_id, request)
        return [(self.names[h.doc_id], h.content) for h in hits]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    settings = Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("ko") / "data")  # type: ignore[call-arg]
    registry = EmbedderRegistry(EmbeddingSettings(model=E5_MODEL, threads=1))
    runtime = Runtime.open(settings, registry)
    try:
        yield Corpus(runtime)
    finally:
        runtime.close()


def test_a_small_kb_keeps_both_legs(corpus: Corpus) -> None:
    calibration = corpus.runtime.metadata.get_kb(corpus.kb_id).calibration
    assert calibration is not None
    assert calibration.script_share["hangul"] > 0.6
    hits = corpus.runtime.retrieval.retrieve(
        corpus.kb_id, RetrieveRequest(query="누리봇 S2의 판매 가격", strategy="hybrid", top_k=3)
    )
    fusion = hits[0].metadata.fusion
    assert fusion is not None and fusion.confidence is not None
    assert FLOOR <= fusion.dense_weight <= 1 - FLOOR  # a few noisy queries: bounded
    assert fusion.confidence < 0.9
    assert "confidence" in fusion.reason or "not calibrated" in fusion.reason


def test_hybrid_finds_a_passage_only_the_dense_leg_finds(corpus: Corpus) -> None:
    # a Korean question about an English document: BM25 matches other (Korean) documents
    query = "이천 공장 안전 점검의 점수는 몇 점이었나?"
    assert "en_safety_audit.md" not in [doc for doc, _ in corpus.search(query, "bm25")]
    assert "en_safety_audit.md" in [doc for doc, _ in corpus.search(query, "ann")]
    assert "en_safety_audit.md" in [doc for doc, _ in corpus.search(query, "hybrid")]


# Found in the top 3 by hybrid (bench.crosslingual has all 34 and the rates): English questions
# over the Korean documents, Korean ones over the English documents.
FOUND = ["x05", "x06", "x21", "x23", "x27", "x30", "x33"]


def test_cross_lingual_questions_find_their_passage_in_the_top_3(corpus: Corpus) -> None:
    lines = (CORPUS / "crosslingual.jsonl").read_text(encoding="utf-8").splitlines()
    questions = {q["id"]: q for q in (json.loads(line) for line in lines if line.strip())}
    assert len(questions) >= 30
    missed = []
    for key in FOUND:
        q = questions[key]
        hits = corpus.search(q["question"], "hybrid")
        if not any(doc == q["doc"] and q["answer"] in text for doc, text in hits):
            missed.append(key)
    assert missed == []
    led = corpus.runtime.retrieval.retrieve(
        corpus.kb_id,
        RetrieveRequest(query="Who is the CEO of Hanbit Robotics?", strategy="hybrid"),
    )[0]
    fusion = led.metadata.fusion
    assert fusion is not None and "dense-led" in fusion.reason and fusion.dense_weight == 1.0
    assert fusion.script_base["hangul"] < fusion.script_base["latin"]  # e5 favours its language
