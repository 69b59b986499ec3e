"""The use cases behind the HTTP API dialects of spec 000, 003 and 004, wired from the runtime's
stores and services (the same knowledge bases, strategies and rerankers as everything else)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from planrag.services.collections import CollectionService
from planrag.services.document_search import DocumentSearch
from planrag.services.health import HealthService
from planrag.services.json_documents import JsonDocumentService
from planrag.services.rag_pipeline import RagPipeline
from planrag.services.reranking import RerankService

if TYPE_CHECKING:
    from planrag.services.runtime import Runtime


@dataclass(frozen=True)
class DialectServices:
    documents: JsonDocumentService
    search: DocumentSearch
    pipeline: RagPipeline
    rerank: RerankService
    collections: CollectionService
    health: HealthService

    @classmethod
    def build(cls, runtime: Runtime) -> DialectServices:
        rerank = RerankService(runtime.rerankers)
        search = DocumentSearch(runtime.metadata, runtime.retrieval, rerank)
        return cls(
            documents=JsonDocumentService(runtime.metadata, runtime.ingestion),
            search=search,
            pipeline=RagPipeline(search, runtime.retrieval, runtime.embedders),
            rerank=rerank,
            collections=CollectionService(runtime.vectors),
            health=HealthService(
                runtime.metadata.engine, runtime.vectors, runtime.embedders, runtime.settings.llm
            ),
        )
