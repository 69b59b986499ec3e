"""Spec 003, the retrieval service API: POST /api/v1/rag/retrieve (engines `default`/`naive`,
optional rerank by model `bge` or `llm`), POST /api/v1/chunks/similarity-search (a raw query
embedding), GET /api/v1/health.

The spec has no knowledge-base parameter (one shared document database): every readable
knowledge base is searched, or those named in the `knowledgeBases` extension. Knowledge bases
are reached only through `AccessDep`, where authentication (JWT / API key) will scope them.
Errors use planrag's own body (the spec fixes none): 422 for invalid requests.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import HealthDep, RagPipelineDep, UserAccessDep
from planrag.core.types import KnowledgeBase
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.dialects.document_search import DocumentHit
from planrag.services.dialects.rag_pipeline import RerankOptions
from planrag.services.health import Health

TAG = "spec-003"
router = APIRouter(prefix="/api/v1", tags=[TAG])

RETRIEVE_EXAMPLE: dict[str, Any] = {
    "query": "How does kubernetes handle pod scheduling?",
    "grade": 0.7,
    "similarityTopK": 20,
    "docIds": ["uuid-1", "uuid-2"],
    "engineName": "default",
    "rerank": {"enabled": True, "strategy": "bge", "topK": 5, "score": 0.5},
}


class RerankConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    strategy: Literal["bge", "llm"] = Field(
        default="bge", description="bge: the configured cross-encoder or rerank service; llm"
    )
    topK: int = Field(default=5, ge=1, le=50, description="results kept after reranking")
    score: float = Field(default=0.0, ge=0.0, le=1.0, description="minimum rerank score")


class RetrieveBody(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [RETRIEVE_EXAMPLE]})

    query: str = Field(min_length=1, max_length=2000)
    grade: float = Field(ge=0.0, le=1.0, description="minimum cosine similarity")
    similarityTopK: int = Field(default=20, ge=5, le=50, description="candidates searched")
    docIds: list[str] | None = Field(
        default=None, max_length=500, description="internal or spec-000 document ids"
    )
    engineName: Literal["default", "naive"] = "default"
    rerank: RerankConfig | None = None
    knowledgeBases: list[str] | None = Field(
        default=None, max_length=100, description="extension: search only these KBs (names)"
    )


class ChunkMetadata(BaseModel):
    documentId: str
    fileName: str
    chunkIndex: int
    pageNumber: int | None = None
    contentType: str = "text"
    knowledgeBase: str = Field(description="extension")
    title: str = Field(description="extension")


class ChunkResult(BaseModel):
    content: str
    score: float
    metadata: ChunkMetadata

    @classmethod
    def of(cls, hit: DocumentHit) -> ChunkResult:
        doc = hit.document
        return cls(
            content=hit.text,
            score=round(hit.score, 6),
            metadata=ChunkMetadata(
                documentId=doc.doc_id,
                fileName=doc.filename,
                chunkIndex=hit.hit.metadata.position or 0,
                pageNumber=hit.hit.metadata.page,
                knowledgeBase=hit.knowledge_base,
                title=doc.title,
            ),
        )


class Pipeline(BaseModel):
    reranked: bool
    rerankStrategy: Literal["bge", "llm"] | None
    candidatesConsidered: int
    rerankError: str | None = Field(
        default=None, description="extension: why a requested rerank did not happen"
    )


class RetrieveResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "results": [
                        {
                            "content": "Kubernetes uses a scheduler that...",
                            "score": 0.89,
                            "metadata": {
                                "documentId": "0b7c…",
                                "fileName": "k8s-docs.pdf",
                                "chunkIndex": 5,
                                "pageNumber": 12,
                                "contentType": "text",
                                "knowledgeBase": "default",
                                "title": "k8s-docs.pdf",
                            },
                        }
                    ],
                    "query": "How does kubernetes handle pod scheduling?",
                    "totalResults": 1,
                    "engineUsed": "advanced",
                    "pipeline": {
                        "reranked": True,
                        "rerankStrategy": "bge",
                        "candidatesConsidered": 20,
                    },
                }
            ]
        }
    )

    results: list[ChunkResult]
    query: str
    totalResults: int
    engineUsed: Literal["advanced", "naive"]
    pipeline: Pipeline


def _knowledge_bases(access: KnowledgeBaseAccess, names: list[str] | None) -> list[KnowledgeBase]:
    return access.readable() if names is None else [access.read(name) for name in names]


@router.post("/rag/retrieve", response_model=RetrieveResponse, summary="RAG retrieval")
def rag_retrieve(
    body: RetrieveBody, access: UserAccessDep, pipeline: RagPipelineDep
) -> RetrieveResponse:
    """`naive`: dense search, hits at or above `grade`. `default` (advanced): the same
    candidates, then the optional rerank keeping `rerank.topK` at or above `rerank.score`; a
    missing or failing reranker leaves the candidates unreranked (`pipeline.rerankError`)."""
    rerank = body.rerank or RerankConfig()
    result = pipeline.retrieve(
        access,
        _knowledge_bases(access, body.knowledgeBases),
        body.query,
        body.grade,
        body.similarityTopK,
        body.docIds,
        body.engineName,
        RerankOptions(
            enabled=rerank.enabled, strategy=rerank.strategy, top_k=rerank.topK, score=rerank.score
        ),
    )
    return RetrieveResponse(
        results=[ChunkResult.of(h) for h in result.hits],
        query=body.query,
        totalResults=len(result.hits),
        engineUsed=result.engine_used,
        pipeline=Pipeline(
            reranked=result.reranked,
            rerankStrategy=result.rerank_strategy,
            candidatesConsidered=result.candidates_considered,
            rerankError=result.rerank_error,
        ),
    )


class SimilarityBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"queryEmbedding": [0.0123, -0.0456, 0.0789], "topK": 10, "docIds": []}]
        },
    )

    queryEmbedding: list[float] = Field(min_length=1, max_length=8192)
    topK: int = Field(default=10, ge=1, le=100)
    docIds: list[str] | None = Field(default=None, max_length=500)
    knowledgeBases: list[str] | None = Field(
        default=None, max_length=100, description="extension: search only these KBs (names)"
    )


class SimilarityResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "results": [
                        {
                            "content": "Kubernetes uses a scheduler that...",
                            "score": 0.83,
                            "metadata": {
                                "documentId": "0b7c…",
                                "fileName": "k8s-docs.pdf",
                                "chunkIndex": 5,
                                "pageNumber": 12,
                                "contentType": "text",
                                "knowledgeBase": "default",
                                "title": "k8s-docs.pdf",
                            },
                        }
                    ],
                    "totalResults": 1,
                }
            ]
        }
    )

    results: list[ChunkResult]
    totalResults: int


@router.post(
    "/chunks/similarity-search",
    response_model=SimilarityResponse,
    summary="Vector similarity search",
    responses={
        422: {
            "description": "wrong dimension (the message names the expected one)",
            "content": {
                "application/json": {
                    "example": {
                        "error": {
                            "code": "invalid_embedding",
                            "message": "queryEmbedding has dimension 3; expected 384",
                            "details": {"dimension": 3, "expected": [384]},
                        },
                        "detail": "queryEmbedding has dimension 3; expected 384",
                    }
                }
            },
        }
    },
)
def similarity_search(
    body: SimilarityBody, access: UserAccessDep, pipeline: RagPipelineDep
) -> SimilarityResponse:
    """Chunks nearest to a raw query embedding (cosine, `score` in [0, 1]) in every knowledge
    base of that dimension."""
    hits = pipeline.similar(
        access,
        _knowledge_bases(access, body.knowledgeBases),
        body.queryEmbedding,
        body.topK,
        body.docIds,
    )
    return SimilarityResponse(results=[ChunkResult.of(h) for h in hits], totalResults=len(hits))


@router.get(
    "/health",
    response_model=Health,
    summary="Health check",
    responses={503: {"description": "the metadata DB or the vector store is down"}},
)
def health(checks: HealthDep, response: Response, principal: PrincipalDep) -> Health:
    """Each store, the embedding model and the LLM: `up`, `down` (with why) or
    `not configured`. The `detail` of each (names, reasons) only for an admin caller, or for
    anyone with authentication off: the public answer is the statuses alone."""
    report = checks.check()
    if report.status == "down":
        response.status_code = 503
    if not principal.admin:
        report = report.model_copy(
            update={
                "components": {
                    name: c.model_copy(update={"detail": None})
                    for name, c in report.components.items()
                }
            }
        )
    return report
