"""Strategy conformance: one test class runs every strategy against the same small knowledge
base (real Kiwi, real bm25s, real Milvus Lite, the real embedding model). 2-stage reranks through
a real HTTP rerank service backed by the embedding model, so its order is meaningful."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from planrag.core.filters import RetrieveFilters
from planrag.core.settings import RerankSettings, Settings
from planrag.core.types import DocumentMetadata
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate, KnowledgeBaseUpdate
from planrag.services.retrieval import RetrieveRequest
from planrag.text.tokenizer import LexicalTokenizer
from tests.llm.rerank_models import serve_rerank

DOCS = [
    (
        "metaverse.txt",
        "메타버스 플랫폼 기업들이 가상 세계 서비스를 빠르게 확대하고 있다.",
        DocumentMetadata(author="kim", domain="tech", date="2024-03-15"),
    ),
    (
        "bike.txt",
        "서울시 공공자전거 따릉이의 이용 요금이 다음 달부터 인상된다.",
        DocumentMetadata(author="lee", domain="city", date="2023-07-01"),
    ),
    (
        "library.txt",
        "공공 도서관 옆에 새 자전거 도로가 생겼다.",
        DocumentMetadata(author="lee", domain="city", date="2023-08-01"),
    ),
    (
        "museum.txt",
        "The city museum is closed on Mondays, and admission is free for children.",
        DocumentMetadata(author="smith", domain="culture", date="2024-01-10"),
    ),
    (
        "revenue.txt",
        "Quarterly revenue grew twelve percent, driven by strong cloud sales.",
        DocumentMetadata(author="kim", domain="finance", date="2024-06-30"),
    ),
    (
        "volcano.txt",
        "Volcanic eruptions release ash and sulfur dioxide into the atmosphere.",
        DocumentMetadata(author="park", domain="science", date="2022-11-02"),
    ),
]
STRATEGIES = ["ann", "keyword", "bm25", "hybrid", "2-stage"]
LEXICAL = ["keyword", "bm25", "hybrid"]


class EmbeddingReranker:
    """Cosine of the real embedding model: a meaningful stand-in reranker behind HTTP."""

    def __init__(self, embedder) -> None:  # type: ignore[no-untyped-def]
        self.embedder = embedder

    def score(self, query: str, passages: list[str]) -> list[float]:
        q = np.asarray(self.embedder.embed([query])[0])
        return [max(0.0, float(q @ np.asarray(v))) for v in self.embedder.embed(passages)]


def build(runtime: Runtime, name: str, **settings: object) -> tuple[str, dict[str, str]]:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=name, **settings))  # type: ignore[arg-type]
    ids = {}
    for filename, text, meta in DOCS:
        doc = runtime.ingestion.upload(
            kb.id, [UploadItem(filename=filename, data=text.encode())], meta, background=False
        )[0]
        ids[filename] = doc.id
    runtime.ingestion.index_many(list(ids.values()))
    return kb.id, ids


@pytest.fixture(scope="module")
def world(tmp_path_factory, embedders) -> Iterator[tuple[Runtime, str, dict[str, str]]]:
    with serve_rerank(EmbeddingReranker(embedders.get())) as (url, _seen):
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            data_dir=Path(tmp_path_factory.mktemp("strategies")),
            rerank=RerankSettings(backend="http", url=url),
        )
        runtime = Runtime.open(settings, embedders)
        kb_id, ids = build(runtime, "conformance")
        yield runtime, kb_id, ids
        runtime.close()


def search(world, strategy: str, query: str, **options: object):  # type: ignore[no-untyped-def]
    runtime, kb_id, _ = world
    body = {"query": query, "strategy": strategy, "top_k": 6, "score_threshold": 0.0, **options}
    request = RetrieveRequest.model_validate(body)
    return runtime.retrieval.retrieve(kb_id, request)


@pytest.mark.parametrize("strategy", STRATEGIES)
class TestStrategyConformance:
    def test_known_answer_ranks_first(self, world, strategy: str) -> None:
        hits = search(world, strategy, "Which day is the city museum closed?")
        assert hits[0].doc_id == world[2]["museum.txt"]
        hits = search(world, strategy, "volcanic eruptions and sulfur dioxide")
        assert hits[0].doc_id == world[2]["volcano.txt"]

    def test_scores_are_in_unit_interval_and_sorted(self, world, strategy: str) -> None:
        hits = search(world, strategy, "museum admission for children")
        assert hits
        assert all(0.0 <= h.score <= 1.0 for h in hits)
        if strategy != "2-stage":  # 2-stage keeps the reranked order and shows cosine
            assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    def test_threshold_keeps_only_scores_at_or_above_it(self, world, strategy: str) -> None:
        everything = search(world, strategy, "museum admission for children")
        cut = everything[0].score - 1e-6
        kept = search(world, strategy, "museum admission for children", score_threshold=cut)
        assert kept and all(h.score >= cut for h in kept)
        assert {h.chunk_id for h in kept} <= {h.chunk_id for h in everything}
        strict = search(world, strategy, "museum admission", score_threshold=1.0)
        assert all(h.score == 1.0 for h in strict)

    def test_filters_restrict_results(self, world, strategy: str) -> None:
        only_kim = RetrieveFilters(authors=["kim"])
        hits = search(world, strategy, "revenue growth and cloud sales", filters=only_kim)
        assert hits and {h.metadata.author for h in hits} == {"kim"}
        dated = RetrieveFilters(date_from="2024-01-01", date_to="2024-03-31")
        hits = search(world, strategy, "museum closed on Mondays", filters=dated)
        assert hits and all("2024-01-01" <= (h.metadata.date or "") <= "2024-03-31" for h in hits)

    def test_deleted_document_is_never_returned(self, world, strategy: str, embedders) -> None:
        runtime, _, _ = world
        kb_id, ids = build(runtime, f"deletion-{strategy}")
        runtime.ingestion.delete(kb_id, ids["museum.txt"])
        request = RetrieveRequest(
            query="Which day is the city museum closed?",
            strategy=strategy,
            top_k=6,  # type: ignore[arg-type]
        )
        hits = runtime.retrieval.retrieve(kb_id, request)
        assert ids["museum.txt"] not in {h.doc_id for h in hits}
        runtime.knowledge_bases.delete(kb_id)


@pytest.mark.parametrize("strategy", LEXICAL)
def test_korean_particles_match_the_bare_noun(world, strategy: str) -> None:
    hits = search(world, strategy, "메타버스는 어떤 서비스를 확대하나요?")
    assert hits[0].doc_id == world[2]["metaverse.txt"]


def test_user_dictionary_keeps_a_compound_whole(world) -> None:
    assert LexicalTokenizer().tokenize("공공자전거") == ["공공", "자전거"]
    assert LexicalTokenizer(["공공자전거"]).tokenize("공공자전거를 탔다") == ["공공자전거"]

    runtime, kb_id, ids = world
    plain = search(world, "bm25", "공공자전거")
    assert {h.doc_id for h in plain} >= {ids["bike.txt"], ids["library.txt"]}

    compound_kb, compound_ids = build(runtime, "compound", user_words=["공공자전거"])
    request = RetrieveRequest(query="공공자전거", strategy="bm25", top_k=6)
    hits = runtime.retrieval.retrieve(compound_kb, request)
    assert [h.doc_id for h in hits] == [compound_ids["bike.txt"]]

    # Changing a KB's words re-tokenises its chunks.
    runtime.knowledge_bases.update(compound_kb, KnowledgeBaseUpdate(user_words=[]))
    hits = runtime.retrieval.retrieve(compound_kb, request)
    assert {h.doc_id for h in hits} >= {compound_ids["bike.txt"], compound_ids["library.txt"]}
    runtime.knowledge_bases.delete(compound_kb)


def test_hybrid_reports_its_weights(world) -> None:
    hits = search(world, "hybrid", "museum closed on Mondays")
    fusion = hits[0].metadata.fusion
    assert fusion is not None
    assert fusion.dense_weight + fusion.lexical_weight == pytest.approx(1.0)
    assert fusion.reason
    parallel = search(world, "hybrid", "museum closed on Mondays", hybrid_mode="parallel")
    assert parallel[0].metadata.fusion.mode == "parallel"
    assert parallel[0].metadata.fusion.rrf_k == 60


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
def test_hybrid_hits_come_in_score_order(world, mode: str) -> None:
    """Parallel (RRF) hits used to show the weighted sum: 0.69, 0.211, 0.329, …"""
    for query in ("museum closed on Mondays", "따릉이 요금", "library opening hours"):
        hits = search(world, "hybrid", query, hybrid_mode=mode, top_k=8)
        scores = [h.score for h in hits]
        assert len(scores) > 1 and scores == sorted(scores, reverse=True), (query, scores)
        assert all(0.0 <= s <= 1.0 for s in scores)


def test_flat_l2_rescoring(world) -> None:
    plain = {h.chunk_id: h for h in search(world, "ann", "museum closed on Mondays")}
    hits = search(
        world,
        "hybrid",
        "museum closed on Mondays",
        use_brute_force=True,
        brute_force_top_k=2,
        brute_force_threshold=2.0,
    )
    assert 1 <= len(hits) <= 2
    for hit in hits:
        distance = hit.metadata.l2_distance
        assert distance is not None and distance <= 2.0
        assert hit.score == pytest.approx(1 / (1 + distance))
        cosine = plain[hit.chunk_id].score  # unit vectors: d² = 2 − 2·cos
        assert distance == pytest.approx(np.sqrt(max(0.0, 2 - 2 * cosine)), abs=1e-4)
    strict = search(
        world, "ann", "museum closed on Mondays", use_brute_force=True, brute_force_threshold=0.01
    )
    assert strict == []


def test_ner_filter_penalises_chunks_without_the_entity(world) -> None:
    runtime, _, _ = world
    kb_id, ids = build(runtime, "ner")
    extra = [
        ("actor.txt", "오영수 배우는 드라마에서 깐부 할아버지 역할을 맡았다."),
        ("other.txt", "드라마에서 주인공 역할을 맡은 배우가 큰 인기를 얻었다."),
    ]
    docs = runtime.ingestion.upload(
        kb_id, [UploadItem(filename=n, data=t.encode()) for n, t in extra], background=False
    )
    runtime.ingestion.index_many([d.id for d in docs])
    body = {"query": "오영수 배우의 역할은?", "strategy": "bm25", "top_k": 5, "score_threshold": 0}
    without = {
        h.doc_id: h.score for h in runtime.retrieval.retrieve(kb_id, RetrieveRequest(**body))
    }
    hits = runtime.retrieval.retrieve(kb_id, RetrieveRequest(**body, use_ner_filter=True))
    assert hits[0].doc_id == docs[0].id
    for hit in hits[1:]:
        if hit.doc_id in without and "오영수" not in hit.content:
            assert hit.score == pytest.approx(without[hit.doc_id] * 0.3)
    runtime.knowledge_bases.delete(kb_id)


def test_optional_reranker_scores_and_cuts(world) -> None:
    hits = search(
        world, "bm25", "museum closed on Mondays for children", use_reranker=True, reranker_top_k=2
    )
    assert len(hits) <= 2
    assert all(h.metadata.rerank_score == h.score for h in hits)
    assert hits[0].doc_id == world[2]["museum.txt"]
    high = search(
        world, "ann", "museum closed on Mondays", use_reranker=True, reranker_threshold=0.99
    )
    assert all(h.score >= 0.99 for h in high)
    with pytest.raises(ValueError):
        RetrieveRequest(query="x", strategy="2-stage", use_reranker=True)


def test_global_user_dictionary_file(tmp_path: Path, embedders) -> None:
    from planrag.core.settings import BM25Settings

    assert LexicalTokenizer().tokenize("뽀롱뽀롱섬나라 여행") != ["뽀롱뽀롱섬나라", "여행"]
    dictionary = tmp_path / "user_dic.txt"
    dictionary.write_text("뽀롱뽀롱섬나라\tNNP\n", encoding="utf-8")
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", bm25=BM25Settings(user_dict=str(dictionary))
    )
    runtime = Runtime.open(settings, embedders)
    try:
        assert LexicalTokenizer().tokenize("뽀롱뽀롱섬나라 여행") == ["뽀롱뽀롱섬나라", "여행"]
    finally:
        runtime.close()
    missing = settings.model_copy(update={"bm25": BM25Settings(user_dict=str(tmp_path / "nope"))})
    with pytest.raises(Exception, match="PLANRAG_BM25__USER_DICT"):
        Runtime.open(missing, embedders)
