"""Spec 000 §9–11, the prompt API: /prompt/summarize (search with the given filters, then an LLM
summary — or an extractive one flagged `"fallback": "extractive"` when there is no LLM or it
fails), /prompt/chat (plain LLM chat) and /prompt/models (the OpenAI-compatible endpoint's
/v1/models, which Ollama serves too). Error bodies are the spec's `error` strings.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import (
    AskDep,
    ConversationsDep,
    PromptsDep,
    SettingsDep,
    UserAccessDep,
)
from planrag.app.dialect_errors import describe, dialect_route, error_types, maps_errors, reason
from planrag.app.routers.spec000_schemas import error, responses
from planrag.core.errors import Forbidden, InvalidInput, LLMUnavailable, NotFound
from planrag.services.ask_requests import LLMChoice
from planrag.services.conversations import ChatMessage, ConversationRequest
from planrag.services.dialects.prompting import (
    ChatResult,
    ChatSource,
    ModelList,
    SummarizeRequest,
    SummarizeResult,
)

TAG = "spec-000 prompt"
router = APIRouter(tags=[TAG], route_class=dialect_route())

QUERY_REQUIRED = ("쿼리가 필요합니다", "쿼리 누락")
# An extension row: a request the spec gives no error for (a too long query, a date not
# YYYYMMDD, a body that is not JSON); `detail` names the field and what is wrong.
INVALID_REQUEST = ("요청 형식이 올바르지 않습니다", "잘못된 요청")
SEARCH_FAILED = ("문서 검색 중 오류가 발생했습니다", "검색 오류")
SUMMARY_FAILED = ("LLM 요청 중 오류가 발생했습니다", "요약 생성 오류")
QUESTION_REQUIRED = ("질문이 필요합니다", "질문 누락")
CHAT_FAILED = ("LLM 요청 중 오류가 발생했습니다", "응답 생성 오류")
UNREACHABLE = ("Ollama 서비스에 연결할 수 없습니다", "서비스 연결 오류")
MODELS_FAILED = ("모델 목록을 가져오는 중 오류가 발생했습니다", "목록 조회 오류")


def _row(status: int, pair: tuple[str, str]) -> tuple[int, dict[str, str]]:
    return status, {"error": pair[0], "message": pair[1]}


def _unreachable(exc: Exception) -> bool:
    return isinstance(exc, LLMUnavailable) and exc.details.get("kind") in (
        "connection",
        "timeout",
        "not_configured",
    )


def _required(exc: RequestValidationError, field: str) -> bool:
    """Whether the error is that `field` is missing or blank (not, say, too long)."""
    kinds = error_types(exc)
    return kinds.get(field) in ("missing", "string_too_short", "blank") or (
        kinds.get("body") == "missing"  # no body at all
    )


def _invalid(exc: RequestValidationError, field: str, pair: tuple[str, str]) -> Response:
    if _required(exc, field):
        return error(400, *pair)
    return error(400, *INVALID_REQUEST, describe(exc))


async def summarize_errors(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        return _invalid(exc, "query", QUERY_REQUIRED)
    if isinstance(exc, LLMUnavailable):
        return error(500, *SUMMARY_FAILED, reason(exc))
    return error(500, *SEARCH_FAILED, reason(exc))


@router.post(
    "/prompt/summarize",
    response_model=SummarizeResult,
    response_model_exclude_none=True,
    summary="문서 요약 (Prompt_문서_요약)",
    responses=responses(
        _row(400, QUERY_REQUIRED),
        _row(400, INVALID_REQUEST),
        _row(500, SEARCH_FAILED),
        _row(500, SUMMARY_FAILED),
    ),
)
@maps_errors(summarize_errors)
def summarize(
    request: Annotated[
        SummarizeRequest,
        Body(
            openapi_examples={
                "news": {
                    "value": {
                        "query": "메타버스 최신 동향",
                        "domain": "news",
                        "start_date": "20240301",
                        "end_date": "20240315",
                    }
                }
            }
        ),
    ],
    access: UserAccessDep,
    prompts: PromptsDep,
) -> SummarizeResult:
    """Search the domain's knowledge base (every readable one without `domain`) with the filters
    and summarise the best passages. Without a reachable LLM the summary is extractive (the
    passages' best sentences, cited) and `fallback` says so."""
    if not request.query.strip():
        raise RequestValidationError([{"loc": ("body", "query"), "msg": "blank", "type": "blank"}])
    return prompts.summarize(access, request)


class ChatBody(BaseModel):
    query: str = Field(min_length=1, max_length=20000, examples=["메타버스란 무엇인가요?"])
    model: str | None = Field(default=None, max_length=200, examples=["llama2"])
    knowledge_bases: list[str] | None = Field(
        default=None,
        max_length=20,
        description="ground the answer in these knowledge bases (cited, with `sources`); "
        "default PLANRAG_ASK__CHAT_KNOWLEDGE_BASES; none: plain LLM chat",
    )
    history: list[ChatMessage] = Field(
        default_factory=list, max_length=200, description="earlier turns ({role, content})"
    )


async def chat_errors(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestValidationError):
        return _invalid(exc, "query", QUESTION_REQUIRED)
    if isinstance(exc, InvalidInput | NotFound | Forbidden):  # grounded chat: a KB or llm choice
        return error(exc.status, *INVALID_REQUEST, exc.message)
    if _unreachable(exc):
        return error(503, *UNREACHABLE, reason(exc))
    return error(500, *CHAT_FAILED, reason(exc))


@router.post(
    "/prompt/chat",
    response_model=ChatResult,
    response_model_exclude_none=True,
    summary="챗봇 응답 (Prompt_챗봇_응답)",
    responses=responses(
        _row(400, QUESTION_REQUIRED),
        _row(400, INVALID_REQUEST),
        _row(403, INVALID_REQUEST),  # a knowledge base outside the caller's scope; another user
        _row(404, INVALID_REQUEST),  # a knowledge base that does not exist
        _row(500, CHAT_FAILED),
        _row(503, UNREACHABLE),
    ),
)
@maps_errors(chat_errors)
def chat(
    body: Annotated[
        ChatBody,
        Body(
            openapi_examples={
                "chat": {"value": {"query": "메타버스란 무엇인가요?", "model": "llama2"}}
            }
        ),
    ],
    access: UserAccessDep,
    principal: PrincipalDep,
    prompts: PromptsDep,
    ask: AskDep,
    conversations: ConversationsDep,
    settings: SettingsDep,
) -> ChatResult:
    """A chat answer. With `knowledge_bases` (or the server's PLANRAG_ASK__CHAT_KNOWLEDGE_BASES)
    it is grounded: planned and retrieved like /ai/v2/ask, cited [n], with `sources` (extractive
    without an LLM); otherwise a plain chat answer from the configured LLM (`model` overrides
    PLANRAG_LLM__MODEL)."""
    if not body.query.strip():
        raise RequestValidationError([{"loc": ("body", "query"), "msg": "blank", "type": "blank"}])
    grounded = body.knowledge_bases or settings.ask.chat_knowledge_bases
    if not grounded:
        return prompts.chat(body.query, body.model)
    for name in grounded:
        access.check(name)
    request = ConversationRequest(
        question=body.query,
        knowledge_bases=list(grounded),
        llm=LLMChoice(model=body.model) if body.model else None,
        history=body.history,
        user_id=access.user,
    )
    prepared = conversations.prepare(request, principal.name)
    outcome = ask.run(prepared.request, access.readable(), principal.name)
    if outcome.error:
        raise outcome.error.to_exception()  # its own status, as the ask reported it
    return ChatResult(
        query=body.query,
        model=body.model or settings.llm.model or "extractive",
        response=outcome.answer,
        sources=[
            ChatSource(**p.model_dump(include=set(ChatSource.model_fields)))
            for p in outcome.passages
        ],
        answer_source=outcome.answer_source,
        trace_id=outcome.trace_id,
    )


async def models_errors(_request: Request, exc: Exception) -> Response:
    if _unreachable(exc):
        return error(503, *UNREACHABLE, reason(exc))
    return error(500, *MODELS_FAILED, reason(exc))


@router.get(
    "/prompt/models",
    response_model=ModelList,
    summary="모델 목록 조회 (Prompt_모델_목록)",
    responses=responses(_row(500, MODELS_FAILED), _row(503, UNREACHABLE)),
)
@maps_errors(models_errors)
def models(prompts: PromptsDep) -> ModelList:
    """The models the OpenAI-compatible endpoint lists (`GET {base_url}/models`)."""
    return prompts.models()
