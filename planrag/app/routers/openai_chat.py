"""The OpenAI chat convention, served: `POST /v1/chat/completions` (streaming and not) and
`GET /v1/models`, so chat front ends and SDKs that speak the OpenAI API use planrag as is.

`model` names a knowledge base, or `planrag` for every knowledge base the caller may read;
`messages` is the conversation (its last user message is the question, the earlier turns make a
follow-up standalone). The answer is planned, retrieved and cited like `/ai/v2/ask`; the sources
and the plan come back in extra fields (`sources`, `plan`) of the response or of the last chunk.
Same auth and scopes as every route."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import AccessDep, AskDep, ConversationsDep, SettingsDep
from planrag.core.errors import InvalidInput, KnowledgeBaseNotFound
from planrag.services.ask_events import AskEvent, event_data
from planrag.services.conversations import ChatMessage, ConversationRequest
from planrag.services.ownership import acting_user

router = APIRouter(prefix="/v1", tags=["openai-compatible"])

ALL = "planrag"


class ChatCompletionRequest(BaseModel):
    model: str = Field(default=ALL, max_length=200, examples=[ALL])
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False
    user: str | None = Field(default=None, max_length=200)
    # Accepted for compatibility; the answer's own settings apply.
    temperature: float | None = None
    max_tokens: int | None = None


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "planrag"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


@router.get("/models", response_model=ModelList, summary="`planrag` and one model per readable KB")
async def models(access: AccessDep) -> ModelList:
    readable = await run_in_threadpool(access.readable)
    return ModelList(data=[ModelCard(id=ALL), *(ModelCard(id=kb.name) for kb in readable)])


@router.post(
    "/chat/completions",
    summary="A planned, cited answer in the OpenAI chat-completions shape (stream or not)",
    responses={
        200: {
            "description": "a chat completion; with `stream: true` its chunks as server-sent "
            "events (`data: {chunk}` lines, then `data: [DONE]`)",
            "content": {
                "application/json": {},
                "text/event-stream": {
                    "example": 'data: {"object": "chat.completion.chunk", ...}\n\ndata: [DONE]\n\n'
                },
            },
        },
        404: {"description": "the model names no knowledge base the caller may read"},
    },
)
async def chat_completions(
    body: ChatCompletionRequest,
    asking: AskDep,
    conversations: ConversationsDep,
    settings: SettingsDep,
    access: AccessDep,
    principal: PrincipalDep,
) -> Any:
    question, history = _split(body.messages)
    knowledge_bases = None
    if body.model != ALL:
        kb = await run_in_threadpool(access.find, body.model)
        if kb is None:
            raise KnowledgeBaseNotFound(f"model '{body.model}' is no knowledge base of yours")
        knowledge_bases = [kb.name]
    # OpenAI's `user` names the end user: spec 002's user_id (per-user KBs; with auth on, the
    # principal, and naming anyone else is a 403).
    user = acting_user(settings.auth.enabled, principal.id, body.user)
    request = ConversationRequest(
        question=question, knowledge_bases=knowledge_bases, messages=history, user_id=user
    )
    prepared = await run_in_threadpool(conversations.prepare, request, principal.id)
    readable = await run_in_threadpool(access.readable)
    scope = await run_in_threadpool(
        asking.scope, prepared.request, readable, prepared.request.doc_id
    )
    events = conversations.record(
        asking.ask(prepared.request, scope, readable, principal.name, prepared.followup),
        prepared,
    )
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    if body.stream:
        return StreamingResponse(
            _chunks(events, completion_id, body.model),
            media_type="text/event-stream",
            headers={"X-Accel-Buffering": "no"},
        )
    return JSONResponse(await _complete(events, completion_id, body.model))


def _split(messages: list[ChatMessage]) -> tuple[str, list[ChatMessage]]:
    """The last user message is the question; what came before it is the history."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user" and messages[i].content.strip():
            return messages[i].content, [m for m in messages[:i] if m.role != "system"]
    raise InvalidInput("messages must contain a user message")


class _Collected:
    def __init__(self) -> None:
        self.plan: dict[str, Any] | None = None
        self.sources: list[dict[str, Any]] = []
        self.error: dict[str, Any] | None = None
        self.end: dict[str, Any] = {}

    def take(self, event: AskEvent) -> str | None:
        """Records what the event says; returns answer text when it is a delta."""
        data = event_data(event)
        if event.event == "search_plan":
            self.plan = data
        elif event.event == "context":
            self.sources = [
                {
                    k: p.get(k)
                    for k in ("n", "doc_id", "chunk_id", "title", "knowledge_base", "score")
                }
                for p in data.get("passages", [])
            ]
        elif event.event == "answer":
            return str(data.get("delta", ""))
        elif event.event == "error":
            self.error = data
        elif event.event == "end":
            self.end = data
        return None

    def extra(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "plan": self.plan,
            "citations": self.end.get("citations", []),
            "conversation_id": self.end.get("conversation_id"),
            "trace_id": self.end.get("trace_id") or (self.error or {}).get("trace_id"),
            **({"error": self.error} if self.error else {}),
        }


async def _complete(events: AsyncIterator[AskEvent], completion_id: str, model: str) -> dict:
    collected, text = _Collected(), []
    async for event in events:
        delta = collected.take(event)
        if delta:
            text.append(delta)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "".join(text)},
                "finish_reason": "stop" if collected.error is None else "error",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        **collected.extra(),
    }


async def _chunks(
    events: AsyncIterator[AskEvent], completion_id: str, model: str
) -> AsyncIterator[str]:
    collected = _Collected()
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None, **extra: Any) -> str:
        body = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return f"data: {json.dumps(body, ensure_ascii=False, default=str)}\n\n"

    yield chunk({"role": "assistant", "content": ""}, None)
    async for event in events:
        delta = collected.take(event)
        if delta:
            yield chunk({"content": delta}, None)
    finish = "stop" if collected.error is None else "error"
    yield chunk({}, finish, **collected.extra())
    yield "data: [DONE]\n\n"
