"""The use cases behind the HTTP API dialects of spec 000, 003 and 004, grouped (the runtime,
`planrag/runtime.py`, wires them from the same stores and services as everything else)."""

from __future__ import annotations

from dataclasses import dataclass

from planrag.services.dialects.collections import CollectionService
from planrag.services.dialects.document_search import DocumentSearch
from planrag.services.dialects.json_documents import JsonDocumentService
from planrag.services.dialects.prompting import PromptService
from planrag.services.dialects.rag_pipeline import RagPipeline
from planrag.services.dialects.reranking import RerankService
from planrag.services.health import HealthService


@dataclass(frozen=True)
class DialectServices:
    documents: JsonDocumentService
    search: DocumentSearch
    pipeline: RagPipeline
    rerank: RerankService
    collections: CollectionService
    prompts: PromptService
    health: HealthService  # shared: the system routes report it too
