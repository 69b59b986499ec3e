"""Spec 000 §6–8, the reranker API: /reranker/enhanced-search (retrieve `raw_results`
candidates, rerank, keep `top_k`), /reranker/rerank and /reranker/batch_rerank over
caller-supplied passages. The reranker is the configured one (PLANRAG_RERANK__…).

Errors are the spec's bodies, mapped per route by `DialectRoute`. Knowledge bases are reached
only through `AccessDep` (where authentication will scope them).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator

from planrag.app.dependencies import DocumentSearchDep, RerankDep, UserAccessDep
from planrag.app.dialect_errors import (
    ErrorMapper,
    body_is_empty,
    describe,
    dialect_route,
    invalid_fields,
    maps_errors,
    reason,
)
from planrag.app.routers.spec000_rag import (
    QUERY_TOO_LONG,
    Date,
    Text,
    applied_filters,
    query_too_long,
)
from planrag.app.routers.spec000_schemas import (
    EXAMPLE_CANDIDATE,
    NO_RESULTS,
    EnhancedSearchParams,
    EnhancedSearchResponse,
    RerankBody,
    RerankResult,
    SearchHit,
    error,
    responses,
    result_code,
)
from planrag.core.errors import ModelUnavailable
from planrag.core.types import PlainText
from planrag.services.dialects.document_search import DocumentFilters, StageFailed
from planrag.services.dialects.reranking import RerankService

TAG = "spec-000 reranker"
router = APIRouter(tags=[TAG], route_class=dialect_route())

# ── /reranker/enhanced-search ───────────────────────────────────────────────────────────────
ENHANCED_CODES = {
    "missing_query": (400, "F000001", "검색어(query_text)는 필수 입력값입니다."),
    "search": (500, "F000002", "검색 서비스 오류"),
    "no_results": (200, "F000003", NO_RESULTS),
    "rerank": (500, "F000004", "재랭킹 처리 중 오류가 발생했습니다."),
    "other": (500, "F000005", "통합 검색 중 오류가 발생했습니다."),
}


async def enhanced_errors(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        if query_too_long(exc):
            return result_code(400, *QUERY_TOO_LONG)
        fields = invalid_fields(exc)
        if "query_text" in fields:
            return result_code(*ENHANCED_CODES["missing_query"])
        # A parameter the spec gives no code for: its "other" code, as a client error.
        return result_code(400, "F000005", f"요청 파라미터가 올바르지 않습니다: {describe(exc)}")
    if isinstance(exc, StageFailed):
        status, code, message = ENHANCED_CODES[exc.stage]
        if exc.status == 503:  # no reranker can load: the setting to change, not a crash
            status = 503
        return result_code(status, code, message, reason(exc))
    return result_code(*ENHANCED_CODES["other"], reason(exc))


@router.get(
    "/reranker/enhanced-search",
    response_model=EnhancedSearchResponse,
    summary="통합 검색 (Reranker_통합_검색)",
    responses=responses(
        *(
            (status, {"result_code": code, "message": message})
            for status, code, message in ENHANCED_CODES.values()
            if status != 200
        ),
        (503, {"result_code": ENHANCED_CODES["rerank"][1], "message": ENHANCED_CODES["rerank"][2]}),
        (400, {"result_code": QUERY_TOO_LONG[0], "message": QUERY_TOO_LONG[1]}),
    ),
)
@maps_errors(enhanced_errors)
def enhanced_search(
    access: UserAccessDep,
    search: DocumentSearchDep,
    query_text: Annotated[Text, Query(min_length=1, max_length=2000, examples=["메타버스"])],
    top_k: Annotated[int, Query(ge=1, le=50, description="최종 반환할 결과 개수")] = 5,
    raw_results: Annotated[int, Query(ge=1, le=50, description="RAG 초기 결과 개수")] = 20,
    domain: Annotated[str | None, Query(examples=["news"])] = None,
    author: PlainText | None = None,
    start_date: Annotated[Date, Query(description="YYYYMMDD")] = None,
    end_date: Annotated[Date, Query(description="YYYYMMDD")] = None,
    title: Annotated[PlainText | None, Query(max_length=200, description="제목 포함")] = None,
) -> EnhancedSearchResponse:
    """`raw_results` passages (hybrid retrieval) → reranker → the best `top_k`; `score` is the
    reranker's, in [0, 1]. Nothing found: 200 with `F000003`."""
    filters = DocumentFilters(author=author, start_date=start_date, end_date=end_date, title=title)
    kbs = search.knowledge_bases(access, domain)
    hits = search.enhanced(access, kbs, query_text, top_k, raw_results, filters)
    echoed = applied_filters(
        domain=domain, author=author, title=title, start_date=start_date, end_date=end_date
    )
    body = EnhancedSearchResponse(
        search_params=EnhancedSearchParams(
            query_text=query_text, top_k=top_k, raw_results=raw_results, filters=echoed
        ),
        search_result=[SearchHit.of(h) for h in hits],
    )
    if not hits:
        _, body.result_code, body.message = ENHANCED_CODES["no_results"]
    return body


# ── /reranker/rerank and /reranker/batch_rerank ─────────────────────────────────────────────
NO_JSON = ("No JSON data provided", "요청 본문(JSON)이 없습니다.")
INVALID = ("Invalid input format", "입력 형식이 올바르지 않습니다.")
RERANK_FAILED = ("Reranking failed", "재순위화 중 오류가 발생했습니다.")
BATCH_FAILED = ("Batch reranking failed", "배치 재순위화 중 오류가 발생했습니다.")


def _rerank_errors(failed: tuple[str, str]) -> ErrorMapper:
    async def mapper(request: Request, exc: Exception) -> Response:
        if isinstance(exc, RequestValidationError):
            if await body_is_empty(request):
                return error(400, *NO_JSON)
            return error(400, INVALID[0], f"{INVALID[1]} ({describe(exc)})")
        if isinstance(exc, ModelUnavailable):  # names the setting to change
            return error(503, *failed, reason(exc))
        return error(500, *failed, reason(exc))

    return mapper


def _positive(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise ValueError("top_k must be at least 1")
    return value


TopK = Annotated[
    int | None,
    AfterValidator(_positive),
    Query(description="최종 반환할 결과 개수 (기본: 전부)"),
]


def _rerank(service: RerankService, body: RerankBody, top_k: int | None) -> RerankResult:
    ranked = service.rank(body.query, [c.text for c in body.results], top_k=top_k)
    results = [
        body.results[r.index].model_copy(update={"score": round(r.score, 6)}) for r in ranked
    ]
    return RerankResult(query=body.query, results=results, total=len(results))


@router.post(
    "/reranker/rerank",
    response_model=RerankResult,
    response_model_exclude_none=True,
    summary="순위 재조정 (Reranker_순위_재조정)",
    responses=responses(
        *((s, {"error": e, "message": m}) for s, (e, m) in ((400, NO_JSON), (400, INVALID))),
        (500, {"error": RERANK_FAILED[0], "message": RERANK_FAILED[1]}),
        (503, {"error": RERANK_FAILED[0], "message": RERANK_FAILED[1]}),
    ),
)
@maps_errors(_rerank_errors(RERANK_FAILED))
def rerank(body: RerankBody, reranker: RerankDep, top_k: TopK = None) -> RerankResult:
    """Rerank the given passages for the query; `score` becomes the reranker's, best first."""
    return _rerank(reranker, body, top_k)


BATCH_EXAMPLE = [{"query": "메타버스 최신 동향", "results": [EXAMPLE_CANDIDATE]}]


@router.post(
    "/reranker/batch_rerank",
    response_model=list[RerankResult],
    response_model_exclude_none=True,
    summary="배치 순위 재조정 (Reranker_배치_순위_재조정)",
    responses=responses(
        *((s, {"error": e, "message": m}) for s, (e, m) in ((400, NO_JSON), (400, INVALID))),
        (500, {"error": BATCH_FAILED[0], "message": BATCH_FAILED[1]}),
        (503, {"error": BATCH_FAILED[0], "message": BATCH_FAILED[1]}),
    ),
)
@maps_errors(_rerank_errors(BATCH_FAILED))
def batch_rerank(
    body: Annotated[
        list[RerankBody],
        Body(
            min_length=1, max_length=100, openapi_examples={"one query": {"value": BATCH_EXAMPLE}}
        ),
    ],
    reranker: RerankDep,
    top_k: TopK = None,
) -> list[RerankResult]:
    """Rerank the passages of each query, in order."""
    return [_rerank(reranker, item, top_k) for item in body]
