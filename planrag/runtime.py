"""The composition root: opens every store once and wires the services (HTTP and CLI share it).

It sits above `services/` (nothing in services imports it), so the wiring never cycles."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from threadpoolctl import threadpool_limits

from planrag.core.child_process import LowPriorityProcess
from planrag.core.errors import KnowledgeBaseNotFound
from planrag.core.settings import LLMSettings, Settings
from planrag.core.types import FusionCalibration
from planrag.executors.calibration_questions import QuestionWriter
from planrag.executors.fusion import FusionCalibrator, StoredVectors
from planrag.executors.graph_questions import LLMQuestionReader, rule_reading
from planrag.executors.registry import ExecutorDeps, ExecutorRegistry
from planrag.ingest.inflation import ReadLimits
from planrag.llm.chat import ChatClient
from planrag.llm.embedders import EmbedderRegistry
from planrag.llm.rerankers import RerankerRegistry
from planrag.services.ask import AskService
from planrag.services.auth import AuthService
from planrag.services.conversations import ConversationService
from planrag.services.dialects.collections import CollectionService
from planrag.services.dialects.dialect_services import DialectServices
from planrag.services.dialects.document_search import DocumentSearch
from planrag.services.dialects.json_documents import JsonDocumentService
from planrag.services.dialects.prompting import PromptService
from planrag.services.dialects.rag_pipeline import RagPipeline
from planrag.services.dialects.reranking import RerankService
from planrag.services.documents import DocumentService
from planrag.services.graph_indexing import GraphIndexer
from planrag.services.graph_view import GraphExplorer
from planrag.services.health import HealthService
from planrag.services.ingestion import IngestionService
from planrag.services.kb_locks import KbLocks
from planrag.services.knowledge_bases import KnowledgeBaseService
from planrag.services.reindex import ReindexService
from planrag.services.retrieval import RetrievalService
from planrag.stores import migrations
from planrag.stores.bm25 import BM25Store
from planrag.stores.conversations import ConversationStore
from planrag.stores.extractions import ExtractionCache
from planrag.stores.files import FileStore
from planrag.stores.graphs import GraphStores
from planrag.stores.job_queue import IndexVersions, JobQueue
from planrag.stores.metadata import MetadataStore, make_engine
from planrag.stores.milvus import MilvusStore
from planrag.stores.pgvector import PgVectorStore
from planrag.stores.postgres import PostgresProvider, metadata_url
from planrag.stores.principals import PrincipalStore
from planrag.stores.router import VectorStoreRouter
from planrag.stores.search_batching import BatchingVectorStore
from planrag.stores.vector import VectorStore
from planrag.text.tokenizer import load_user_dictionary

log = logging.getLogger(__name__)


def question_writer(llm: LLMSettings, chat: ChatClient) -> QuestionWriter | None:
    """The LLM that writes calibration questions; None when the setting turns them off (an
    unconfigured LLM is the writer's own check)."""
    return QuestionWriter(chat, llm.answer_timeout_s) if llm.calibration_questions else None


def build_calibrator(
    metadata: MetadataStore,
    embedders: EmbedderRegistry,
    questions: QuestionWriter | None = None,
    stored: StoredVectors | None = None,
) -> FusionCalibrator:
    """Hybrid fusion weights per KB, measured after indexing (and on demand); with the LLM's
    questions as calibration queries when one is configured, and the KB's stored chunk vectors
    for its evidence floors."""

    def save(kb_id: str, calibration: FusionCalibration) -> None:
        metadata.update_kb(kb_id, {"calibration": calibration.model_dump(mode="json")})

    return FusionCalibrator(
        metadata.sample_chunks,
        save,
        metadata.get_kb,
        metadata.searchable_chunk_count,
        embedders,
        questions,
        stored,
    )


def open_vector_stores(
    settings: Settings, metadata: MetadataStore, postgres: PostgresProvider
) -> VectorStoreRouter:
    """Milvus (opened now, as before) and pgvector (opened, and its embedded server started, on
    the first call for a KB that uses it), each KB routed by its `vector_store`."""
    cfg = settings.milvus
    milvus: VectorStore = MilvusStore(
        settings.milvus_uri,
        cfg.token,
        cfg.index_type,
        keepalive_s=cfg.keepalive_s,
        connect_timeout_s=cfg.connect_timeout_s,
    )
    if cfg.search_batch_window_ms > 0:  # concurrent searches share Milvus calls
        milvus = BatchingVectorStore(
            milvus, window_s=cfg.search_batch_window_ms / 1000, max_batch=cfg.search_batch_max
        )

    def store_of(kb_id: str) -> tuple[str, int] | None:
        try:
            kb = metadata.get_kb(kb_id)
        except KnowledgeBaseNotFound:
            return None
        return kb.vector_store, kb.vector_generation

    router = VectorStoreRouter(
        store_of,
        {
            "milvus": lambda: milvus,
            "pgvector": lambda: PgVectorStore(postgres.conninfo(), settings.pg),
        },
        shared=settings.ingest.queue == "database",
    )
    router.opened("milvus")  # registered as open, so that close() closes it
    return router


def open_graph_stores(settings: Settings) -> GraphStores:
    """Every registered graph backend (`ontology`: embedded pyoxigraph or a SPARQL endpoint;
    `neo4j`: a Bolt server by URI; any plugin's), each opened on first use."""
    return GraphStores.from_settings(settings)


def indexing_process(settings: Settings) -> LowPriorityProcess | None:
    """The niced helper process that tokenises and embeds passages for indexing (started on
    first use), or None when PLANRAG_INGEST__EMBED_PROCESS is false."""
    if not settings.ingest.embed_process:
        return None
    user_dict = settings.bm25.user_dict
    setup = [(load_user_dictionary, (Path(user_dict),))] if user_dict else []
    return LowPriorityProcess(setup=setup)


@dataclass
class Runtime:
    settings: Settings
    metadata: MetadataStore
    vectors: VectorStoreRouter
    files: FileStore
    embedders: EmbedderRegistry
    bm25: BM25Store
    executors: ExecutorRegistry
    rerankers: RerankerRegistry
    calibrator: FusionCalibrator
    chat: ChatClient
    knowledge_bases: KnowledgeBaseService
    ingestion: IngestionService
    retrieval: RetrievalService
    postgres: PostgresProvider
    reindex: ReindexService
    graphs: GraphStores
    helper: LowPriorityProcess | None = None

    @classmethod
    def open(cls, settings: Settings, embedders: EmbedderRegistry | None = None) -> Runtime:
        # numpy's BLAS threads fight torch's on small machines (see DESIGN.md).
        threadpool_limits(limits=1, user_api="blas")
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        if settings.bm25.user_dict:
            load_user_dictionary(Path(settings.bm25.user_dict))
        postgres = PostgresProvider(settings.pg, settings.pg_data_dir)
        engine = make_engine(metadata_url(settings, postgres))
        migrations.upgrade(engine)
        metadata = MetadataStore(engine)
        vectors = open_vector_stores(settings, metadata, postgres)
        files = FileStore(settings.files_dir)
        embedders = embedders or EmbedderRegistry(settings.embedding)
        # Several processes (queue mode `database`) share a jobs table and index versions.
        shared = settings.ingest.queue == "database"
        versions = IndexVersions(engine, "lexical") if shared else None
        bm25 = BM25Store(settings.data_dir / "bm25", metadata.lexical_rows, versions)
        chat = ChatClient(settings.llm)  # every LLM call: planner, answers, reranker, health
        rerankers = RerankerRegistry(settings.rerank, settings.llm, chat)
        calibrator = build_calibrator(
            metadata, embedders, question_writer(settings.llm, chat), vectors.get_vectors
        )
        executors = ExecutorRegistry.build(
            ExecutorDeps(
                rerankers=rerankers,
                calibrator=calibrator,
                graph_boost=settings.graph.boost,
                graph_reader=(
                    LLMQuestionReader(chat)
                    if settings.graph.question_analysis == "auto"
                    else rule_reading
                ),
            )
        )
        graphs = open_graph_stores(settings)
        graph_indexer = GraphIndexer(
            graphs, settings.graph, lambda: chat, ExtractionCache(metadata.engine)
        )
        locks = KbLocks()  # ingestion (shared) against a reindex's switch (exclusive)
        helper = indexing_process(settings)
        return cls(
            settings=settings,
            metadata=metadata,
            vectors=vectors,
            files=files,
            embedders=embedders,
            bm25=bm25,
            executors=executors,
            rerankers=rerankers,
            calibrator=calibrator,
            chat=chat,
            knowledge_bases=KnowledgeBaseService(
                metadata, vectors, files, embedders, bm25, graphs, recalibrate=calibrator.refresh
            ),
            ingestion=IngestionService(
                metadata,
                vectors,
                files,
                embedders,
                bm25,
                max_upload_bytes=settings.max_upload_bytes,
                max_files=settings.ingest.max_files_per_request,
                concurrency=settings.ingest.concurrency,
                queue=JobQueue(engine) if shared else None,
                graph=graph_indexer,
                on_indexed=calibrator.refresh,
                on_settled=calibrator.settle,
                locks=locks,
                process=helper,
                limits=ReadLimits(
                    max_inflated_bytes=int(settings.ingest.max_inflated_mb * 1024 * 1024),
                    max_chunks=settings.ingest.max_chunks,
                ),
            ),
            retrieval=RetrievalService(
                metadata,
                vectors,
                bm25,
                embedders,
                executors,
                rerankers,
                graphs,
            ),
            postgres=postgres,
            graphs=graphs,
            helper=helper,
            reindex=ReindexService(
                metadata,
                vectors,
                embedders,
                locks,
                batch=settings.embedding.batch_size,
                shared=settings.ingest.queue == "database",
                recalibrate=calibrator.refresh,
                process=helper,
            ),
        )

    @cached_property
    def dialects(self) -> DialectServices:
        """The use cases behind the spec 000/003/004 API dialects."""
        rerank = RerankService(self.rerankers)
        search = DocumentSearch(self.metadata, self.retrieval, rerank)
        return DialectServices(
            documents=JsonDocumentService(self.metadata, self.ingestion),
            search=search,
            pipeline=RagPipeline(search, self.retrieval, self.embedders),
            rerank=rerank,
            collections=CollectionService(self.vectors),
            prompts=PromptService(search, self.chat, self.settings.llm),
            health=HealthService(self.metadata.engine, self.vectors, self.embedders, self.chat),
        )

    @cached_property
    def documents(self) -> DocumentService:
        """A knowledge base's documents over the API: staged uploads, per-user visibility."""
        return DocumentService(
            self.metadata,
            self.files,
            self.ingestion,
            auth_enabled=self.settings.auth.enabled,
            max_upload_bytes=self.settings.max_upload_bytes,
            max_files=self.settings.ingest.max_files_per_request,
        )

    @cached_property
    def auth(self) -> AuthService:
        """API keys, users and bearer tokens (PLANRAG_AUTH__…)."""
        return AuthService(PrincipalStore(self.metadata.engine), self.settings.auth)

    @cached_property
    def graph_explorer(self) -> GraphExplorer:
        """A KB's graph for the console: neighbourhoods, most connected entities, sources."""
        return GraphExplorer(self.metadata, self.graphs, auth_enabled=self.settings.auth.enabled)

    @cached_property
    def ask(self) -> AskService:
        """Plan → execute → answer (POST /ai/v2/ask, /ai/v2/plan, traces, CLI ask/plan)."""
        return AskService.build(
            self.settings,
            self.metadata,
            self.retrieval,
            self.chat,
            self.executors.strategies,
            learn=self.calibrator.learn,
            floors=self.calibrator.cross_floors,
        )

    @cached_property
    def conversations(self) -> ConversationService:
        """Follow-up questions: standalone questions and the turns the server keeps."""
        ask = self.settings.ask
        store = ConversationStore(
            self.metadata.engine, ask.conversation_max_turns, ask.conversation_ttl_days
        )
        return ConversationService(store, self.chat, ask, self.settings.planner)

    def warm_up(self) -> threading.Thread:
        """Load the default embedding model in the background so the first request is quick."""

        def load() -> None:
            try:
                self.embedders.get()
            except Exception as exc:  # reported again, clearly, on first real use
                log.error("embedding model could not be loaded: %s", exc)

        thread = threading.Thread(target=load, name="warm-up", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        if "ask" in self.__dict__:  # built on first use (cached_property)
            self.ask.close()
        self.ingestion.close()
        if self.helper is not None:
            self.helper.close()  # an indexing call in flight stops at once
        self.reindex.close()
        self.vectors.close()
        self.graphs.close()
        self.metadata.engine.dispose()
        self.postgres.close()  # stops the embedded PostgreSQL if this process started it
