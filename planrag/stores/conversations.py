"""Stored conversations: the turns of a chat, per principal, with a retention limit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session

from planrag.core.errors import NotFound
from planrag.stores.tables import ConversationRow

__all__ = ["ConversationNotFound", "ConversationStore"]


class ConversationNotFound(NotFound):
    code = "conversation_not_found"


class ConversationStore:
    """Turns are plain JSON here; the conversation service gives them their type."""

    def __init__(self, engine: Engine, max_turns: int, ttl_days: int) -> None:
        self._engine = engine
        self._max_turns = max_turns
        self._ttl = timedelta(days=ttl_days)

    def turns(self, conversation_id: str, principal: str) -> list[dict[str, Any]] | None:
        """The turns of a conversation of this principal; None when there is none (another
        principal's conversation is none too: ids never reveal others' conversations)."""
        with Session(self._engine) as s:
            row = s.get(ConversationRow, conversation_id)
            if row is None or row.principal != principal or self._expired(row):
                return None
            return list(row.turns)

    def append(self, conversation_id: str, principal: str, turn: dict[str, Any]) -> None:
        now = datetime.now(UTC)
        with Session(self._engine) as s, s.begin():
            row = s.get(ConversationRow, conversation_id)
            if row is None or self._expired(row):
                if row is not None:
                    s.delete(row)
                    s.flush()
                row = ConversationRow(
                    id=conversation_id, principal=principal, created_at=now, turns=[]
                )
                s.add(row)
            elif row.principal != principal:
                raise ConversationNotFound(f"conversation '{conversation_id}' not found")
            row.turns = [*row.turns, turn][-self._max_turns :]
            row.updated_at = now
            s.execute(delete(ConversationRow).where(ConversationRow.updated_at < now - self._ttl))

    def delete(self, conversation_id: str, principal: str) -> None:
        with Session(self._engine) as s, s.begin():
            row = s.get(ConversationRow, conversation_id)
            if row is None or row.principal != principal:
                raise ConversationNotFound(f"conversation '{conversation_id}' not found")
            s.delete(row)

    def list(self, principal: str, limit: int = 50) -> list[tuple[str, datetime, int]]:
        with Session(self._engine) as s:
            rows = s.scalars(
                select(ConversationRow)
                .where(ConversationRow.principal == principal)
                .order_by(ConversationRow.updated_at.desc())
                .limit(limit)
            )
            return [
                (r.id, _aware(r.updated_at), len(r.turns)) for r in rows if not self._expired(r)
            ]

    def _expired(self, row: ConversationRow) -> bool:
        return _aware(row.updated_at) < datetime.now(UTC) - self._ttl


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)
