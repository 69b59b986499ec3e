"""Spec 000 wire models: field names, defaults, examples and error bodies exactly as the spec
writes them (responses may carry a few extra, documented fields)."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from planrag.services.dialects.document_search import DocumentHit

EXAMPLE_DOC_ID = "20240315-메타버스-뉴스"
EXAMPLE_TEXT = "메타버스는 비대면 시대 뜨거운 화두로 떠올랐다..."
EXAMPLE_INFO: dict[str, Any] = {"press_num": "비즈니스 워치", "url": "http://example.com/news/1"}
EXAMPLE_TAGS: dict[str, Any] = {"date": "20240315", "user": "admin"}
EXAMPLE_DOCUMENT: dict[str, Any] = {
    "domain": "news",
    "title": "메타버스 뉴스",
    "author": "삼성전자",
    "text": EXAMPLE_TEXT,
    "info": EXAMPLE_INFO,
    "tags": EXAMPLE_TAGS,
}
EXAMPLE_HIT: dict[str, Any] = {
    "doc_id": EXAMPLE_DOC_ID,
    "title": "메타버스 뉴스",
    "author": "삼성전자",
    "text": EXAMPLE_TEXT,
    "score": 0.95,
    "info": EXAMPLE_INFO,
    "tags": EXAMPLE_TAGS,
    "passage_id": 1,
    "domain": "news",
}
EXAMPLE_CANDIDATE: dict[str, Any] = {
    "passage_id": "1",
    "doc_id": EXAMPLE_DOC_ID,
    "text": EXAMPLE_TEXT,
    "score": 0.95,
    "metadata": {"title": "메타버스 뉴스", "author": "삼성전자"},
}

SEARCH_OK = "검색이 완료되었습니다."
NO_RESULTS = "검색 결과가 없습니다."


class Received(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"status": "received"}]})

    status: str = Field(default="received", description='처리 상태 ("received")')


class ResultCodeBody(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"result_code": "F000001", "message": "검색어 누락"}]}
    )

    result_code: str
    message: str


class ErrorBody(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"error": "date is required", "message": "날짜(date)는 필수 입력값입니다."}
            ]
        }
    )

    error: str
    message: str


class SearchParams(BaseModel):
    query_text: str
    top_k: int
    filters: dict[str, Any] = Field(description="적용된 필터 조건")


class EnhancedSearchParams(SearchParams):
    raw_results: int


class SearchHit(BaseModel):
    doc_id: str
    title: str
    author: str
    text: str
    score: float
    info: dict[str, Any] | None = None
    tags: dict[str, Any]
    passage_id: int = Field(description="extension: the passage (GET /rag/document) it is")
    domain: str = Field(description="extension: the document's domain")

    @classmethod
    def of(cls, hit: DocumentHit) -> SearchHit:
        doc = hit.document
        return cls(
            doc_id=doc.doc_id,
            title=doc.title,
            author=doc.author,
            text=hit.text,
            score=round(hit.score, 6),
            info=doc.info,
            tags=doc.tags,
            passage_id=hit.passage_id,
            domain=doc.domain,
        )


class SearchResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "result_code": "F000000",
                    "message": SEARCH_OK,
                    "search_params": {
                        "query_text": "메타버스",
                        "top_k": 5,
                        "filters": {
                            "domain": "news",
                            "date_range": {"start": "20240301", "end": "20240315"},
                        },
                    },
                    "search_result": [EXAMPLE_HIT],
                }
            ]
        }
    )

    result_code: str = "F000000"
    message: str = SEARCH_OK
    search_params: SearchParams
    search_result: list[SearchHit]


class EnhancedSearchResponse(SearchResponse):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "result_code": "F000000",
                    "message": SEARCH_OK,
                    "search_params": {
                        "query_text": "메타버스 최신 동향",
                        "top_k": 5,
                        "raw_results": 20,
                        "filters": {"domain": "news"},
                    },
                    "search_result": [EXAMPLE_HIT],
                }
            ]
        }
    )

    search_params: EnhancedSearchParams


class PassageBody(BaseModel):
    passage_id: int
    text: str
    position: int


class DocumentBody(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "doc_id": EXAMPLE_DOC_ID,
                    "domain": "news",
                    "title": "메타버스 뉴스",
                    "author": "삼성전자",
                    "info": EXAMPLE_INFO,
                    "tags": EXAMPLE_TAGS,
                    "passages": [
                        {"passage_id": 1, "text": EXAMPLE_TEXT, "position": 1},
                        {
                            "passage_id": 2,
                            "text": "특히 코로나19 이후 메타버스 시장이 급성장하고 있다...",
                            "position": 2,
                        },
                    ],
                }
            ]
        }
    )

    doc_id: str
    domain: str
    title: str
    author: str = Field(description="extension: the document's author")
    info: dict[str, Any] | None = None
    tags: dict[str, Any]
    passages: list[PassageBody]
    status: str = Field(description="extension: indexing status (pending/processing/...)")


class RerankCandidate(BaseModel):
    """A passage to rerank; further keys (title, author, info, tags, …) are passed through."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [EXAMPLE_CANDIDATE]})

    passage_id: Any = None
    doc_id: str | None = None
    text: str
    score: float | None = None
    metadata: dict[str, Any] | None = None


class RerankBody(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"query": "메타버스 최신 동향", "results": [EXAMPLE_CANDIDATE]}]
        }
    )

    query: str = Field(min_length=1, max_length=2000)
    results: list[RerankCandidate] = Field(max_length=1000)


class RerankResult(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "query": "메타버스 최신 동향",
                    "results": [{**EXAMPLE_CANDIDATE, "score": 0.98}],
                    "total": 1,
                    "reranked": True,
                }
            ]
        }
    )

    query: str
    results: list[RerankCandidate]
    total: int
    reranked: bool = True


def _body(fields: dict[str, str], detail: str | None) -> dict[str, str]:
    return {**fields, "detail": detail} if detail else fields


def result_code(status: int, code: str, message: str, detail: str | None = None) -> JSONResponse:
    """A `result_code` body; `detail` (an extension) says why a server-side failure happened."""
    return JSONResponse(_body({"result_code": code, "message": message}, detail), status)


def error(status: int, name: str, message: str, detail: str | None = None) -> JSONResponse:
    """An `error` + `message` body; `detail` (an extension) as for `result_code`."""
    return JSONResponse(_body({"error": name, "message": message}, detail), status)


def responses(*rows: tuple[int, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` listing a route's error rows with their example bodies."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for status, body in rows:
        grouped.setdefault(status, []).append(body)
    return {
        status: {
            "description": "; ".join(b.get("message", b.get("error", "")) for b in bodies),
            "content": {
                "application/json": {
                    "examples": {
                        b.get("result_code", b.get("error", str(i))): {"value": b}
                        for i, b in enumerate(bodies)
                    }
                }
            },
        }
        for status, bodies in grouped.items()
    }
