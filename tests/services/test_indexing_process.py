"""Indexing through the niced helper process (PLANRAG_INGEST__EMBED_PROCESS=true, the server's
default): the real models give the vectors they give in process, Kiwi tokens reach BM25, progress
is reported, a helper that dies is a document error with its cause, and no process outlives the
runtime. (The rest of the suite indexes in process: conftest.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import planrag.runtime
from planrag.core.child_process import LowPriorityProcess
from planrag.core.settings import E5_MODEL, MINILM_MODEL, EmbeddingSettings, Settings
from planrag.core.types import DocumentStatus
from planrag.llm.e5 import E5Embedder
from planrag.llm.embed_process import ProcessEmbedder, model_spec, offload
from planrag.llm.embedders import EmbedderRegistry, OpenAIEmbedder
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest
from tests.services.crashing_helper import kill_on_embed

TEXT = (
    "따릉이는 서울시 공공자전거다. 대여소에서 앱으로 빌리고 아무 대여소에나 반납한다. "
    "독감 예방접종은 보건소와 지정 의료기관에서 맞을 수 있다. "
    "연차 휴가는 입사 1년 뒤 15일이 생기고, 남은 휴가는 다음 해로 넘어가지 않는다. "
) * 3


def process_settings(tmp_path: Path, **embedding: object) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        ingest={"embed_process": True},
        embedding={"threads": 1, **embedding},
    )


def index_one(runtime: Runtime, text: str = TEXT) -> tuple[str, str]:
    kb = runtime.knowledge_bases.create(
        KnowledgeBaseCreate(name="helper", chunking={"chunk_size": 80, "chunk_overlap": 0})
    )
    (doc,) = runtime.ingestion.upload(
        kb.id, [UploadItem(filename="a.txt", data=text.encode())], background=False
    )
    return kb.id, doc.id


def stored_and_local(runtime: Runtime, kb_id: str, doc_id: str, local) -> float:  # type: ignore[no-untyped-def]
    chunks = runtime.metadata.list_chunks(doc_id)
    stored = runtime.vectors.get_vectors(kb_id, [c.id for c in chunks])
    ours = np.asarray([stored[c.id] for c in chunks])
    theirs = np.asarray(local.embed([c.text for c in chunks]))
    return float(np.abs(ours - theirs).max())


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


@pytest.fixture
def e5_runtime(tmp_path: Path) -> Iterator[Runtime]:
    runtime = Runtime.open(process_settings(tmp_path, model=E5_MODEL))
    yield runtime
    runtime.close()


def test_e5_passages_embedded_by_the_helper_equal_in_process_ones(e5_runtime) -> None:
    kb_id, doc_id = index_one(e5_runtime)
    steps: list[tuple[int, int]] = []
    done = e5_runtime.ingestion.index(doc_id, progress=lambda n, total: steps.append((n, total)))
    assert done.status == DocumentStatus.completed and done.chunk_count >= 3
    helper = e5_runtime.helper
    assert helper is not None and helper.starts == 1 and helper.pid is not None
    assert steps[-1] == (done.chunk_count, done.chunk_count)
    assert stored_and_local(e5_runtime, kb_id, doc_id, E5Embedder(1)) <= 1e-5
    # Tokens came from the helper's Kiwi: a keyword search finds the particle-free noun.
    hits = e5_runtime.retrieval.retrieve(kb_id, RetrieveRequest(query="따릉이를", strategy="bm25"))
    assert hits and "따릉이" in hits[0].content
    pid = helper.pid
    e5_runtime.close()
    assert gone(pid)


def test_sentence_transformers_passages_from_the_helper_equal_in_process_ones(embedders) -> None:  # type: ignore[no-untyped-def]
    local = embedders.get(MINILM_MODEL)
    helper = LowPriorityProcess()
    try:
        wrapped = offload(local, helper)
        assert isinstance(wrapped, ProcessEmbedder)
        assert wrapped.spec.kind == "sentence-transformers" and wrapped.dimension == 384
        texts = [TEXT[:60], TEXT[60:200], "Bike sharing in Seoul"]
        ours = np.asarray(wrapped.embed(texts))
        assert float(np.abs(ours - np.asarray(local.embed(texts))).max()) <= 1e-5
        assert wrapped.embed_queries(["따릉이"]) == local.embed_queries(["따릉이"])  # here
        pid = helper.pid
    finally:
        helper.close()
    assert pid is not None and gone(pid)


def test_a_remote_embedding_endpoint_stays_in_process() -> None:
    remote = OpenAIEmbedder(EmbeddingSettings(provider="openai", base_url="http://127.0.0.1:9"))
    helper = LowPriorityProcess()
    assert model_spec(remote) is None and offload(remote, helper) is remote
    assert helper.pid is None  # nothing started for it
    assert offload(remote, None) is remote


def test_e5_is_offloaded_with_its_thread_count() -> None:
    spec = model_spec(EmbedderRegistry(EmbeddingSettings(threads=1)).get(E5_MODEL))
    assert spec is not None and spec.kind == "e5" and spec.threads == 1


def test_a_helper_dying_mid_batch_fails_the_document_with_its_cause(
    tmp_path, embedders, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    crashing = LowPriorityProcess(setup=[(kill_on_embed, ())], poll_s=0.02)
    monkeypatch.setattr(planrag.runtime, "indexing_process", lambda settings: crashing)
    runtime = Runtime.open(process_settings(tmp_path, model=MINILM_MODEL), embedders)
    try:
        kb_id, doc_id = index_one(runtime)
        failed = runtime.ingestion.index(doc_id)
        assert failed.status == DocumentStatus.error and failed.chunk_count == 0
        assert "died twice (killed by SIGKILL)" in (failed.error or "")
        assert crashing.starts == 2  # retried once with a fresh helper
        assert runtime.vectors.count(kb_id) == 0
    finally:
        runtime.close()
    assert crashing.pid is None
