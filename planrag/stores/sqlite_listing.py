"""The knowledge bases of a SQLite metadata DB and their document counts, read with the standard
library's `sqlite3` alone: `planrag kb list` answers in a fraction of a second where importing
SQLAlchemy and its ORM would take most of a second.

It applies only when it can give exactly what the metadata store gives: a SQLite DB that
exists and whose schema is at the migrations' head (`alembic_version` against the revision
files). Otherwise it answers None and the caller takes the metadata store's way (which creates
or upgrades the DB). Rows become `KnowledgeBase`s through the store's own conversion
(`kb_rows.kb_from_row`); the columns SQLAlchemy stores as JSON text or timestamps are decoded
as SQLAlchemy does (tests compare both ways and check these sets against the table)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from planrag.core.types import KnowledgeBase, KnowledgeBaseStats
from planrag.stores.kb_rows import aware, kb_from_row
from planrag.stores.migrations import head_revisions

JSON_COLUMNS = frozenset({"chunking", "user_words", "calibration", "reindex"})
TIME_COLUMNS = frozenset({"created_at", "updated_at"})
_SQLITE_PREFIX = "sqlite:///"
_KNOWLEDGE_BASES = "SELECT * FROM knowledge_bases ORDER BY created_at"
_STATS = (
    "SELECT kb_id, count(id), coalesce(sum(chunk_count), 0), coalesce(sum(size), 0),"
    " max(updated_at) FROM documents GROUP BY kb_id"
)
Listing = list[tuple[KnowledgeBase, KnowledgeBaseStats]]


def sqlite_path(database_url: str) -> Path | None:
    """The file of a plain `sqlite:///PATH` URL; None for anything else (options, memory)."""
    if not database_url.startswith(_SQLITE_PREFIX) or "?" in database_url:
        return None
    path = database_url[len(_SQLITE_PREFIX) :]
    return Path(path) if path and path != ":memory:" else None


def list_knowledge_bases(database_url: str) -> Listing | None:
    """Every knowledge base (oldest first) with its stats, or None when this reader does not
    apply (not SQLite, no DB yet, schema not current, unreadable)."""
    path = sqlite_path(database_url)
    if path is None or not path.is_file():
        return None
    try:
        with closing(sqlite3.connect(path, timeout=30)) as connection:
            connection.row_factory = sqlite3.Row
            if not _is_current(connection):
                return None
            kbs = [kb_from_row(_decoded(row)) for row in connection.execute(_KNOWLEDGE_BASES)]
            stats = dict(_stats(connection))
    except sqlite3.Error:
        return None
    return [(kb, stats.get(kb.id, KnowledgeBaseStats())) for kb in kbs]


def _is_current(connection: sqlite3.Connection) -> bool:
    try:
        versions = {row[0] for row in connection.execute("SELECT version_num FROM alembic_version")}
    except sqlite3.Error:
        return False
    heads = head_revisions()
    return bool(heads) and versions == heads


def _decoded(row: sqlite3.Row) -> SimpleNamespace:
    values: dict[str, Any] = {}
    for column in row.keys():  # noqa: SIM118 (sqlite3.Row has no iterator of names)
        value = row[column]
        if column in JSON_COLUMNS and isinstance(value, str):
            value = json.loads(value)
        elif column in TIME_COLUMNS and isinstance(value, str):
            value = datetime.fromisoformat(value)
        values[column] = value
    return SimpleNamespace(**values)


def _stats(connection: sqlite3.Connection) -> Iterator[tuple[str, KnowledgeBaseStats]]:
    for kb_id, documents, chunks, size, last in connection.execute(_STATS):
        yield (
            kb_id,
            KnowledgeBaseStats(
                document_count=documents,
                chunk_count=chunks,
                size_bytes=size,
                last_updated=aware(datetime.fromisoformat(last)) if last else None,
            ),
        )
