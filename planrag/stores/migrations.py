"""Run the Alembic migrations of the metadata DB programmatically (start-up, CLI, tests)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

SCRIPT_LOCATION = Path(__file__).resolve().parent.parent / "alembic"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def _run(engine: Engine, step: Callable[[Config], None]) -> None:
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
                cfg.attributes["connection"] = connection
                step(cfg)
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def upgrade(engine: Engine, revision: str = "head") -> None:
    _run(engine, lambda cfg: command.upgrade(cfg, revision))


def downgrade(engine: Engine, revision: str) -> None:
    _run(engine, lambda cfg: command.downgrade(cfg, revision))
