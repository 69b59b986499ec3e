"""Knowledge-base use cases: create, list with stats, update, cascading delete."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from planrag.core.errors import InvalidInput, PlanragError
from planrag.core.types import (
    ChunkingConfig,
    ChunkKind,
    DocumentStatus,
    GraphBackend,
    KnowledgeBase,
    KnowledgeBaseStats,
    Metric,
    VectorStoreName,
)
from planrag.llm.embedders import EmbedderRegistry
from planrag.stores.bm25 import BM25Store
from planrag.stores.files import FileStore
from planrag.stores.graphs import GraphStores
from planrag.stores.metadata import MetadataStore
from planrag.stores.vector import VectorStore
from planrag.text.tokenizer import tokenizer_for

# A name: up to 200 characters, not only spaces, no slash and no character that changes how
# text around it shows: controls (C0, C1), bidirectional marks, embeddings, overrides and
# isolates (U+061C, U+200E-F, U+202A-E, U+2066-9), line and paragraph separators (U+2028-9).
_REFUSED = r"\x00-\x1f\x7f-\x9f/\\\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
NAME_PATTERN = rf"^[^{_REFUSED}]*[^\s{_REFUSED}][^{_REFUSED}]*$"
NAME_MAX = 200


class KnowledgeBaseCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN, max_length=NAME_MAX, examples=["team-docs"])
    description: str = Field(default="", max_length=5000)
    top_k: int = Field(default=5, ge=1, le=50)
    score_threshold: float = Field(default=0.0, ge=0.0, le=1.0)
    metric: Metric = "COSINE"
    chunking: ChunkingConfig = ChunkingConfig()
    embedding_model: str | None = Field(
        default=None,
        max_length=200,
        description="defaults to PLANRAG_EMBEDDING__MODEL; one of "
        "PLANRAG_EMBEDDING__ALLOWED_MODELS otherwise",
    )
    graph_backend: GraphBackend = "none"  # the schema's enum is core.types.GraphBackend
    vector_store: VectorStoreName = Field(
        default="milvus",
        description="where the KB's vectors live: Milvus, or PostgreSQL with pgvector; fixed",
    )
    user_words: list[str] = Field(
        default_factory=list,
        max_length=10000,
        description="proper nouns and compounds BM25 keeps whole (a per-KB user dictionary)",
    )
    per_user: bool = Field(
        default=False,
        description="each ask searches only the asking user's documents (spec 002 user_id)",
    )


class KnowledgeBaseUpdate(BaseModel):
    """Changes to a knowledge base. Metric, model, graph backend and vector store are fixed at
    creation."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, pattern=NAME_PATTERN, max_length=NAME_MAX)
    description: str | None = Field(default=None, max_length=5000)
    top_k: int | None = Field(default=None, ge=1, le=50)
    score_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    chunking: ChunkingConfig | None = Field(
        default=None,
        description="the KB's documents are re-chunked in the background (PATCH route)",
    )
    user_words: list[str] | None = Field(
        default=None, max_length=10000, description="re-tokenises the KB's chunks for BM25"
    )
    per_user: bool | None = Field(
        default=None, description="each ask searches only the asking user's documents"
    )


class GraphInfo(BaseModel):
    """A KB's graph: its backend and size (entities, distinct relations)."""

    backend: GraphBackend = "none"
    entities: int = 0
    relations: int = 0
    error: str | None = Field(default=None, description="why the counts are missing")


class KnowledgeBaseView(KnowledgeBase):
    stats: KnowledgeBaseStats
    graph: GraphInfo = GraphInfo()


class KnowledgeBaseService:
    def __init__(
        self,
        metadata: MetadataStore,
        vectors: VectorStore,
        files: FileStore,
        embedders: EmbedderRegistry,
        bm25: BM25Store,
        graphs: GraphStores | None = None,
        recalibrate: Callable[[str], object] | None = None,
    ) -> None:
        self._graphs = graphs
        # Fusion weights are measured again off the query path when the tokens change.
        self._recalibrate = recalibrate
        self._metadata = metadata
        self._vectors = vectors
        self._files = files
        self._embedders = embedders
        self._bm25 = bm25

    def create(self, request: KnowledgeBaseCreate) -> KnowledgeBaseView:
        if request.graph_backend != "none":
            if self._graphs is None:
                raise InvalidInput("graph backends are not available in this deployment")
            self._graphs.check(request.graph_backend)
        model = (
            self._embedders.check_allowed(request.embedding_model)
            if request.embedding_model
            else self._embedders.default_model
        )
        dimension = self._embedders.get(model).dimension
        now = datetime.now(UTC)
        kb = KnowledgeBase(
            id=str(uuid.uuid4()),
            **request.model_dump(exclude={"embedding_model"}),
            embedding_model=model,
            embedding_dim=dimension,
            created_at=now,
            updated_at=now,
        )
        kb = self._metadata.create_kb(kb)
        try:
            self._vectors.create_collection(kb.id, dimension, kb.metric)
            if self._graphs is not None and kb.graph_backend != "none":
                self._graphs.get(kb.graph_backend).create_graph(kb.id)
        except Exception:
            self._metadata.delete_kb(kb.id)
            raise
        return self._view(kb)

    def graph_info(self, kb: KnowledgeBase) -> GraphInfo:
        if kb.graph_backend == "none" or self._graphs is None:
            return GraphInfo(backend=kb.graph_backend)
        try:
            stats = self._graphs.get(kb.graph_backend).stats(kb.id)
        except PlanragError as exc:  # an unreachable graph server must not hide the KB
            return GraphInfo(backend=kb.graph_backend, error=exc.message)
        return GraphInfo(
            backend=kb.graph_backend, entities=stats.entities, relations=stats.relations
        )

    def _view(self, kb: KnowledgeBase) -> KnowledgeBaseView:
        stats = self._metadata.kb_stats([kb.id])[kb.id]
        return KnowledgeBaseView(**kb.model_dump(), stats=stats, graph=self.graph_info(kb))

    def get(self, kb_id: str) -> KnowledgeBaseView:
        return self._view(self._metadata.get_kb(kb_id))

    def get_by_name(self, name: str) -> KnowledgeBaseView:
        return self._view(self._metadata.get_kb_by_name(name))

    def count(self) -> int:
        return len(self._metadata.list_kbs())

    def list(self) -> list[KnowledgeBaseView]:
        kbs = self._metadata.list_kbs()
        stats = self._metadata.kb_stats(kb.id for kb in kbs)
        return [
            KnowledgeBaseView(**kb.model_dump(), stats=stats[kb.id], graph=self.graph_info(kb))
            for kb in kbs
        ]

    def update(self, kb_id: str, request: KnowledgeBaseUpdate) -> KnowledgeBaseView:
        changes = request.model_dump(exclude_unset=True, exclude_none=True)
        if "chunking" in changes:
            changes["chunking"] = ChunkingConfig.model_validate(changes["chunking"]).model_dump()
        if not changes:
            return self.get(kb_id)
        kb = self._metadata.update_kb(kb_id, changes)
        if "user_words" in changes:
            self._retokenise(kb)
        return self._view(kb)

    def _retokenise(self, kb: KnowledgeBase) -> None:
        """New user words change how every chunk splits: re-tokenise, then rebuild BM25."""
        tokenizer = tokenizer_for(kb.user_words)
        for doc in self._metadata.list_documents(kb.id, [DocumentStatus.completed]):
            chunks = self._metadata.list_chunks(doc.id)
            searchable = [c for c in chunks if c.kind != ChunkKind.parent]
            tokens = tokenizer.index_tokens_many(c.text for c in searchable)
            self._metadata.replace_chunks(
                doc.id, chunks, {c.id: t for c, t in zip(searchable, tokens, strict=True)}
            )
        self._metadata.update_kb(kb.id, {"calibration": None})
        self._bm25.mark_dirty(kb.id)
        if self._recalibrate is not None:
            self._recalibrate(kb.id)

    def delete(self, kb_id: str) -> None:
        """Cascade: graph, vectors, documents, chunks and files. Safe to retry after a crash."""
        kb = self._metadata.get_kb(kb_id)
        if self._graphs is not None and kb.graph_backend != "none":
            self._graphs.get(kb.graph_backend).drop_graph(kb_id)
        self._vectors.drop_collection(kb_id)
        self._bm25.drop(kb_id)
        self._files.delete_kb(kb_id)
        self._metadata.delete_kb(kb_id)
