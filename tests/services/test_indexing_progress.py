"""A document being embedded says how far it is (`chunks embedded n/N`), step by step."""

from __future__ import annotations

from planrag.core.messages import Message
from planrag.services.document_indexer import EMBED_BATCH
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate


def test_progress_counts_embedded_chunks(runtime, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    kb = runtime.knowledge_bases.create(
        KnowledgeBaseCreate(name="progress", chunking={"chunk_size": 60, "chunk_overlap": 0})
    )
    text = "".join(f"{i}번 문장은 연차 휴가 규정의 한 부분이다. " for i in range(EMBED_BATCH * 3))
    seen: list[tuple[str, Message | None]] = []
    real = runtime.metadata.set_progress
    monkeypatch.setattr(
        runtime.metadata,
        "set_progress",
        lambda doc_id, progress: (seen.append((doc_id, progress)), real(doc_id, progress))[1],
    )
    (doc,) = runtime.ingestion.upload(kb.id, [UploadItem(filename="규정.txt", data=text.encode())],
                                      background=False)  # fmt: skip
    done = runtime.ingestion.index(doc.id)
    total = done.chunk_count
    assert total > EMBED_BATCH
    shown = [p for d, p in seen if d == doc.id and p and p.code == "chunks_embedded"]
    steps = [p.text for p in shown]
    assert steps[0] == f"chunks embedded 0/{total}"
    assert f"chunks embedded {EMBED_BATCH}/{total}" in steps
    assert steps[-1] == f"chunks embedded {total}/{total}"
    # The code and its parameters, for the console to say it in the user's language.
    assert [p.params for p in shown][-1] == {"done": total, "total": total}
    assert shown[0].params == {"done": 0, "total": total}
    assert runtime.metadata.get_document(doc.id).progress is None  # cleared when completed
