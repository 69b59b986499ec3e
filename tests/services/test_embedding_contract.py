"""A knowledge base records its embedding model and dimension and refuses vectors of another;
any OpenAI-compatible embeddings endpoint can back a knowledge base."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from planrag.core.errors import EmbeddingMismatch
from planrag.core.settings import EmbeddingSettings, Settings
from planrag.core.types import DocumentStatus
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest
from planrag.stores.tables import KnowledgeBaseRow


def test_kb_of_another_dimension_refuses_new_vectors(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    assert (kb.embedding_model, kb.embedding_dim) == ("sentence-transformers/all-MiniLM-L6-v2", 384)
    with runtime.metadata.session() as s:  # as if built with a 768-dimension model
        s.execute(update(KnowledgeBaseRow).values(embedding_dim=768))

    doc = runtime.ingestion.upload(
        kb.id, [UploadItem(filename="a.txt", data=b"hello world")], background=False
    )[0]
    indexed = runtime.ingestion.index(doc.id)
    assert indexed.status == DocumentStatus.error
    assert "768" in (indexed.error or "")
    with pytest.raises(EmbeddingMismatch):
        runtime.retrieval.retrieve(kb.id, RetrieveRequest(query="hello"))


def test_knowledge_base_on_an_openai_compatible_endpoint(settings: Settings, embedders) -> None:
    from tests.llm.embedding_server import serve_embeddings

    with serve_embeddings(embedders.get()) as (base_url, calls):
        remote = EmbeddingSettings(provider="openai", base_url=base_url, model="remote-minilm")
        rt = Runtime.open(settings.model_copy(update={"embedding": remote}))
        try:
            kb = rt.knowledge_bases.create(KnowledgeBaseCreate(name="remote"))
            assert (kb.embedding_model, kb.embedding_dim) == ("remote-minilm", 384)
            docs = rt.ingestion.upload(
                kb.id,
                [
                    UploadItem(filename="a.txt", data=b"The invoice is due in 30 days."),
                    UploadItem(filename="b.txt", data=b"Our office dog is called Biscuit."),
                ],
                background=False,
            )
            assert [rt.ingestion.index(d.id).status for d in docs] == ["completed"] * 2
            hits = rt.retrieval.retrieve(kb.id, RetrieveRequest(query="what is the dog's name?"))
            assert hits[0].doc_id == docs[1].id
        finally:
            rt.close()
    assert len(calls) >= 3  # probe, documents, query all went through the endpoint
