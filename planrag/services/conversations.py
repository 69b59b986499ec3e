"""Conversations around `/ai/v2/ask` (and `/prompt/chat`, `/v1/chat/completions`): prior turns in,
a standalone question out, and the turn stored afterwards.

A request brings its history as OpenAI-style `messages` / a `history` list, or names a
`conversation_id` whose turns the server keeps (per principal, `PLANRAG_ASK__CONVERSATION_*`).
`prepare()` turns the last question into the standalone one the plan is made from — by the LLM
when one is configured (falling back to the rules, flagged), by the rules otherwise — and carries
the previous turn's knowledge bases and document. `record()` passes the ask's events through,
adds the follow-up to `search_plan` and the conversation id to `end`, and stores the turn.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, ValidationError

from planrag.core.errors import PlanragError
from planrag.core.settings import AskSettings, PlannerSettings
from planrag.llm.chat import ChatClient
from planrag.planner.conversation import Source, Turn, resolve, trim_history
from planrag.planner.schema import FollowUp
from planrag.prompts import render
from planrag.services.answers import Passage
from planrag.services.ask_events import (
    AnswerEvent,
    AskEvent,
    ContextEvent,
    EndEvent,
    SearchPlanEvent,
)
from planrag.services.ask_requests import AskRequest, PlanRequest
from planrag.stores.conversations import ConversationStore

log = logging.getLogger(__name__)

__all__ = [
    "ChatMessage",
    "ConversationRequest",
    "ConversationService",
    "PlanConversationRequest",
    "Prepared",
]

CONDENSE_TIMEOUT_S = 8.0
_SCHEMA = {
    "type": "object",
    "properties": {"standalone": {"type": "string"}},
    "required": ["standalone"],
    "additionalProperties": False,
}


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str = Field(max_length=20000)


class ConversationRequest(AskRequest):
    """An ask that may continue a conversation."""

    conversation_id: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[A-Za-z0-9_.:\-]+$",
        description="continue a conversation the server keeps (created when unknown); "
        "the `end` event returns the id to send next time",
    )
    history: list[ChatMessage] = Field(
        default_factory=list,
        max_length=200,
        description="earlier turns, OpenAI-style ({role, content}), oldest first",
    )
    messages: list[ChatMessage] = Field(
        default_factory=list, max_length=200, description="alias of history (OpenAI convention)"
    )


class PlanConversationRequest(PlanRequest):
    """A plan inspection that may continue a conversation, like an ask (`/ai/v2/plan`): the
    envelope's `followup` shows the standalone question the plan was made from."""

    conversation_id: str | None = Field(
        default=None, max_length=64, pattern=r"^[A-Za-z0-9_.:\-]+$",
        description="a conversation the server keeps (read, never written, by plan inspection)",
    )  # fmt: skip
    history: list[ChatMessage] = Field(default_factory=list, max_length=200)
    messages: list[ChatMessage] = Field(default_factory=list, max_length=200)

    def continues(self) -> bool:
        return bool(self.conversation_id or self.history or self.messages)


@dataclass
class Prepared:
    request: AskRequest
    followup: FollowUp
    conversation_id: str
    principal: str


class ConversationService:
    def __init__(
        self,
        store: ConversationStore,
        chat: ChatClient,
        ask: AskSettings,
        planner: PlannerSettings,
    ) -> None:
        self._store = store
        self._chat = chat
        self._budget = ask.history_budget_chars
        self._tz = ZoneInfo(planner.timezone)

    @property
    def store(self) -> ConversationStore:
        return self._store

    def prepare(self, request: ConversationRequest, principal: str | None) -> Prepared:
        owner = principal or "anonymous"
        conversation_id = request.conversation_id or uuid.uuid4().hex
        now = (request.now or datetime.now(self._tz)).astimezone(self._tz)
        turns = self._turns(request, conversation_id, owner, now)
        followup = self.condense(request.question, turns, now, request.llm)
        changes: dict[str, object] = {"question": followup.standalone}
        if not request.knowledge_bases and followup.knowledge_bases:
            changes["knowledge_bases"] = followup.knowledge_bases
        if followup.doc_id and not request.doc_id:
            changes["doc_id"] = followup.doc_id
        plain = AskRequest.model_validate(
            request.model_dump(include=set(AskRequest.model_fields), by_alias=True)
        )
        return Prepared(plain.model_copy(update=changes), followup, conversation_id, owner)

    def condense(
        self, question: str, turns: list[Turn], now: datetime, llm: object | None = None
    ) -> FollowUp:
        """The standalone question: the LLM's when configured (rules on failure), else rules."""
        turns = trim_history(turns, self._budget)
        ruled = resolve(question, turns, now, self._tz)
        if not turns or not self._chat.configured:
            return ruled
        model = getattr(llm, "model", None)
        try:
            standalone = self._condense_llm(question, turns, model)
        except (PlanragError, ValidationError, ValueError) as exc:
            reason = getattr(exc, "message", None) or str(exc)
            log.warning("condensing the question failed; rules used: %s", reason)
            return ruled.model_copy(update={"source": "fallback", "reason": reason[:300]})
        return ruled.model_copy(update={"standalone": standalone, "source": "llm"})

    def _condense_llm(self, question: str, turns: list[Turn], model: str | None) -> str:
        history = "\n".join(
            f"- user: {t.question}" + (f"\n  assistant: {t.answer[:500]}" if t.answer else "")
            for t in turns
        )
        messages = [
            {"role": "system", "content": render("condense_system")},
            {
                "role": "user",
                "content": render("condense_user", history=history, question=question),
            },
        ]
        raw = self._chat.complete_json(
            messages, _SCHEMA, "standalone_question", CONDENSE_TIMEOUT_S, model
        )
        standalone = str(json.loads(raw)["standalone"]).strip()
        if not standalone or len(standalone) > 2000:
            raise ValueError("the LLM's standalone question is empty or too long")
        return standalone

    def _turns(
        self, request: ConversationRequest, conversation_id: str, owner: str, now: datetime
    ) -> list[Turn]:
        """The earlier turns: the stored ones, or those of `messages`/`history`, each earlier
        question made standalone by the rules in order, as the server did for a stored
        conversation (a third turn's "그럼 요약해줘" then keeps the topic and time of the
        first)."""
        stored = self._store.turns(conversation_id, owner) if request.conversation_id else None
        if stored:
            return [Turn.model_validate(t) for t in stored]
        turns: list[Turn] = []
        for message in [*request.history, *request.messages]:
            if message.role == "user":
                standalone = resolve(message.content, turns, now, self._tz).standalone
                turns.append(Turn(question=message.content, standalone=standalone))
            elif message.role == "assistant" and turns:
                turns[-1].answer = message.content
        return turns

    async def record(
        self, events: AsyncIterator[AskEvent], prepared: Prepared
    ) -> AsyncIterator[AskEvent]:
        """The ask's events, with the conversation id on `end`; the turn is stored once the
        answer is complete. (The follow-up itself is on the plan envelope.)"""
        followup = prepared.followup
        turn = Turn(
            question=followup.question,
            standalone=followup.standalone,
            knowledge_bases=list(prepared.request.knowledge_bases or []),
        )
        answer: list[str] = []
        async for event in events:
            if isinstance(event, SearchPlanEvent):
                plan = event.plan
                turn.knowledge_bases = list(plan.knowledge_bases or turn.knowledge_bases)
                time = plan.filters.time
                turn.time_expression = time.expression if time else None
            elif isinstance(event, ContextEvent):
                turn.sources = _sources(event.passages)
            elif isinstance(event, AnswerEvent):
                answer.append(event.delta)
            elif isinstance(event, EndEvent):
                event = event.model_copy(update={"conversation_id": prepared.conversation_id})
                turn.answer = "".join(answer)
                try:  # a database write: never on the event loop
                    await asyncio.to_thread(
                        self._store.append,
                        prepared.conversation_id,
                        prepared.principal,
                        turn.model_dump(),
                    )
                except PlanragError:
                    log.warning("conversation %s not stored", prepared.conversation_id)
            yield event


def _sources(passages: list[Passage]) -> list[Source]:
    """The documents of the passages, in the order first shown (one per document)."""
    seen: dict[str, Source] = {}
    for passage in passages:
        if passage.doc_id not in seen:
            seen[passage.doc_id] = Source(doc_id=passage.doc_id, title=passage.title or "")
    return list(seen.values())
