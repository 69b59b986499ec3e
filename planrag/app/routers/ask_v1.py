"""Spec 002's v1 pipeline beside v2: `POST /ai/v1/ask` (SSE).

Spec 002 keeps v1 unchanged next to `/ai/v2/ask`: a fixed RAG flow — the same strategy,
top_k (5) and threshold (0.2) for every question (`PLANRAG_PLANNER__FALLBACK_*`), no planner,
no time filters, no relaxing. The body, the events and the traces are v2's; the `search_plan`
event's `source` is `fixed`."""

from __future__ import annotations

from fastapi import APIRouter
from sse_starlette import EventSourceResponse

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import AccessDep, AskDep, ConversationsDep, SettingsDep
from planrag.app.routers.ask import EVENTS_DOC, ask_stream
from planrag.services.conversations import ConversationRequest

router = APIRouter(prefix="/ai/v1", tags=["ask (spec 002)"])


@router.post(
    "/ask",
    summary="Spec 002's v1: a fixed retrieval pipeline (no planner), the answer as SSE",
    description=EVENTS_DOC,
    response_class=EventSourceResponse,
)
async def ask_v1(
    body: ConversationRequest,
    asking: AskDep,
    conversations: ConversationsDep,
    settings: SettingsDep,
    access: AccessDep,
    principal: PrincipalDep,
) -> EventSourceResponse:
    return await ask_stream(body, asking, conversations, settings, access, principal, fixed=True)
