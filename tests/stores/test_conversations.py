"""Stored conversations: owned by one principal (others see none and cannot add to it), capped at
`max_turns`, and forgotten after `ttl_days` idle."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from planrag.stores.conversations import ConversationNotFound, ConversationStore
from planrag.stores.metadata import make_engine
from planrag.stores.migrations import upgrade
from planrag.stores.tables import ConversationRow


@pytest.fixture
def store(tmp_path: Path) -> ConversationStore:
    engine = make_engine(f"sqlite:///{tmp_path / 'c.db'}")
    upgrade(engine)
    return ConversationStore(engine, max_turns=3, ttl_days=30)


def test_a_conversation_belongs_to_its_principal(store: ConversationStore) -> None:
    store.append("c1", "alice", {"question": "q1"})
    assert store.turns("c1", "alice") == [{"question": "q1"}]
    assert store.turns("c1", "bob") is None
    with pytest.raises(ConversationNotFound):
        store.append("c1", "bob", {"question": "mine now?"})
    with pytest.raises(ConversationNotFound):
        store.delete("c1", "bob")
    assert store.turns("c1", "alice") == [{"question": "q1"}]
    assert [c[0] for c in store.list("alice")] == ["c1"] and store.list("bob") == []


def test_turns_are_capped_oldest_first(store: ConversationStore) -> None:
    for i in range(5):
        store.append("c", "p", {"question": f"q{i}"})
    assert [t["question"] for t in store.turns("c", "p")] == ["q2", "q3", "q4"]


def test_idle_conversations_expire(store: ConversationStore) -> None:
    store.append("old", "p", {"question": "q"})
    with Session(store._engine) as s, s.begin():
        s.execute(update(ConversationRow).values(updated_at=datetime.now(UTC) - timedelta(days=31)))
    assert store.turns("old", "p") is None
    store.append("old", "p", {"question": "fresh"})  # the id starts a new conversation
    assert store.turns("old", "p") == [{"question": "fresh"}]
