"""Spec 002's v1 pipeline beside v2: `POST /ai/v1/ask` (SSE).

Spec 002 keeps v1 unchanged next to `/ai/v2/ask`: a fixed RAG flow — the same strategy,
top_k (5) and threshold (0.2) for every question (`PLANRAG_PLANNER__FALLBACK_*`), no planner,
no time filters, no relaxing. The body, the events and the traces are v2's; the `search_plan`
event's `source` is `fixed`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter
from sse_starlette import EventSourceResponse, ServerSentEvent

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import AccessDep, AskDep, ConversationsDep, SettingsDep
from planrag.app.routers.ask import EVENTS_DOC, _prepare
from planrag.services.ask_events import event_data
from planrag.services.conversations import ConversationRequest
from planrag.services.ownership import acting_user

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
    user = acting_user(settings.auth.enabled, principal.id, body.user_id)
    body = body.model_copy(update={"user_id": user})
    prepared, request, readable, scope = await asking.front(
        lambda: _prepare(body, asking, conversations, access, principal.id)
    )
    events = conversations.record(
        asking.ask(request, scope, readable, principal.name, prepared.followup, fixed=True),
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
