"""Domain types shared by every layer: knowledge bases, documents, chunks and hits."""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    field_validator,
    model_validator,
)

from planrag.core.graph_backends import GraphBackendName
from planrag.core.messages import Message

Metric = Literal["COSINE", "L2", "IP"]
GraphBackend = GraphBackendName  # "none" or a registered backend (core/graph_backends.py)
VectorStoreName = Literal["milvus", "pgvector"]
ChunkingStrategy = Literal["size", "parent_child", "context_aware"]
FileType = Literal["txt", "md", "pdf", "docx", "hwpx", "hwp", "html", "csv"]

# One rule for every value that is stored as document metadata and every value a filter
# compares with it (authors, titles, domains, document ids): no control characters but tab,
# newline and carriage return. Both sides refuse the same values (a 4xx), so nothing can be
# stored that a filter could never name.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def no_control_characters(value: str) -> str:
    if CONTROL_CHARACTERS.search(value):
        raise ValueError("control characters are not allowed (only tab and line breaks)")
    return value


def normalise_date(value: str) -> str:
    """A calendar date written YYYY-MM-DD, YYYYMMDD, YYYY.MM.DD or YYYY/MM/DD, as YYYY-MM-DD
    (ValueError for anything else, 2024-13-45 included)."""
    raw = value.strip()
    if raw.isdigit() and len(raw) != 8:  # strptime would read 2024031 as 2024-03-01
        raise ValueError("date must be a calendar date, YYYY-MM-DD or YYYYMMDD (8 digits)")
    for fmt in ("%Y-%m-%d", "%Y%m%d", "%Y.%m.%d", "%Y/%m/%d"):
        try:
            return datetime.strptime(raw, fmt).date().isoformat()
        except ValueError:
            continue
    raise ValueError("date must be a calendar date, YYYY-MM-DD or YYYYMMDD")


PlainText = Annotated[
    str,
    AfterValidator(no_control_characters),
    Field(json_schema_extra={"pattern": r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"}),
]


class DocumentStatus(StrEnum):
    pending = "pending"
    processing = "processing"
    completed = "completed"
    error = "error"
    # Being deleted: recorded before any index is touched, so a deletion a crash interrupts
    # is finished at the next start instead of leaving a `completed` document half removed.
    deleting = "deleting"


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
    """Mean reciprocal rank of each retrieval leg on pseudo-queries of one script, and the
    spread of their per-query difference (how far the difference of the means can be trusted)."""

    dense_mrr: float = Field(ge=0.0, le=1.0)
    lexical_mrr: float = Field(ge=0.0, le=1.0)
    queries: int = Field(ge=0)
    dense_base: float | None = Field(
        default=None,
        description="the cosine unrelated passages of this KB get from this model (median over "
        "non-matching pairs): e5 rates everything 0.7-0.9, MiniLM near 0",
    )
    dense_top: float | None = Field(
        default=None,
        description="the cosine a pseudo-query's own passage gets (median): with the baseline, "
        "the KB's own scale for cosines (baseline → 0, a typical match → 1)",
    )
    diff_sd: float | None = Field(
        default=None,
        ge=0.0,
        description="standard deviation of the per-query difference of the legs' reciprocal "
        "ranks (None: measured before it was recorded)",
    )


class LegFeedback(BaseModel):
    """What real asks say about a KB's legs, for queries of one script: per ask whose answer
    cited passages of the KB, the mean reciprocal rank each leg gave those passages. Kept as
    sums, so the same asks give the same evidence in any order."""

    asks: int = Field(default=0, ge=0)
    dense_rr: float = Field(default=0.0, ge=0.0, description="sum over asks of the dense leg's")
    lexical_rr: float = Field(default=0.0, ge=0.0, description="sum over asks of BM25's")
    diff_sq: float = Field(
        default=0.0, ge=0.0, description="sum over asks of the squared difference (dense − BM25)"
    )


class FusionCalibration(BaseModel):
    """How well each retrieval leg finds a KB's own passages, measured on pseudo-queries drawn
    from its chunks (no labels), per script (hangul, latin). Hybrid retrieval weights its legs
    with it."""

    scripts: dict[str, LegQuality] = Field(default_factory=dict)
    script_share: dict[str, float] = Field(
        default_factory=dict,
        description="share of the sampled chunks written in each script (hangul, latin): a "
        "query in a script the KB barely has is led by the dense leg",
    )
    cross_base: dict[str, float] = Field(
        default_factory=dict,
        description="the cosine unrelated passages of script B get from queries of script A "
        "('hangul>latin'): a passage in another language starts from a lower baseline",
    )
    evidence_floor: dict[str, float] = Field(
        default_factory=dict,
        description="the e5 similarity a passage of script B needs to be evidence for a question "
        "of script A ('hangul>latin'): the best similarity unrelated questions of A reach among "
        "the KB's passages of B; the ask path's cross-lingual evidence floor",
    )
    sentence_floor: dict[str, float] = Field(
        default_factory=dict,
        description="the same per direction for one sentence: the best similarity unrelated "
        "questions of A reach among the sentences of the KB's passages of B; a passage of B "
        "is evidence for a question of A when its best sentence reaches it",
    )
    queries: str = Field(
        default="halves", description="the pseudo-queries: chunk halves, or question-like ones"
    )
    chunk_count: int = Field(ge=0, description="searchable chunks when calibrated")
    calibrated_at: datetime
    feedback: dict[str, LegFeedback] = Field(
        default_factory=dict,
        description="per query script, the legs' ranks of the passages real answers cited "
        "(kept across recalibrations; blended into the weight as it accumulates)",
    )

    def cross_floors(self) -> CrossFloors:
        """Its cross-lingual evidence floors, of whole passages and of sentences."""
        return CrossFloors(passage=self.evidence_floor, sentence=self.sentence_floor)


class CrossFloors(BaseModel):
    """A KB's cross-lingual evidence floors per direction ('hangul>latin'): what a passage of
    the other script needs as a whole (`FusionCalibration.evidence_floor`) and by its best
    sentence (`sentence_floor`, used where measured)."""

    model_config = ConfigDict(frozen=True)

    passage: dict[str, float] = Field(default_factory=dict)
    sentence: dict[str, float] = Field(default_factory=dict)


class ReindexStatus(BaseModel):
    """A knowledge base's last re-embedding (`planrag kb reindex`, POST …/reindex). The old
    vectors serve until the new ones are complete; then the KB switches to them at once."""

    status: Literal["running", "completed", "failed"]
    embedding_model: str = Field(description="the model the vectors are being re-embedded with")
    embedding_dim: int = 0
    previous_model: str
    generation: int = Field(ge=1, description="vector generation being written")
    done: int = Field(default=0, ge=0, description="chunks embedded so far")
    total: int = Field(default=0, ge=0, description="chunks to embed")
    error: str | None = None
    started_at: datetime
    updated_at: datetime | None = Field(default=None, description="last progress saved")
    finished_at: datetime | None = None


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
    vector_generation: int = Field(
        default=0, ge=0, description="which set of vectors serves (a reindex writes the next)"
    )
    reindex: ReindexStatus | None = None
    per_user: bool = Field(
        default=False,
        description="asks search only the asking user's documents (spec 002 user_id)",
    )
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

    title: PlainText | None = Field(default=None, max_length=1000)
    author: PlainText | None = Field(default=None, max_length=200)
    domain: PlainText | None = Field(default=None, max_length=200)
    date: str | None = Field(default=None, description="YYYY-MM-DD or YYYYMMDD")
    info: str | None = Field(default=None, max_length=10000)
    tags: list[str] = Field(default_factory=list)
    user_id: PlainText | None = Field(
        default=None, max_length=200, description="the document's owner (spec 002 user_id)"
    )

    @field_validator("date")
    @classmethod
    def _normalise_date(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        return normalise_date(value)

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
    progress: str | None = Field(
        default=None,
        description="what indexing is doing (graph: extracting 12/40 chunks), or a note on it",
    )
    progress_detail: Message | None = Field(
        default=None, description="`progress` as a code and parameters (for translation)"
    )
    error_detail: Message | None = Field(
        default=None, description="`error` as a code and parameters (for translation)"
    )
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
    dense_base: float | None = Field(
        default=None, description="cosine mapped to 0 before weighing (the KB's baseline)"
    )
    dense_top: float | None = Field(
        default=None, description="cosine mapped to 1 before weighing (a typical match)"
    )
    script_base: dict[str, float] = Field(
        default_factory=dict,
        description="the baseline of passages in each script for this query's script (a "
        "passage in another language is rescaled from the cross-script baseline)",
    )
    confidence: float | None = Field(
        default=None,
        description="how far the calibration was trusted: 0 = even weights for lack of "
        "evidence, towards 1 = the measured difference taken at its word",
    )
    query_script: str | None = Field(default=None, description="hangul or latin")
    calibrated_dense_weight: float | None = Field(
        default=None,
        description="the knowledge base's calibrated dense weight, when this query's weight "
        "was matched to its legs' score spreads (dense_weight is what was used)",
    )
    feedback_asks: int | None = Field(
        default=None,
        description="answered asks whose cited passages' leg ranks were blended into the "
        "calibrated weight (None: none recorded for this query's script)",
    )
    feedback_confidence: float | None = Field(
        default=None,
        description="how far that feedback moved the weight: 0 = not at all (too few asks), "
        "towards 1 = to what the cited passages' ranks alone say",
    )


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
    dense_rank: int | None = Field(
        default=None, description="hybrid: the chunk's rank by the dense leg among the candidates"
    )
    lexical_rank: int | None = Field(
        default=None, description="hybrid: the chunk's rank by BM25 among the candidates"
    )
    rerank_score: float | None = Field(default=None, description="normalised reranker score")
    l2_distance: float | None = Field(default=None, description="exact L2 distance (flat L2)")
    fusion: FusionInfo | None = Field(
        default=None, description="hybrid: the leg weights chosen and why"
    )
    graph_score: float | None = Field(
        default=None, description="path score in the graph (1 = best graph-found chunk)"
    )
    graph_entities: list[str] | None = Field(
        default=None, description="the graph entities this chunk mentions that the search reached"
    )


class GraphQuery(BaseModel):
    """A graph query as a backend ran it: text with placeholders, and the values bound to them."""

    language: Literal["sparql", "cypher"]
    text: str
    params: dict[str, Any] = Field(default_factory=dict)


class GraphTriple(BaseModel):
    source: str
    type: str
    target: str
    sentence: str = Field(
        default="", description="the sentence the relation was read from ('' if none was kept)"
    )
    extracted_by: str = Field(
        default="", description="who found it: rule, llm or both ('' if not kept)"
    )
    documents: list[str] = Field(default_factory=list, description="the documents stating it")


class GraphMatchInfo(BaseModel):
    query: str = Field(description="the question's entity (normalised)")
    entity: str = Field(description="the graph entity it matched")
    exact: bool


class GraphAnalysis(BaseModel):
    multi_hop: bool = Field(description="a chained or nested relation (A의 B의 C, X that Y…)")
    pattern: str | None = Field(default=None, description="the multi-hop pattern detected")
    relation_hints: list[str] = Field(
        default_factory=list, description="relation words of the question (CEO, 스승, founded)"
    )
    hops: int = Field(ge=1, le=5)
    source: Literal["rules", "llm", "fallback"] = Field(
        default="rules",
        description="who read the question: rules (no LLM), llm, or fallback (the LLM failed "
        "and the rules read it)",
    )
    fallback_reason: str | None = Field(default=None, description="why the LLM's reading failed")


class GraphPath(BaseModel):
    """A multi-hop answer walked along the graph: the question's entity, the relations of its
    chain, the entity at the end (the answer), and the chunks that state each step."""

    entities: list[str] = Field(description="entity names along the path, the answer last")
    keys: list[str] = Field(default_factory=list, description="their keys")
    triples: list[GraphTriple] = Field(default_factory=list, description="one per step")
    answer: str
    answer_type: str = "CONCEPT"
    chunks: list[str] = Field(
        default_factory=list, description="per step, the chunk stating it (the last: the answer's)"
    )
    documents: list[str] = Field(default_factory=list, description="the chunks' documents")


class GraphMetadata(BaseModel):
    """How graph search contributed to a hit set (spec 001 §3.8.2 "메타데이터 표시")."""

    backend: str
    extracted_entities: list[str] = Field(description="entity names found in the question")
    matched_entities: list[GraphMatchInfo] = Field(default_factory=list)
    expanded_entities: list[str] = Field(
        default_factory=list, description="entities reached by traversal"
    )
    triples: list[GraphTriple] = Field(default_factory=list, description="relations traversed")
    queries: list[GraphQuery] = Field(default_factory=list, description="executed, in order")
    analysis: GraphAnalysis
    graph_chunks: int = Field(default=0, description="chunks the graph found")
    fallback: bool = Field(
        default=False, description="the graph found nothing: the base strategy alone answered"
    )
    path: GraphPath | None = Field(
        default=None, description="the multi-hop answer path, when the question's chain walked"
    )
    fallback_reason: str | None = None

    @computed_field(  # type: ignore[prop-decorator]
        description="spec 001: the SPARQL text that ran (ontology KBs; the queries in order, "
        "separated by blank lines); null for other backends"
    )
    @property
    def sparql_query(self) -> str | None:
        texts = [q.text for q in self.queries if q.language == "sparql"]
        return "\n\n".join(texts) if texts else None


class Hit(BaseModel):
    """One retrieval result. `score` is cosine similarity in [0, 1], best first."""

    chunk_id: str
    doc_id: str
    content: str
    score: float = Field(ge=0.0, le=1.0)
    metadata: HitMetadata = HitMetadata()
    graph_metadata: GraphMetadata | None = Field(
        default=None, description="present when graph search took part"
    )
    notices: list[str] | None = Field(
        default=None,
        description="what the search skipped and why, e.g. 2-stage without a reranker: the "
        "first stage's order, not reranked (null when nothing was skipped)",
    )


class KbFacets(BaseModel):
    """What a knowledge base holds, for planning: facet values grounded in its documents."""

    kb_id: str
    documents: int = 0
    authors: list[str] = Field(default_factory=list, description="most frequent first")
    domains: list[str] = Field(default_factory=list, description="most frequent first")
    date_from: str | None = None
    date_to: str | None = None
