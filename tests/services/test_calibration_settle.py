"""A knowledge base's fusion calibration once its indexing is done covers exactly its searchable
chunks (issue 25, stability): before, it was measured only when the KB had doubled, so which
subset it covered depended on how the background workers' documents happened to interleave,
and three ingestions of the same set could calibrate on different chunks. Both queues: this
process's threads and the shared job queue with an indexing worker."""

from __future__ import annotations

from pathlib import Path

import pytest

from planrag.core.settings import IngestSettings, Settings
from planrag.core.types import DocumentMetadata
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.workers import IndexingWorker

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"
FIRST = ["hanbit_company.md", "hr_policy.md", "investment.md", "nuribot_products.md"]
MORE = ["nuritech.md"]


def upload(runtime: Runtime, kb_id: str, names: list[str]) -> None:
    for name in names:  # one request each, indexed in the background
        item = UploadItem(filename=name, data=(CORPUS / name).read_bytes())
        runtime.ingestion.upload(kb_id, [item], DocumentMetadata())


def calibrated_on(runtime: Runtime, kb_id: str) -> tuple[int, int]:
    calibration = runtime.metadata.get_kb(kb_id).calibration
    assert calibration is not None
    return calibration.chunk_count, runtime.metadata.searchable_chunk_count(kb_id)


@pytest.mark.parametrize("queue", ["process", "database"])
def test_the_calibration_covers_every_chunk_once_indexing_is_done(
    tmp_path: Path, embedders: EmbedderRegistry, queue: str
) -> None:
    ingest = IngestSettings(queue=queue, embed_process=False, poll_s=0.05)  # type: ignore[arg-type]
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", ingest=ingest)  # type: ignore[call-arg]
    runtime = Runtime.open(settings, embedders)
    worker = None
    if queue == "database":
        assert runtime.ingestion.queue is not None
        worker = IndexingWorker(runtime.ingestion, runtime.ingestion.queue, ingest).start()
    try:
        kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="settle"))
        upload(runtime, kb.id, FIRST)
        runtime.ingestion.wait()
        first = runtime.metadata.get_kb(kb.id).calibration
        covered, chunks = calibrated_on(runtime, kb.id)
        assert covered == chunks
        # one more document: far from doubling the KB, still measured once it is indexed
        upload(runtime, kb.id, MORE)
        runtime.ingestion.wait()
        covered, more = calibrated_on(runtime, kb.id)
        assert more > chunks and covered == more
        assert first is not None
        assert runtime.metadata.get_kb(kb.id).calibration.calibrated_at > first.calibrated_at  # type: ignore[union-attr]
    finally:
        if worker is not None:
            worker.stop()
        runtime.close()


def test_an_upload_of_several_documents_is_measured_after_the_first_and_once_settled(
    tmp_path: Path, embedders: EmbedderRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While more of a KB's documents wait in the queue, the refresh after each document (the
    KB has doubled) is not measured: the settled calibration replaces it within the same
    upload. The first document still calibrates a KB that has none (searches during a long
    ingestion are weighted), and the end covers every chunk."""
    ingest = IngestSettings(concurrency=1, embed_process=False)
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", ingest=ingest)  # type: ignore[call-arg]
    runtime = Runtime.open(settings, embedders)
    measured: list[int] = []
    measure = runtime.calibrator._measure

    def counted(kb, embedder, size):  # type: ignore[no-untyped-def]
        measured.append(size)
        return measure(kb, embedder, size)

    monkeypatch.setattr(runtime.calibrator, "_measure", counted)
    try:
        kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="batch"))
        items = [UploadItem(filename=n, data=(CORPUS / n).read_bytes()) for n in FIRST + MORE]
        runtime.ingestion.upload(kb.id, items, DocumentMetadata())
        runtime.ingestion.wait()
        covered, chunks = calibrated_on(runtime, kb.id)
        assert covered == chunks
        first = runtime.metadata.get_document(
            next(d.id for d in runtime.metadata.list_documents(kb.id) if d.filename == FIRST[0])
        )
        assert measured == [first.chunk_count, chunks]  # the KB doubled on the way: not measured
    finally:
        runtime.close()
