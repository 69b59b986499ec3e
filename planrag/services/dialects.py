"""The use cases behind the HTTP API dialects of spec 000, 003 and 004, grouped (the runtime,
`planrag/runtime.py`, wires them from the same stores and services as everything else)."""

from __future__ import annotations

from dataclasses import dataclass

from planrag.services.collections import CollectionService
from planrag.services.document_search import DocumentSearch
from planrag.services.health import HealthService
from planrag.services.json_documents import JsonDocumentService
from planrag.services.rag_pipeline import RagPipeline
from planrag.services.reranking import RerankService


@dataclass(frozen=True)
class DialectServices:
    documents: JsonDocumentService
    search: DocumentSearch
    pipeline: RagPipeline
    rerank: RerankService
    collections: CollectionService
    health: HealthService
