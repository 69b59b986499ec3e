"""Spec 004, the LightRAG-style retrieval API: GET /api/v1/retrieve/resources (every readable
knowledge base as `rag://<name>`) and POST /api/v1/retrieve (`local_search`: chunks;
`background_search`: an answer with entities and relationships).

Every answer, errors included, is the spec's envelope `{success, result, error,
execution_time}` (the router's `DialectRoute` maps errors into it). Knowledge bases are reached
only through `AccessDep`, where authentication (X-API-Key / OAuth2 bearer) will scope them.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from planrag.app.dependencies import (
    AccessDep,
    AskDep,
    DocumentSearchDep,
    GraphExplorerDep,
    RuntimeDep,
    SettingsDep,
    UserAccessDep,
)
from planrag.app.dialect_errors import describe, dialect_route, elapsed
from planrag.core.errors import InvalidInput, KnowledgeBaseNotFound, PlanragError
from planrag.core.types import KnowledgeBase
from planrag.runtime import Runtime
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.ask import AskService
from planrag.services.ask_requests import AskRequest
from planrag.services.dialects.background_cache import BackgroundCache
from planrag.services.dialects.document_search import DocumentHit
from planrag.services.dialects.graph_background import Graph, graph_of

TAG = "spec-004"
URI_SCHEME = "rag://"
NO_RESOURCES = "No available resources"
INVALID_SEARCH_TYPE = "Invalid search type"


def _envelope(status: int, error: str, request: Request) -> JSONResponse:
    body = {"success": False, "result": None, "error": error, "execution_time": elapsed(request)}
    return JSONResponse(body, status_code=status)


async def envelope_errors(request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        return _envelope(422, f"Invalid request: {describe(exc)}", request)
    if isinstance(exc, KnowledgeBaseNotFound):
        return _envelope(404, NO_RESOURCES, request)
    if isinstance(exc, PlanragError):
        return _envelope(exc.status, exc.message, request)
    return _envelope(500, "Internal server error", request)


router = APIRouter(
    prefix="/api/v1/retrieve",
    tags=[TAG],
    route_class=dialect_route(envelope_errors, maps_auth=True, validation_status=422),
)


class Resource(BaseModel):
    uri: str
    title: str
    description: str


class ResourcesResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "success": True,
                    "resources": [
                        {
                            "uri": "rag://default",
                            "title": "default",
                            "description": "knowledge base",
                        }
                    ],
                    "execution_time": 0.012,
                }
            ]
        }
    )

    success: bool = True
    resources: list[Resource]
    execution_time: float


@router.get("/resources", response_model=ResourcesResponse, summary="检索资源列表")
def resources(request: Request, access: AccessDep) -> ResourcesResponse:
    """Every knowledge base the caller may read, as `rag://<name>`."""
    items = [
        Resource(
            uri=f"{URI_SCHEME}{kb.name}",
            title=kb.name,
            description=kb.description or "knowledge base",
        )
        for kb in access.readable()
    ]
    return ResourcesResponse(resources=items, execution_time=elapsed(request))


class RetrieveBody(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "query": "什么是 RAG",
                    "max_results": 5,
                    "resources": ["rag://default"],
                    "local_search": True,
                }
            ]
        }
    )

    query: str = Field(min_length=1, max_length=2000)
    max_results: int = Field(default=10, ge=1, le=100)
    resources: list[str] = Field(max_length=100, description="rag://<name> URIs, at least one")
    local_search: bool = False
    background_search: bool = False


class LocalChunk(BaseModel):
    id: str
    doc_id: str
    content: str
    chunk_index: int
    score: float = Field(description="final score (hybrid retrieval), [0, 1]")
    similarity: float | None = Field(description="cosine similarity to the query, [0, 1]")
    file_path: str = Field(description="extension: the document's file name or spec-000 id")
    document_id: str = Field(description="extension: planrag's document id")
    resource: str = Field(description="extension: the rag:// URI it came from")


class LocalMetadata(BaseModel):
    query: str
    mode: str = "local"
    top_k: int
    chunk_top_k: int
    retrieved_chunks: int
    entities: list[str] = Field(
        default_factory=list,
        description="extension: the question's entities found in the resources' graphs (the "
        "search started from them and their neighbourhood)",
    )


class LocalResult(BaseModel):
    query: str
    chunks: list[LocalChunk]
    metadata: LocalMetadata
    total_results: int


class BackgroundMetadata(BaseModel):
    total_entities: int
    total_relationships: int
    total_chunks: int
    mode: str = "global"
    query: str
    answer_source: str | None = Field(
        default=None, description="extension: llm | extractive | none (how the answer was made)"
    )
    trace_id: str | None = Field(default=None, description="extension: GET /ai/v2/traces/{id}")
    note: str | None = Field(default=None, description="extension: why a list is empty")
    cached: bool = Field(
        default=False,
        description="extension: served from the cache (the same request over the same "
        "index versions of the resources)",
    )


class BackgroundResult(BaseModel):
    background: str
    entities: list[dict[str, Any]]
    relationships: list[dict[str, Any]]
    metadata: BackgroundMetadata


class RetrieveEnvelope(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "success": True,
                    "result": {
                        "query": "什么是 RAG",
                        "chunks": [
                            {
                                "id": "0b7c…:0",
                                "doc_id": "0b7c…",
                                "content": "Retrieval-Augmented Generation (RAG) 是一种...",
                                "chunk_index": 0,
                                "score": 0.92,
                                "similarity": 0.87,
                                "file_path": "docs/rag.md",
                                "resource": "rag://default",
                            }
                        ],
                        "metadata": {
                            "query": "什么是 RAG",
                            "mode": "local",
                            "top_k": 5,
                            "chunk_top_k": 5,
                            "retrieved_chunks": 1,
                        },
                        "total_results": 1,
                    },
                    "error": None,
                    "execution_time": 0.183,
                },
                {
                    "success": False,
                    "result": None,
                    "error": NO_RESOURCES,
                    "execution_time": 0.005,
                },
            ]
        }
    )

    success: bool = True
    result: LocalResult | BackgroundResult | dict[str, Any] | None
    error: str | None = None
    execution_time: float


def _background(
    body: RetrieveBody,
    kbs: list[KnowledgeBase],
    access: KnowledgeBaseAccess,
    ask: AskService,
    graph: Graph,
) -> BackgroundResult:
    request = AskRequest(
        question=body.query, knowledge_bases=[kb.name for kb in kbs], user_id=access.user
    )
    outcome = ask.run(request, access.readable())
    if outcome.error:
        raise outcome.error.to_exception()  # its own status: 404, 503… (not always 500)
    graphs = [kb for kb in kbs if kb.graph_backend != "none"]
    note = None if graphs else "the resources have no knowledge graph: no entities or relationships"
    entities, relationships = graph_of(body.query, graphs, graph, access)
    return BackgroundResult(
        background=outcome.answer,
        entities=entities,
        relationships=relationships,
        metadata=BackgroundMetadata(
            total_entities=len(entities),
            total_relationships=len(relationships),
            total_chunks=len(outcome.passages),
            query=body.query,
            answer_source=outcome.answer_source,
            trace_id=outcome.trace_id,
            note=note,
        ),
    )


MAX_CANDIDATES = 200


def _distinct(hits: list[DocumentHit]) -> list[DocumentHit]:
    """Best first, one hit per passage text (whitespace-insensitive)."""
    seen: set[str] = set()
    kept = []
    for hit in hits:
        key = " ".join(hit.text.split())
        if key not in seen:
            seen.add(key)
            kept.append(hit)
    return kept


def _cache(request: Request, runtime: Runtime) -> BackgroundCache[BackgroundResult]:
    state = request.app.state
    if getattr(state, "spec004_background_cache", None) is None:
        state.spec004_background_cache = BackgroundCache[BackgroundResult](runtime.metadata)
    cache: BackgroundCache[BackgroundResult] = state.spec004_background_cache
    return cache


def _knowledge_bases(access: KnowledgeBaseAccess, uris: list[str]) -> list[KnowledgeBase]:
    names = [uri[len(URI_SCHEME) :] for uri in uris if uri.startswith(URI_SCHEME)]
    if not uris or len(names) != len(uris) or not all(names):
        raise InvalidInput(NO_RESOURCES)
    return [access.read(name) for name in dict.fromkeys(names)]


@router.post(
    "",
    response_model=RetrieveEnvelope,
    summary="按模式检索 (local_search | background_search)",
    responses={
        400: {"description": f"{NO_RESOURCES} (empty or malformed) / {INVALID_SEARCH_TYPE}"},
        404: {"description": f"{NO_RESOURCES} (unknown or unreadable URI)"},
    },
)
def retrieve(
    request: Request,
    body: RetrieveBody,
    access: UserAccessDep,
    search: DocumentSearchDep,
    ask: AskDep,
    explorer: GraphExplorerDep,
    settings: SettingsDep,
    runtime: RuntimeDep,
) -> RetrieveEnvelope:
    """`local_search`: the best `max_results` chunks of the resources (hybrid retrieval, at
    most 50 per resource). `background_search`: an answer planned and grounded by the ask
    service (cited passages; LLM or extractive), with the knowledge graph's entities and
    relationships — empty lists and a note while the resources have no graph. Exactly one of
    the two must be true."""
    if body.local_search == body.background_search:
        raise InvalidInput(INVALID_SEARCH_TYPE)
    kbs = _knowledge_bases(access, body.resources)
    if body.background_search:
        cache = _cache(request, runtime)
        key = (body.query, tuple(kb.id for kb in kbs), access.user)
        background, cached = cache.get_or_make(
            key,
            kbs,
            lambda: _background(body, kbs, access, ask, Graph(explorer, settings.graph.hops)),
        )
        if cached:
            background = background.model_copy(
                update={"metadata": background.metadata.model_copy(update={"cached": True})}
            )
        return RetrieveEnvelope(result=background, execution_time=elapsed(request))
    # Candidates from every resource, then one chunk per passage: the same text indexed in
    # several knowledge bases comes back once, from where it scored best.
    wide = min(MAX_CANDIDATES, body.max_results * len(kbs))
    found = search.search(access, kbs, body.query, wide, graph_hops=settings.graph.hops)
    hits = _distinct(found)[: body.max_results]
    graphs = [h.hit.graph_metadata for h in found if h.hit.graph_metadata is not None]
    chunks = [
        LocalChunk(
            id=h.chunk_id,
            doc_id=h.document.filename,  # the spec's file path ("docs/rag.md")
            content=h.text,
            chunk_index=h.hit.metadata.position or 0,
            score=round(h.score, 6),
            similarity=None if h.similarity is None else round(h.similarity, 6),
            file_path=h.document.filename,
            document_id=h.document.doc_id,
            resource=f"{URI_SCHEME}{h.knowledge_base}",
        )
        for h in hits
    ]
    result = LocalResult(
        query=body.query,
        chunks=chunks,
        metadata=LocalMetadata(
            query=body.query,
            top_k=body.max_results,
            chunk_top_k=body.max_results,
            retrieved_chunks=len(chunks),
            entities=list(dict.fromkeys(m.entity for g in graphs for m in g.matched_entities)),
        ),
        total_results=len(chunks),
    )
    return RetrieveEnvelope(result=result, execution_time=elapsed(request))
