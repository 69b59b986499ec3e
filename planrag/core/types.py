"""Domain types shared by every layer: knowledge bases, documents, chunks and hits."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Metric = Literal["COSINE", "L2", "IP"]
GraphBackend = Literal["none", "ontology", "neo4j"]
VectorStoreName = Literal["milvus", "pgvector"]
ChunkingStrategy = Literal["size", "parent_child", "context_aware"]
FileType = Literal["txt", "md", "pdf"]


class DocumentStatus(StrEnum):
    pending = "pending"
    processing = "processing"
    completed = "completed"
    error = "error"


class ChunkKind(StrEnum):
    chunk = "chunk"  # embedded and returned as is
    parent = "parent"  # context only, never embedded
    child = "child"  # embedded; its parent is returned as context


class ChunkingConfig(BaseModel):
    """How a knowledge base splits documents (spec 001 §3.2)."""

    model_config = ConfigDict(extra="forbid")

    strategy: ChunkingStrategy = "size"
    unit: Literal["chars", "tokens"] = "chars"
    chunk_size: int = Field(default=800, ge=20, le=20000)
    chunk_overlap: int = Field(default=100, ge=0, le=5000)
    parent_size: int = Field(default=2000, ge=100, le=50000)
    child_size: int = Field(default=400, ge=20, le=20000)

    @model_validator(mode="after")
    def _check_sizes(self) -> ChunkingConfig:
        # A default the user never set follows the size they did set (an eighth, a fifth) rather
        # than being reported as an error about a value they never gave.
        given = self.model_fields_set
        if self.chunk_overlap >= self.chunk_size and "chunk_overlap" not in given:
            self.chunk_overlap = self.chunk_size // 8
        if self.child_size >= self.parent_size and "child_size" not in given:
            self.child_size = max(20, self.parent_size // 5)
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size "
                f"({self.chunk_size})"
            )
        if self.child_size >= self.parent_size:
            raise ValueError(
                f"child_size ({self.child_size}) must be smaller than parent_size "
                f"({self.parent_size})"
            )
        return self


class LegQuality(BaseModel):
    """Mean reciprocal rank of each retrieval leg on pseudo-queries of one script."""

    dense_mrr: float = Field(ge=0.0, le=1.0)
    lexical_mrr: float = Field(ge=0.0, le=1.0)
    queries: int = Field(ge=0)


class FusionCalibration(BaseModel):
    """How well each retrieval leg finds a KB's own passages, measured on pseudo-queries drawn
    from its chunks (no labels), per script (hangul, latin). Hybrid retrieval weights its legs
    with it."""

    scripts: dict[str, LegQuality] = Field(default_factory=dict)
    chunk_count: int = Field(ge=0, description="searchable chunks when calibrated")
    calibrated_at: datetime


class KnowledgeBase(BaseModel):
    id: str
    name: str
    description: str = ""
    top_k: int = 5
    score_threshold: float = 0.0
    metric: Metric = "COSINE"
    chunking: ChunkingConfig = ChunkingConfig()
    embedding_model: str
    embedding_dim: int
    graph_backend: GraphBackend = "none"
    user_words: list[str] = Field(
        default_factory=list, description="proper nouns and compounds kept whole by BM25"
    )
    calibration: FusionCalibration | None = None
    vector_store: VectorStoreName = "milvus"
    created_at: datetime
    updated_at: datetime


class KnowledgeBaseStats(BaseModel):
    document_count: int = 0
    chunk_count: int = 0
    size_bytes: int = 0
    last_updated: datetime | None = None


class DocumentMetadata(BaseModel):
    """User-supplied metadata of a document; every field optional."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = Field(default=None, max_length=1000)
    author: str | None = Field(default=None, max_length=200)
    domain: str | None = Field(default=None, max_length=200)
    date: str | None = Field(default=None, description="YYYY-MM-DD or YYYYMMDD")
    info: str | None = Field(default=None, max_length=10000)
    tags: list[str] = Field(default_factory=list)

    @field_validator("date")
    @classmethod
    def _normalise_date(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        raw = value.strip()
        for fmt in ("%Y-%m-%d", "%Y%m%d", "%Y.%m.%d", "%Y/%m/%d"):
            try:
                return datetime.strptime(raw, fmt).date().isoformat()
            except ValueError:
                continue
        raise ValueError("date must be YYYY-MM-DD or YYYYMMDD")

    def date_int(self) -> int:
        """The date as YYYYMMDD for range filters; 0 when unknown."""
        if not self.date:
            return 0
        return int(self.date.replace("-", ""))


class Document(BaseModel):
    id: str
    kb_id: str
    filename: str
    file_type: FileType
    status: DocumentStatus
    error: str | None = None
    size: int
    content_hash: str
    chunk_count: int = 0
    metadata: DocumentMetadata = DocumentMetadata()
    created_at: datetime
    updated_at: datetime


def title_text(doc: Document) -> str:
    """What a document's title vector embeds: its title, else its filename as words."""
    if doc.metadata.title and doc.metadata.title.strip():
        return doc.metadata.title.strip()
    stem = doc.filename.rsplit(".", 1)[0] if "." in doc.filename else doc.filename
    return " ".join(stem.replace("_", " ").replace("-", " ").split())


class Chunk(BaseModel):
    """A piece of a document, as stored in the metadata DB (so any index can be rebuilt)."""

    id: str
    doc_id: str
    position: int
    text: str
    kind: ChunkKind = ChunkKind.chunk
    parent_id: str | None = None
    page: int | None = None
    start: int = 0
    end: int = 0


class FusionInfo(BaseModel):
    """How a hybrid search weighted its legs, and why."""

    mode: str
    dense_weight: float
    lexical_weight: float
    reason: str
    rrf_k: int | None = None


class HitMetadata(BaseModel):
    filename: str | None = None
    title: str | None = None
    author: str | None = None
    domain: str | None = None
    date: str | None = None
    page: int | None = None
    position: int | None = None
    parent_id: str | None = None
    matched_text: str | None = Field(
        default=None, description="The child chunk that matched when the parent is returned"
    )
    dense_score: float | None = Field(
        default=None, description="cosine similarity (title-weighted when weights.title > 0)"
    )
    title_score: float | None = Field(
        default=None, description="cosine similarity of the query to the document's title"
    )
    lexical_score: float | None = Field(default=None, description="normalised BM25")
    rerank_score: float | None = Field(default=None, description="normalised reranker score")
    l2_distance: float | None = Field(default=None, description="exact L2 distance (flat L2)")
    fusion: FusionInfo | None = Field(
        default=None, description="hybrid: the leg weights chosen and why"
    )


class Hit(BaseModel):
    """One retrieval result. `score` is cosine similarity in [0, 1], best first."""

    chunk_id: str
    doc_id: str
    content: str
    score: float = Field(ge=0.0, le=1.0)
    metadata: HitMetadata = HitMetadata()


class KbFacets(BaseModel):
    """What a knowledge base holds, for planning: facet values grounded in its documents."""

    kb_id: str
    documents: int = 0
    authors: list[str] = Field(default_factory=list, description="most frequent first")
    domains: list[str] = Field(default_factory=list, description="most frequent first")
    date_from: str | None = None
    date_to: str | None = None
