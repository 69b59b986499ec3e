"""Run the Alembic migrations of the metadata DB programmatically (start-up, CLI, tests).
Alembic itself is imported only when a migration runs: `is_current` answers from the revision
files and the DB's `alembic_version` row (a fast start for read-only CLI commands). SQLAlchemy
too is imported by the functions that use it: `head_revisions` needs neither (`kb list`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Engine

SCRIPT_LOCATION = Path(__file__).resolve().parent.parent / "alembic"
_REVISION = re.compile(
    r"^(down_revision|revision)\s*(?::[^=]*)?=\s*['\"]?([\w-]+|None)['\"]?", re.M
)


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


# A transaction-scoped PostgreSQL advisory lock taken by every migration run ("planrag" in ASCII).
MIGRATION_LOCK = 0x706C616E726167


def _run(engine: Engine, step: Callable[[Config], None]) -> None:
    from sqlalchemy import text

    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.connect() as connection:
        # SQLite alters a table in batch mode by copying it and dropping the original; with
        # foreign keys on (as make_engine connects) that DROP cascades into every document and
        # chunk. The pragma only works outside a transaction, so it is set before one begins.
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    # Several processes start at once (`serve --workers N`, workers): one migrates,
                    # the others wait here and then find the DB at head. Without the lock two
                    # of them raced to create `alembic_version` and one process failed to start.
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                    )
                cfg.attributes["connection"] = connection
                step(cfg)
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    _run(engine, lambda cfg: command.upgrade(cfg, revision))


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    _run(engine, lambda cfg: command.downgrade(cfg, revision))


def head_revisions() -> set[str]:
    """The heads of the revision files (read as text: revisions nobody names as down)."""
    revisions, downs = set(), set()
    for script in (SCRIPT_LOCATION / "versions").glob("*.py"):
        found = dict(_REVISION.findall(script.read_text(encoding="utf-8")))
        if "revision" in found:
            revisions.add(found["revision"])
            downs.add(found.get("down_revision", "None"))
    return revisions - downs


def is_current(engine: Engine) -> bool:
    """True when the DB is at the files' head (no migration to run)."""
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:
        return False
    heads = head_revisions()
    return bool(heads) and {row[0] for row in rows} == heads


def upgrade_if_needed(engine: Engine) -> None:
    if not is_current(engine):
        upgrade(engine)
