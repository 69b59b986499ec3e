"""The migrations form one line: a single head (two engineers adding a revision on the same parent
would break every start-up with "multiple heads")."""

from __future__ import annotations

from alembic.script import ScriptDirectory

from planrag.stores.migrations import alembic_config


def test_one_head() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    heads = script.get_heads()
    assert len(heads) == 1, f"several migration heads: {heads}; chain the newest after the other"
