"""Spec 000 §1–5, the Milvus RAG API: /rag/insert, /rag/search, /rag/delete, /rag/document,
/rag/data/show. A `domain` is a knowledge base of that name (created by the first insert).

Errors are the spec's bodies (`result_code` or `error` + Korean `message`), mapped per route by
`DialectRoute`. Knowledge bases are reached only through `AccessDep`: authentication, when it
comes, scopes every route here by scoping that dependency (planrag.app.dependencies).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator

from planrag.app.dependencies import (
    AccessDep,
    CollectionsDep,
    DocumentSearchDep,
    JsonDocumentsDep,
    UserAccessDep,
)
from planrag.app.dialect_errors import (
    describe,
    dialect_route,
    error_types,
    invalid_fields,
    maps_errors,
    reason,
)
from planrag.app.routers.spec000_schemas import (
    EXAMPLE_DOCUMENT,
    DocumentBody,
    Received,
    SearchHit,
    SearchParams,
    SearchResponse,
    error,
    responses,
    result_code,
)
from planrag.core import json_nesting
from planrag.core.errors import DocumentNotFound, InvalidInput, KnowledgeBaseNotFound
from planrag.core.types import PlainText
from planrag.services.dialects.collections import CollectionInfo
from planrag.services.dialects.document_search import DocumentFilters
from planrag.services.dialects.json_documents import JsonDocument, PassageNotFound, check_yyyymmdd

TAG = "spec-000 rag"
router = APIRouter(tags=[TAG], route_class=dialect_route())


def _date(value: str | None) -> str | None:
    return None if value is None else check_yyyymmdd(value)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


Text = Annotated[str, AfterValidator(_not_blank)]
Date = Annotated[str | None, AfterValidator(_date)]


def _json_object(raw: str | None, field: str) -> dict[str, Any] | None:
    if raw is None or not raw.strip():
        return None
    try:
        value = json_nesting.loads(raw, what=field)
    except ValueError as exc:
        raise InvalidInput(f"{field}: invalid JSON ({exc})", field=field) from exc
    if not isinstance(value, dict):
        raise InvalidInput(f"{field}: expected a JSON object", field=field)
    return value


# ── /rag/insert ─────────────────────────────────────────────────────────────────────────────
INSERT_INVALID = {"error": "Invalid request", "message": "필수 필드 누락 또는 잘못된 형식입니다."}
INSERT_FAILED = {"error": "Internal server error", "message": "문서 삽입 중 오류가 발생했습니다."}


async def insert_errors(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        return error(400, INSERT_INVALID["error"], f"{INSERT_INVALID['message']} ({describe(exc)})")
    if isinstance(exc, InvalidInput):
        return error(400, INSERT_INVALID["error"], f"{INSERT_INVALID['message']} ({exc.message})")
    return error(500, INSERT_FAILED["error"], INSERT_FAILED["message"], reason(exc))


@router.post(
    "/rag/insert",
    response_model=Received,
    summary="문서 삽입 (Milvus_data_삽입)",
    responses=responses((400, INSERT_INVALID), (500, INSERT_FAILED)),
)
@maps_errors(insert_errors)
def insert(
    document: Annotated[JsonDocument, Body(openapi_examples={"news": {"value": EXAMPLE_DOCUMENT}})],
    access: AccessDep,
    documents: JsonDocumentsDep,
) -> Received:
    """Put a JSON document into the knowledge base named by `domain` (created on first use);
    indexing runs in the background. The document id is `YYYYMMDD-title-with-hyphens`
    (`20240315-메타버스-뉴스`): inserting the same date and title again replaces the document."""
    documents.insert(access, document)
    return Received()


# ── /rag/search ─────────────────────────────────────────────────────────────────────────────
SEARCH_CODES = {
    "query_text": ("F000001", "검색어(query_text)는 필수 입력값입니다."),
    "top_k": ("F000002", "top_k는 1 이상 50 이하의 정수여야 합니다."),
    "info_filter": ("F000003", "info_filter는 JSON 객체 형식의 문자열이어야 합니다."),
    "tags_filter": ("F000004", "tags_filter는 JSON 객체 형식의 문자열이어야 합니다."),
    "start_date": ("F000006", "날짜는 YYYYMMDD 형식이어야 합니다."),
    "end_date": ("F000006", "날짜는 YYYYMMDD 형식이어야 합니다."),
}
SEARCH_FAILED = ("F000005", "검색 중 서버 내부 오류가 발생했습니다.")
# Extension: a query longer than the limit is not a missing one.
QUERY_TOO_LONG = ("F000007", "검색어(query_text)는 2000자 이하여야 합니다.")


def query_too_long(exc: RequestValidationError) -> bool:
    return error_types(exc).get("query_text") in ("string_too_long", "too_long")


async def search_errors(_request: Request, exc: Exception) -> Response:
    fields: list[str] = []
    if isinstance(exc, RequestValidationError):
        if query_too_long(exc):
            return result_code(400, *QUERY_TOO_LONG)
        fields = invalid_fields(exc)
    elif isinstance(exc, InvalidInput):
        fields = [str(exc.details.get("field", ""))]
    for field in fields:
        if field in SEARCH_CODES:
            return result_code(400, *SEARCH_CODES[field])
    if fields:  # an invalid parameter the spec gives no code for
        return result_code(400, SEARCH_FAILED[0], f"요청 파라미터가 올바르지 않습니다: {fields[0]}")
    return result_code(500, *SEARCH_FAILED, reason(exc))


def applied_filters(**given: Any) -> dict[str, Any]:
    """The filters as spec 000 echoes them (`date_range` for the dates), only those given."""
    start, end = given.pop("start_date", None), given.pop("end_date", None)
    filters = {k: v for k, v in given.items() if v is not None}
    if start or end:
        filters["date_range"] = {k: v for k, v in (("start", start), ("end", end)) if v}
    return filters


@router.get(
    "/rag/search",
    response_model=SearchResponse,
    summary="문서 검색 (Milvus_데이터_검색)",
    responses=responses(
        *((400, {"result_code": c, "message": m}) for c, m in SEARCH_CODES.values()),
        (400, {"result_code": QUERY_TOO_LONG[0], "message": QUERY_TOO_LONG[1]}),
        (500, {"result_code": SEARCH_FAILED[0], "message": SEARCH_FAILED[1]}),
    ),
)
@maps_errors(search_errors)
def search(
    access: UserAccessDep,
    search: DocumentSearchDep,
    query_text: Annotated[Text, Query(min_length=1, max_length=2000, examples=["메타버스"])],
    top_k: Annotated[int, Query(ge=1, le=50, description="검색 결과 개수")] = 5,
    domain: Annotated[str | None, Query(examples=["news"])] = None,
    author: PlainText | None = None,
    start_date: Annotated[Date, Query(description="YYYYMMDD", examples=["20240301"])] = None,
    end_date: Annotated[Date, Query(description="YYYYMMDD", examples=["20240315"])] = None,
    title: Annotated[PlainText | None, Query(max_length=200, description="제목 포함")] = None,
    info_filter: Annotated[
        str | None, Query(description="JSON 객체", examples=['{"press_num": "비즈니스 워치"}'])
    ] = None,
    tags_filter: Annotated[
        str | None, Query(description="JSON 객체", examples=['{"user": "admin"}'])
    ] = None,
) -> SearchResponse:
    """Passages best first (hybrid retrieval: Kiwi BM25 + dense), `score` in [0, 1]. Of a
    per-user knowledge base only the user's documents: the principal's with auth on; with auth
    off the `user_id` extension's, else the `tags_filter`'s `user` (the spec's user field)."""
    info = _json_object(info_filter, "info_filter")
    tags = _json_object(tags_filter, "tags_filter")
    if access.user is None and not access.caller.auth_enabled and tags and tags.get("user"):
        access = access.as_user(str(tags["user"]))
    filters = DocumentFilters(
        author=author, start_date=start_date, end_date=end_date, title=title, info=info, tags=tags
    )
    hits = search.search(access, search.knowledge_bases(access, domain), query_text, top_k, filters)
    echoed = applied_filters(
        domain=domain,
        author=author,
        title=title,
        start_date=start_date,
        end_date=end_date,
        info_filter=info,
        tags_filter=tags,
    )
    return SearchResponse(
        search_params=SearchParams(query_text=query_text, top_k=top_k, filters=echoed),
        search_result=[SearchHit.of(h) for h in hits],
    )


# ── /rag/delete ─────────────────────────────────────────────────────────────────────────────
DELETE_REQUIRED = {
    "date": ("date is required", "날짜(date)는 필수 입력값입니다."),
    "title": ("title is required", "제목(title)은 필수 입력값입니다."),
    "author": ("author is required", "작성자(author)는 필수 입력값입니다."),
    "domain": ("domain is required", "도메인(domain)은 필수 입력값입니다."),
}
DELETE_BAD_DATE = ("Invalid date format", "날짜(date)는 YYYYMMDD 형식이어야 합니다.")
DELETE_FAILED = ("Internal server error", "문서 삭제 중 오류가 발생했습니다.")


async def delete_errors(request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        for field in DELETE_REQUIRED:  # the spec's order
            if not request.query_params.get(field, "").strip():
                return error(400, *DELETE_REQUIRED[field])
        return error(400, *DELETE_BAD_DATE)
    return error(500, *DELETE_FAILED, reason(exc))


@router.delete(
    "/rag/delete",
    response_model=Received,
    summary="문서 삭제 (Milvus_데이터_삭제)",
    responses=responses(
        *((400, {"error": e, "message": m}) for e, m in DELETE_REQUIRED.values()),
        (400, {"error": DELETE_BAD_DATE[0], "message": DELETE_BAD_DATE[1]}),
    ),
)
@maps_errors(delete_errors)
def delete(
    access: UserAccessDep,
    documents: JsonDocumentsDep,
    date: Annotated[Text, AfterValidator(check_yyyymmdd), Query(examples=["20240315"])],
    title: Annotated[Text, Query(examples=["메타버스 뉴스"])],
    author: Annotated[Text, Query(examples=["삼성전자"])],
    domain: Annotated[Text, Query(examples=["news"])],
) -> Received:
    """Delete the document of that date and title from the domain if it is by that author.
    Deleting what is not there is not an error (the answer is the same)."""
    documents.delete(access, domain, date, title, author)
    return Received()


# ── /rag/document ───────────────────────────────────────────────────────────────────────────
DOC_REQUIRED = ("doc_id is required", "문서 ID는 필수 입력값입니다.")
DOC_NOT_FOUND = ("Document not found", "요청하신 문서를 찾을 수 없습니다.")
PASSAGE_NOT_FOUND = ("Passage not found", "요청하신 패시지를 찾을 수 없습니다.")
DOC_FAILED = ("Internal server error", "문서 조회 중 오류가 발생했습니다.")


async def document_errors(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        return error(400, *DOC_REQUIRED)
    if isinstance(exc, PassageNotFound):
        return error(404, *PASSAGE_NOT_FOUND)
    if isinstance(exc, DocumentNotFound):
        return error(404, *DOC_NOT_FOUND)
    return error(500, *DOC_FAILED, reason(exc))


@router.get(
    "/rag/document",
    response_model=DocumentBody,
    summary="문서 조회 (Milvus_문서_조회)",
    responses=responses(
        *(
            (status, {"error": e, "message": m})
            for status, (e, m) in (
                (400, DOC_REQUIRED),
                (404, DOC_NOT_FOUND),
                (404, PASSAGE_NOT_FOUND),
                (500, DOC_FAILED),
            )
        )
    ),
)
@maps_errors(document_errors)
def document(
    access: UserAccessDep,
    documents: JsonDocumentsDep,
    doc_id: Annotated[Text, Query(examples=["20240315-메타버스-뉴스"])],
    passage_id: Annotated[str | None, Query(description="패시지 ID (1부터)")] = None,
) -> DocumentBody:
    """A document with its passages (or only `passage_id`); passages appear once indexed."""
    found = documents.get(access, doc_id, passage_id)
    return DocumentBody.model_validate(
        {**found.model_dump(), "passages": [p.model_dump() for p in found.passages]}
    )


# ── /rag/data/show ──────────────────────────────────────────────────────────────────────────
SHOW_REQUIRED = ("collection_name is required", "collection_name은 필수 입력값입니다.")
SHOW_INVALID = ("Invalid Collection", "유효한 Collection 이름을 입력해야 합니다.")
SHOW_FAILED = ("Internal server error", "컬렉션 정보 조회 중 오류가 발생했습니다.")


async def show_errors(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        return error(400, *SHOW_REQUIRED)
    if isinstance(exc, KnowledgeBaseNotFound):
        return error(400, *SHOW_INVALID)
    return error(500, *SHOW_FAILED, reason(exc))


SHOW_EXAMPLE = {
    "schema": {
        "fields": [
            {"name": "chunk_id", "type": "VARCHAR", "params": {"is_primary": True}},
            {"name": "doc_id", "type": "VARCHAR"},
            {"name": "text", "type": "VARCHAR"},
            {"name": "date", "type": "INT64"},
            {"name": "vector", "type": "FLOAT_VECTOR", "params": {"dim": 384}},
        ]
    },
    "partition_names": ["_default"],
    "partition_nums": {"_default": 250},
}


@router.get(
    "/rag/data/show",
    response_model=CollectionInfo,
    response_model_exclude_none=True,
    summary="컬렉션 정보 조회 (Milvus_컬렉션_정보_조회)",
    responses={
        200: {"content": {"application/json": {"example": SHOW_EXAMPLE}}},
        **responses(
            (400, {"error": SHOW_REQUIRED[0], "message": SHOW_REQUIRED[1]}),
            (400, {"error": SHOW_INVALID[0], "message": SHOW_INVALID[1]}),
        ),
    },
)
@maps_errors(show_errors)
def data_show(
    access: AccessDep,
    collections: CollectionsDep,
    collection_name: Annotated[Text, Query(examples=["news"])],
) -> CollectionInfo:
    """The collection (knowledge base) of a domain: its record fields, partitions and counts."""
    return collections.describe(access.read(collection_name))
