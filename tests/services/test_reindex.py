"""Reindex: a MiniLM knowledge base re-embedded with e5 (real models, real Milvus Lite). The old
vectors answer until the switch; documents added or deleted meanwhile are caught up; a model that
cannot be loaded changes nothing. (A server killed mid-reindex: tests/app/test_crash_recovery.py.)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.errors import Conflict, ModelUnavailable, NotFound
from planrag.core.settings import E5_MODEL, MINILM_MODEL, EmbeddingSettings, Settings
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest
from planrag.stores.router import vector_key

DOCS = {
    "flu.txt": "독감 예방접종은 매년 10월부터 가까운 보건소에서 무료로 받을 수 있다.",
    "loan.txt": "주택담보대출 금리는 기준금리에 가산금리를 더해 정해진다.",
    "museum.txt": "국립중앙박물관은 매주 월요일에 문을 닫는다.",
    "bike.txt": "서울시 공공자전거 따릉이의 이용 요금이 다음 달부터 인상된다.",
    "tax.txt": "연말정산 서류는 회사에 1월 말까지 제출해야 한다.",
}
QUESTION = "감기 주사는 어디서 공짜로 맞을 수 있나요?"  # no word in common with flu.txt


@pytest.fixture
def runtime(tmp_path: Path, embedders) -> Iterator[Runtime]:  # type: ignore[no-untyped-def]
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        embedding=EmbeddingSettings(model=MINILM_MODEL, threads=1, batch_size=2),
    )
    rt = Runtime.open(settings, embedders)
    yield rt
    rt.close()


def add(runtime: Runtime, kb_id: str, filename: str, text: str) -> str:
    doc = runtime.ingestion.upload(
        kb_id, [UploadItem(filename=filename, data=text.encode())], background=False
    )[0]
    runtime.ingestion.index_many([doc.id])
    return doc.id


def ann(runtime: Runtime, kb_id: str, query: str = QUESTION) -> list[str]:
    hits = runtime.retrieval.retrieve(kb_id, RetrieveRequest(query=query, top_k=5, strategy="ann"))
    return [h.metadata.filename for h in hits]


def test_reindex_serves_old_vectors_until_the_switch_and_catches_up(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="ko"))
    assert kb.embedding_model == MINILM_MODEL
    ids = {name: add(runtime, kb.id, name, text) for name, text in DOCS.items()}
    seen: list[tuple[str, list[str]]] = []

    def during(done: int, total: int) -> None:
        if not seen:  # first batch written to the new generation: the old one still answers
            serving = runtime.metadata.get_kb(kb.id)
            seen.append((serving.embedding_model, ann(runtime, kb.id, DOCS["loan.txt"])))
            add(runtime, kb.id, "late.txt", "도서관 대출 기간은 2주이며 한 번 연장할 수 있다.")
            runtime.ingestion.delete(kb.id, ids["loan.txt"])  # already in the new generation

    status = runtime.reindex.start(kb.id, "e5", background=False, progress=during)

    assert seen[0][0] == MINILM_MODEL and seen[0][1][0] == "loan.txt"
    assert status.status == "completed" and status.error is None
    assert (status.previous_model, status.embedding_model) == (MINILM_MODEL, E5_MODEL)
    after = runtime.metadata.get_kb(kb.id)
    assert (after.embedding_model, after.vector_generation) == (E5_MODEL, 1)
    # the old model's calibration is dropped; the one measured after the switch is e5's
    assert after.calibration is None or after.calibration.calibrated_at >= status.started_at
    # Every current chunk and nothing else, embedded with e5: the Korean paraphrase finds it.
    chunks = sum(d.chunk_count for d in runtime.ingestion.documents(kb.id))
    assert runtime.vectors.count(kb.id) == chunks == status.done
    assert ann(runtime, kb.id)[0] == "flu.txt"
    assert "loan.txt" not in ann(runtime, kb.id, DOCS["loan.txt"])
    assert ann(runtime, kb.id, "책을 빌리면 며칠 동안 볼 수 있나요?")[0] == "late.txt"
    # Ingestion after the switch embeds with the KB's new model.
    add(runtime, kb.id, "park.txt", "한강공원에서는 여름마다 야외 수영장을 운영한다.")
    assert ann(runtime, kb.id, "강변 공원의 물놀이 시설")[0] == "park.txt"
    # The old generation is dropped once in-flight queries are done (at once on close).
    runtime.reindex.close()
    store, key = runtime.vectors.at_generation(kb.id, 0)
    assert key == vector_key(kb.id, 0) and not store.has_collection(key)


def test_a_model_that_cannot_load_changes_nothing(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="en"))
    add(runtime, kb.id, "museum.txt", "The museum is closed on Mondays.")
    with pytest.raises(NotFound):
        runtime.reindex.status(kb.id)
    with pytest.raises(ModelUnavailable):
        runtime.reindex.start(kb.id, "some-org/not-a-local-model")
    same = runtime.metadata.get_kb(kb.id)
    assert (same.embedding_model, same.vector_generation, same.reindex) == (MINILM_MODEL, 0, None)
    assert ann(runtime, kb.id, "When is the museum closed?") == ["museum.txt"]


def test_one_reindex_at_a_time(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="two"))
    for name in ("flu.txt", "loan.txt", "museum.txt"):
        add(runtime, kb.id, name, DOCS[name])
    release = threading.Event()
    first = runtime.reindex.start(kb.id, MINILM_MODEL, progress=lambda *_: release.wait(60))
    assert first.status == "running" and first.total == 3
    with pytest.raises(Conflict):
        runtime.reindex.start(kb.id, MINILM_MODEL)
    running = runtime.reindex.status(kb.id)
    assert running.status == "running" and running.done <= running.total == 3
    release.set()
    assert runtime.reindex.wait(kb.id).status == "completed"
    assert runtime.metadata.get_kb(kb.id).vector_generation == 1
    second = runtime.reindex.start(kb.id, MINILM_MODEL, background=False)
    assert (second.status, second.generation) == ("completed", 2)
    assert ann(runtime, kb.id, DOCS["museum.txt"])[0] == "museum.txt"


def test_a_switch_by_another_process_mid_ingestion_is_followed(runtime: Runtime) -> None:
    """With a shared queue, a reindex in another process can switch a KB between this process
    embedding a document and completing it (no lock spans processes). Simulated here by making
    that switch from the ingestion's progress callback: the document ends in the new vectors."""
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="mp"))
    doc = runtime.ingestion.upload(
        kb.id, [UploadItem(filename="museum.txt", data=b"The museum is closed on Mondays.")]
    )[0]
    runtime.ingestion.wait()
    store, key = runtime.vectors.at_generation(kb.id, 1)
    store.create_collection(key, kb.embedding_dim, kb.metric)

    def switch(_done: int, _total: int) -> None:
        runtime.metadata.update_kb(kb.id, {"vector_generation": 1})
        runtime.vectors.forget(kb.id)

    runtime.ingestion.index(doc.id, progress=switch)
    assert runtime.vectors.count(kb.id) == runtime.ingestion.documents(kb.id)[0].chunk_count == 1
    assert ann(runtime, kb.id, "When is the museum closed?") == ["museum.txt"]
