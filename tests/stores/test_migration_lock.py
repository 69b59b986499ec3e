"""Several processes migrating one PostgreSQL metadata DB at once (`serve --workers N` on a fresh
database): every one succeeds — one migrates, the others wait for its advisory lock and find the
DB at head. Before the lock, two processes raced to create `alembic_version` and one of
uvicorn's processes failed to start, taking the server down."""

from __future__ import annotations

import threading

import psycopg
from sqlalchemy import create_engine

from planrag.stores.migrations import MIGRATION_LOCK, is_current, upgrade
from tests.pg import sqlalchemy_url


def test_concurrent_upgrades_of_a_fresh_database_all_succeed(pg_database: str) -> None:
    engines = [create_engine(sqlalchemy_url(pg_database)) for _ in range(4)]
    start = threading.Barrier(len(engines))
    errors: list[BaseException] = []

    def migrate(index: int) -> None:
        start.wait()
        try:
            upgrade(engines[index])
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    threads = [threading.Thread(target=migrate, args=(i,)) for i in range(len(engines))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert is_current(engines[0])
    for engine in engines:
        engine.dispose()


def test_an_upgrade_waits_for_the_lock_another_process_holds(pg_database: str) -> None:
    engine = create_engine(sqlalchemy_url(pg_database))
    done = threading.Event()
    with psycopg.connect(pg_database) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        thread = threading.Thread(target=lambda: (upgrade(engine), done.set()))
        thread.start()
        assert not done.wait(1.0)  # waiting for the holder, not migrating
        holder.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
    thread.join(timeout=120)
    assert done.is_set() and is_current(engine)
    engine.dispose()
