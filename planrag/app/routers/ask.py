"""Spec 002: `POST /ai/v2/ask` (SSE), `POST /ai/v2/plan` (plan inspection, nothing executed) and the
stored traces of every ask. Knowledge bases come only from the request's AccessDep scope."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from pydantic import BaseModel
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import AccessDep, AskDep, ConversationsDep, SettingsDep
from planrag.core.settings import Settings
from planrag.core.types import KnowledgeBase
from planrag.planner.conversation import Turn
from planrag.planner.schema import PlanEnvelope
from planrag.planner.scope import PlanScope
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.ask import AskService
from planrag.services.ask_events import event_data
from planrag.services.ask_requests import AskRequest, PlanRequest
from planrag.services.auth import Principal
from planrag.services.conversations import (
    ConversationRequest,
    ConversationService,
    PlanConversationRequest,
    Prepared,
)
from planrag.services.ownership import acting_user
from planrag.stores.conversations import ConversationNotFound
from planrag.stores.traces import Trace, TraceSummary

router = APIRouter(prefix="/ai/v2", tags=["ask (spec 002)"])

EVENTS_DOC = """Server-sent events, in order: `search_plan` (the plan envelope) → `step`*
(multi-step plans only: each step's plan, hits and the answer it read) → `search_result`
(hits with ids, titles, scores, stage counts) → `exist_in_post_status` (whether evidence passed the
threshold) → `context` (the numbered passages the answer may cite) → `answer`* (`{"delta": …}`) →
`end` (`trace_id`, `answer_source` llm|extractive|canned|none, `citations`, `timings_ms`;
`steps_stopped` `{step, reason}` when a step could not run).
A failure after the stream started is an `error` event `{code, message, trace_id}`.
Greetings (mode `direct`) skip the search events."""


def _names(request: PlanRequest, access: KnowledgeBaseAccess) -> None:
    """`knowledge_bases` may list ids as well as names: ids become names (scopes are names)."""
    if request.knowledge_bases:
        request.knowledge_bases = [access.name_of(k) for k in request.knowledge_bases]


def _prepare(
    body: ConversationRequest,
    asking: AskService,
    conversations: ConversationService,
    access: KnowledgeBaseAccess,
    principal_id: str | None,
) -> tuple[Prepared, AskRequest, list[KnowledgeBase], PlanScope]:
    """Everything an ask needs before its stream starts (reads of the metadata DB), in one call:
    one worker thread per ask, not one per step."""
    _names(body, access)
    for name in body.knowledge_bases or []:
        access.check(name)  # 403 outside the caller's scope
    # A follow-up becomes a standalone question (with the previous turn's KBs and document).
    prepared = conversations.prepare(body, principal_id)
    request = prepared.request
    readable = access.readable()
    allowed = {kb.name for kb in readable}
    if request.knowledge_bases and not body.knowledge_bases:
        # KBs carried from the previous turn that the caller may no longer read are dropped
        kept = [name for name in request.knowledge_bases if name in allowed]
        request = request.model_copy(update={"knowledge_bases": kept or None})
    # Bad requests (unknown KB, over-long question) fail here, before the stream starts.
    return prepared, request, readable, asking.scope(request, readable, request.doc_id)


ASK_EXAMPLE = {"question": "9월 글 2개만 보여줘", "knowledge_bases": ["news"]}


@router.post(
    "/ask",
    summary="Ask a question; the plan, evidence and a cited answer stream back as SSE",
    description=EVENTS_DOC,
    response_class=EventSourceResponse,
    responses={
        200: {
            "content": {
                "text/event-stream": {
                    "example": 'event: search_plan\ndata: {"plan": {...}, "source": "heuristic"}'
                    '\n\nevent: answer\ndata: {"delta": "..."}\n\nevent: end\ndata: {...}\n\n'
                }
            }
        }
    },
    openapi_extra={"requestBody": {"content": {"application/json": {"example": ASK_EXAMPLE}}}},
)
async def ask(
    body: ConversationRequest,
    asking: AskDep,
    conversations: ConversationsDep,
    settings: SettingsDep,
    access: AccessDep,
    principal: PrincipalDep,
) -> EventSourceResponse:
    return await ask_stream(body, asking, conversations, settings, access, principal)


async def ask_stream(
    body: ConversationRequest,
    asking: AskService,
    conversations: ConversationService,
    settings: Settings,
    access: KnowledgeBaseAccess,
    principal: Principal,
    fixed: bool = False,
) -> EventSourceResponse:
    """The ask as SSE, for v2 (planned) and v1 (`fixed`: the fixed pipeline, no planner)."""
    # Whose documents per-user KBs search: the principal with auth on, else the body's user_id.
    user = acting_user(settings.auth.enabled, principal.id, body.user_id)
    body = body.model_copy(update={"user_id": user})

    # On the ask service's planning threads, ahead of other asks' searches.
    prepared, request, readable, scope = await asking.front(
        lambda: _prepare(body, asking, conversations, access, principal.id)
    )
    events = conversations.record(
        asking.ask(request, scope, readable, principal.name, prepared.followup, fixed=fixed),
        prepared,
    )

    async def stream() -> AsyncIterator[ServerSentEvent]:
        async for item in events:
            yield ServerSentEvent(
                event=item.event, data=json.dumps(event_data(item), ensure_ascii=False)
            )

    return EventSourceResponse(
        stream(), ping=settings.ask.heartbeat_s, headers={"X-Accel-Buffering": "no"}
    )


@router.post(
    "/plan",
    response_model=PlanEnvelope,
    response_model_by_alias=True,
    summary="The plan a question would run, without running it (plan inspection)",
    openapi_extra={
        "requestBody": {
            "content": {
                "application/json": {
                    "example": {
                        "question": "지난주 뉴스 요약해줘",
                        "now": "2025-11-21T10:00:00+09:00",
                    }
                }
            }
        }
    },
)
async def plan(
    body: PlanConversationRequest,
    asking: AskDep,
    access: AccessDep,
    conversations: ConversationsDep,
    principal: PrincipalDep,
) -> PlanEnvelope:
    await run_in_threadpool(_names, body, access)
    for name in body.knowledge_bases or []:
        access.check(name)  # 403 outside the caller's scope
    readable = await run_in_threadpool(access.readable)
    fields = set(PlanRequest.model_fields)
    if not body.continues():
        request = PlanRequest.model_validate(body.model_dump(include=fields))
        return await run_in_threadpool(asking.plan, request, readable)
    # A follow-up: planned from its standalone question, as the ask would plan it.
    conversation = ConversationRequest.model_validate(body.model_dump(by_alias=True))
    prepared = await run_in_threadpool(conversations.prepare, conversation, principal.id)
    request = PlanRequest.model_validate(prepared.request.model_dump(include=fields))
    allowed = {kb.name for kb in readable}
    if request.knowledge_bases and not body.knowledge_bases:  # carried KBs still readable
        kept = [name for name in request.knowledge_bases if name in allowed]
        request = request.model_copy(update={"knowledge_bases": kept or None})
    envelope = await run_in_threadpool(asking.plan, request, readable, prepared.request.doc_id)
    if prepared.followup.source == "none":  # no earlier turn: the question as asked
        return envelope
    return envelope.model_copy(update={"followup": prepared.followup})


@router.get("/traces", response_model=list[TraceSummary], summary="Stored asks, newest first")
async def list_traces(
    asking: AskDep,
    access: AccessDep,
    limit: int = Query(default=50, ge=1, le=500, examples=[20]),
    offset: int = Query(default=0, ge=0, examples=[0]),
) -> list[TraceSummary]:
    readable = [kb.name for kb in await run_in_threadpool(access.readable)]
    return await run_in_threadpool(asking.traces.list, limit, offset, readable)


@router.get("/traces/{trace_id}", response_model=Trace, summary="One ask's full trace")
async def get_trace(
    trace_id: Annotated[str, Path(examples=["6f1c2a9e-0c1d-4b8e-9f3a-2d5e7c1b4a60"])],
    asking: AskDep,
    access: AccessDep,
) -> Trace:
    readable = [kb.name for kb in await run_in_threadpool(access.readable)]
    return await run_in_threadpool(asking.traces.get, trace_id, readable)


class ConversationSummary(BaseModel):
    id: str
    updated_at: datetime
    turns: int


@router.get(
    "/conversations",
    response_model=list[ConversationSummary],
    summary="The caller's conversations, most recent first",
)
async def list_conversations(
    conversations: ConversationsDep,
    principal: PrincipalDep,
    limit: int = Query(default=50, ge=1, le=500),
) -> list[ConversationSummary]:
    rows = await run_in_threadpool(conversations.store.list, principal.id, limit)
    return [ConversationSummary(id=i, updated_at=u, turns=n) for i, u, n in rows]


@router.get(
    "/conversations/{conversation_id}",
    response_model=list[Turn],
    summary="One conversation's turns (question, standalone question, KBs, sources, answer)",
    responses={404: {"description": "no such conversation of the caller"}},
)
async def get_conversation(
    conversation_id: str, conversations: ConversationsDep, principal: PrincipalDep
) -> list[Turn]:
    turns = await run_in_threadpool(conversations.store.turns, conversation_id, principal.id)
    if turns is None:
        raise ConversationNotFound(f"conversation '{conversation_id}' not found")
    return [Turn.model_validate(t) for t in turns]


@router.delete(
    "/conversations/{conversation_id}",
    status_code=204,
    summary="Forget a conversation",
    responses={404: {"description": "no such conversation of the caller"}},
)
async def delete_conversation(
    conversation_id: str, conversations: ConversationsDep, principal: PrincipalDep
) -> Response:
    await run_in_threadpool(conversations.store.delete, conversation_id, principal.id)
    return Response(status_code=204)
