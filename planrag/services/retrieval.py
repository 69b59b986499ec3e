"""Retrieval use case: a query against one knowledge base through a whitelisted executor,
hits best first, scores in [0, 1] whatever the strategy."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planrag.core.errors import InvalidInput
from planrag.core.filters import And, Filter, NotIn, RetrieveFilters
from planrag.core.strategies import StrategyName, strategy_info
from planrag.core.types import (
    FusionInfo,
    Hit,
    HitMetadata,
    KnowledgeBase,
    title_text,
)
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.pipeline import FlatL2Step, PostProcessing, RerankStep, post_process
from planrag.executors.registry import ExecutorRegistry
from planrag.llm.embedders import Embedder, EmbedderRegistry
from planrag.llm.rerankers import RerankerRegistry
from planrag.planner.schema import Weights
from planrag.services.ownership import OwnershipResolver, restricted_ids
from planrag.stores.bundle import StoreBundle
from planrag.stores.catalog import Catalog
from planrag.stores.graph import GraphStore
from planrag.stores.graphs import GraphStores
from planrag.stores.lexical import LexicalStore
from planrag.stores.metadata import MetadataStore
from planrag.stores.record_filter import matches
from planrag.stores.vector import VectorStore

MAX_QUERY_CHARS = 2000
RERANK_POOL = 25


# Spec 002's weights: dense score = chunk·cos(chunk) + title·cos(document title). One model for
# the plan and the retrieve API.
ScoreWeights = Weights


class RetrieveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, examples=["환불 규정이 어떻게 되나요?"]
    )
    top_k: int | None = Field(default=None, ge=1, le=50, description="defaults to the KB's top_k")
    score_threshold: float | None = Field(
        default=None, ge=0.0, le=1.0, description="defaults to the KB's score_threshold"
    )
    strategy: StrategyName = "ann"
    hybrid_mode: Literal["sequential", "parallel"] = "sequential"
    rrf_k: int = Field(default=60, ge=1, le=1000, description="RRF constant (parallel hybrid)")
    filters: RetrieveFilters | None = None
    weights: ScoreWeights | None = Field(
        default=None,
        description="title weighting of dense scores (ann, hybrid's dense leg, keyword, "
        "2-stage); documents without a title vector keep their chunk score",
    )
    use_reranker: bool = Field(default=False, description="rerank (every strategy but 2-stage)")
    reranker_top_k: int = Field(default=5, ge=1, le=20)
    reranker_threshold: float = Field(default=0.0, ge=0.0, le=1.0)
    use_ner_filter: bool = Field(
        default=False, description="score × 0.3 for chunks without the question's entities"
    )
    use_brute_force: bool = Field(default=False, description="flat L2 re-scoring")
    brute_force_top_k: int = Field(default=1, ge=1, le=20)
    brute_force_threshold: float = Field(default=1.5, ge=0.0, le=2.0)
    enable_graph_search: bool = Field(
        default=False,
        description="add graph-found chunks (KBs with a graph): Hybrid (+Graph) / (+Ontology)",
    )
    graph_hops: int = Field(default=2, ge=1, le=5, description="relations traversed")

    @model_validator(mode="after")
    def _check_combinations(self) -> RetrieveRequest:
        if self.use_reranker and strategy_info(self.strategy).reranks:
            raise ValueError(
                f"{self.strategy} already reranks: use_reranker is for the other strategies"
            )
        return self


class RetrievalService:
    def __init__(
        self,
        metadata: MetadataStore,
        vectors: VectorStore,
        bm25: LexicalStore,
        embedders: EmbedderRegistry,
        executors: ExecutorRegistry,
        rerankers: RerankerRegistry,
        graphs: GraphStores | None = None,
    ) -> None:
        self._graphs = graphs
        self._metadata = metadata
        self._vectors = vectors
        self._bm25 = bm25
        self._embedders = embedders
        self._executors = executors
        self._rerankers = rerankers
        self._catalog = Catalog(metadata.engine)

    def embedder_for(self, kb: KnowledgeBase) -> Embedder:
        """The embedder the knowledge base was built with (the answer reader's e5)."""
        return self._embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)

    def retrieve(
        self,
        kb_id: str,
        request: RetrieveRequest,
        notes: list[str] | None = None,
        documents: frozenset[str] | None = None,
    ) -> list[Hit]:
        """Hits best first; `notes` (when given) receives what the caller should be told, e.g.
        that 2-stage's reranking was skipped because no reranker can load. `documents` (a
        per-user KB: the asker's) is what graph search may see; the request's filters must
        already be narrowed to them (`retrieve_as` does both)."""
        kb = self._metadata.get_kb(kb_id)
        if not request.query.strip():
            raise InvalidInput("query is blank")
        executor = self._executors.get(
            request.strategy, request.graph_hops if request.enable_graph_search else None
        )
        if request.use_reranker:
            self._rerankers.get()  # a missing reranker is a 503 whether or not anything matches
        top_k = request.top_k or kb.top_k
        threshold = (
            kb.score_threshold if request.score_threshold is None else request.score_threshold
        )
        embedder = self._embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
        ctx = QueryContext(
            kb,
            request.query,
            embedder,
            self._stores(kb, request),
            self._title_texts,
            hidden=self._catalog.unfinished_documents(kb.id),
            chunk_filter=self._chunk_filter,
            documents=documents,
            chunk_texts=self._texts,
        )
        steps = self._steps(request, threshold)
        params = SearchParams(
            top_k=self._fetch_size(kb, steps, top_k),
            where=self._where(kb, request.filters),
            hybrid_mode=request.hybrid_mode,
            rrf_k=request.rrf_k,
            title_weight=request.weights.title if request.weights else 0.0,
        )
        found = executor.run(ctx, params)
        found = post_process(ctx, found, steps, self._texts, self._rerankers)
        if notes is not None:
            notes.extend(ctx.notes)
        hits = self._to_hits(kb, found, ctx.fusion)[:top_k]
        if ctx.graph is not None:
            hits = [h.model_copy(update={"graph_metadata": ctx.graph}) for h in hits]
        if ctx.notes:  # in the body too, not only in a header (a client may never read it)
            hits = [h.model_copy(update={"notices": list(ctx.notes)}) for h in hits]
        return hits

    def _stores(self, kb: KnowledgeBase, request: RetrieveRequest) -> StoreBundle:
        """The stores this query reads: the vectors, the BM25 index and, for graph search, the
        knowledge base's graph store (opened only then: a query without it never needs it)."""
        graph = None
        if request.enable_graph_search:
            if request.use_brute_force:
                raise InvalidInput(
                    "graph search and flat L2 (use_brute_force) are exclusive (spec 001 §3.7)"
                )
            if self._graphs is None:
                raise InvalidInput("graph search is not available in this deployment")
            graph = self._graphs.for_kb(kb.graph_backend)  # None: the graph step says why
        return StoreBundle(vector=self._vectors, lexical=self._bm25, graph=graph)

    def _chunk_filter(self, chunk_ids: list[str], where: Filter) -> set[str]:
        """The chunks the filter allows, evaluated on their document's metadata (chunks the
        graph found outside the filtered search)."""
        chunks = self._metadata.get_chunks(chunk_ids)
        docs = self._metadata.get_documents({c.doc_id for c in chunks.values()})
        allowed = set()
        for chunk in chunks.values():
            doc = docs.get(chunk.doc_id)
            if doc is None:
                continue
            meta = doc.metadata
            record: dict[str, object] = {
                "doc_id": doc.id,
                "chunk_id": chunk.id,
                "title": meta.title or doc.filename,
                "author": meta.author or "",
                "domain": meta.domain or "",
                "date": meta.date_int(),
                "text": chunk.text,
            }
            if matches(where, record):
                allowed.add(chunk.id)
        return allowed

    def retrieve_as(
        self,
        kb_id: str,
        request: RetrieveRequest,
        user_id: str | None,
        notes: list[str] | None = None,
    ) -> list[Hit]:
        """`retrieve` for a user: on a per-user knowledge base only their documents (spec 002;
        no user, no documents), passages and graph entities alike. Others: unchanged."""
        kb = self._metadata.get_kb(kb_id)
        if not kb.per_user:
            return self.retrieve(kb_id, request, notes)
        allowed = OwnershipResolver(self._metadata.engine).restriction([kb], user_id)[kb.id]
        filters = request.filters or RetrieveFilters()
        ids = restricted_ids(filters.doc_ids or [], allowed)
        if not ids:
            return []
        narrowed = filters.model_copy(update={"doc_ids": ids})
        return self.retrieve(
            kb_id, request.model_copy(update={"filters": narrowed}), notes, allowed
        )

    def similar_chunks(
        self, kb_id: str, vector: list[float], top_k: int, filters: RetrieveFilters | None = None
    ) -> list[Hit]:
        """Chunks nearest to a caller-supplied (unit-normalised) query vector, best first."""
        kb = self._metadata.get_kb(kb_id)
        where = self._where(kb, filters)
        hidden = self._catalog.unfinished_documents(kb.id)
        if hidden:
            unfinished = NotIn(field="doc_id", values=hidden)
            where = unfinished if where is None else And(items=[where, unfinished])
        fetch = top_k * 3 if kb.chunking.strategy == "parent_child" else top_k
        found = [
            Candidate.from_vector_hit(h) for h in self._vectors.search(kb.id, vector, fetch, where)
        ]
        return self._to_hits(kb, found, None)[:top_k]

    def _where(self, kb: KnowledgeBase, filters: RetrieveFilters | None) -> Filter | None:
        """The request's filters as the typed tree (tags resolved to this KB's documents)."""
        if filters is None:
            return None
        return filters.to_filter(lambda tags: self._catalog.tagged_documents([kb.id], tags))

    def _title_texts(self, doc_ids: list[str]) -> dict[str, str]:
        return {d.id: title_text(d) for d in self._metadata.get_documents(doc_ids).values()}

    @staticmethod
    def _fetch_size(kb: KnowledgeBase, steps: PostProcessing, top_k: int) -> int:
        fetch = top_k
        if steps.needs_pool:
            fetch = max(fetch, RERANK_POOL)  # post-processing needs candidates to choose from
        # Parent-child: several children may share a parent, so fetch more before de-duplicating.
        return fetch * 3 if kb.chunking.strategy == "parent_child" else fetch

    @staticmethod
    def _steps(request: RetrieveRequest, threshold: float) -> PostProcessing:
        return PostProcessing(
            rerank=RerankStep(top_k=request.reranker_top_k, threshold=request.reranker_threshold)
            if request.use_reranker
            else None,
            ner_filter=request.use_ner_filter,
            flat_l2=FlatL2Step(
                top_k=request.brute_force_top_k, threshold=request.brute_force_threshold
            )
            if request.use_brute_force
            else None,
            threshold=threshold,
        )

    def graph_store(self, kb: KnowledgeBase) -> GraphStore | None:
        """The knowledge base's graph store; None without one (graph_backend `none`)."""
        return None if self._graphs is None else self._graphs.for_kb(kb.graph_backend)

    def chunk_texts(self, chunk_ids: list[str]) -> dict[str, str]:
        """Chunk ids → their texts."""
        return self._texts(chunk_ids)

    def _texts(self, chunk_ids: list[str]) -> dict[str, str]:
        return {cid: c.text for cid, c in self._metadata.get_chunks(chunk_ids).items()}

    def _to_hits(
        self, kb: KnowledgeBase, found: list[Candidate], fusion: FusionInfo | None
    ) -> list[Hit]:
        chunks = self._metadata.get_chunks(c.chunk_id for c in found)
        parent_ids = {c.parent_id for c in chunks.values() if c.parent_id}
        parents = self._metadata.get_chunks(parent_ids)
        docs = self._metadata.get_documents({c.doc_id for c in found})
        hits: list[Hit] = []
        seen: set[str] = set()
        for cand in found:  # already best first
            chunk = chunks.get(cand.chunk_id)
            doc = docs.get(cand.doc_id)
            if chunk is None or doc is None:
                continue  # a document deleted between the search and this lookup
            parent = parents.get(chunk.parent_id) if chunk.parent_id else None
            shown = parent or chunk
            if shown.id in seen:
                continue
            seen.add(shown.id)
            meta = doc.metadata
            hits.append(
                Hit(
                    chunk_id=shown.id,
                    doc_id=cand.doc_id,
                    content=shown.text,
                    score=cand.score,
                    metadata=HitMetadata(
                        filename=doc.filename,
                        title=meta.title or doc.filename,
                        author=meta.author,
                        domain=meta.domain,
                        date=meta.date,
                        page=shown.page,
                        position=shown.position,
                        parent_id=chunk.parent_id,
                        matched_text=chunk.text if parent else None,
                        dense_score=cand.dense,
                        title_score=cand.title,
                        lexical_score=cand.lexical,
                        dense_rank=cand.dense_rank,
                        lexical_rank=cand.lexical_rank,
                        rerank_score=cand.rerank,
                        l2_distance=cand.l2_distance,
                        fusion=fusion,
                        graph_score=cand.graph,
                        graph_entities=cand.graph_entities,
                    ),
                )
            )
        return hits
