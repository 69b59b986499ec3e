"""What a knowledge base holds, for planning: distinct authors, domains and the date range of its
documents, and how many documents a set of metadata filters would leave (bound parameters only)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, Field
from sqlalchemy import Engine, and_, func, or_, select
from sqlalchemy.sql.elements import ColumnElement

from planrag.core.types import KbFacets
from planrag.stores.tables import DocumentRow

FACET_LIMIT = 50
CACHE_TTL_S = 5.0


class DocumentFilter(BaseModel):
    """Metadata conditions on documents (the plan's filters, minus what only chunks know)."""

    doc_ids: list[str] = Field(default_factory=list)
    authors: list[str] = Field(default_factory=list)
    domains: list[str] = Field(default_factory=list)
    date_from: str | None = None
    date_to: str | None = None
    title_contains: str | None = None


class Catalog:
    """Reads facets from the metadata DB; cached for a few seconds (planning is per question)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._cache: dict[str, tuple[datetime, KbFacets]] = {}

    def facets(self, kb_id: str) -> KbFacets:
        cached = self._cache.get(kb_id)
        now = datetime.now(UTC)
        if cached and now - cached[0] < timedelta(seconds=CACHE_TTL_S):
            return cached[1]
        facets = self._read(kb_id)
        self._cache[kb_id] = (now, facets)
        return facets

    def _read(self, kb_id: str) -> KbFacets:
        in_kb = DocumentRow.kb_id == kb_id
        with self._engine.connect() as conn:
            count, first, last = conn.execute(
                select(func.count(), func.min(DocumentRow.date), func.max(DocumentRow.date)).where(
                    in_kb
                )
            ).one()
            authors = self._distinct(conn, DocumentRow.author, in_kb)
            domains = self._distinct(conn, DocumentRow.domain, in_kb)
        return KbFacets(
            kb_id=kb_id,
            documents=count,
            authors=authors,
            domains=domains,
            date_from=first,
            date_to=last,
        )

    @staticmethod
    def _distinct(conn, column, in_kb: ColumnElement[bool]) -> list[str]:  # type: ignore[no-untyped-def]
        rows = conn.execute(
            select(column, func.count().label("n"))
            .where(in_kb, column.is_not(None), column != "")
            .group_by(column)
            .order_by(func.count().desc(), column)
            .limit(FACET_LIMIT)
        ).all()
        return [r[0] for r in rows]

    def count_documents(self, kb_ids: Iterable[str], where: DocumentFilter) -> int:
        """Documents in these KBs that the filter leaves."""
        with self._engine.connect() as conn:
            condition = and_(*_conditions(kb_ids, where))
            return int(conn.execute(select(func.count()).where(condition)).scalar_one())

    def list_documents(
        self, kb_ids: Iterable[str], where: DocumentFilter, newest: bool, limit: int
    ) -> list[str]:
        """Ids of the completed documents the filter leaves, by date (newest or oldest first;
        undated last, then by upload time)."""
        date = DocumentRow.date.desc() if newest else DocumentRow.date.asc()
        query = (
            select(DocumentRow.id)
            .where(*_conditions(kb_ids, where), DocumentRow.status == "completed")
            .order_by(DocumentRow.date.is_(None), date, DocumentRow.created_at.desc())
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [row[0] for row in conn.execute(query)]


def _conditions(kb_ids: Iterable[str], where: DocumentFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [DocumentRow.kb_id.in_(list(kb_ids))]
    if where.doc_ids:
        conditions.append(DocumentRow.id.in_(where.doc_ids))
    if where.authors:
        conditions.append(DocumentRow.author.in_(where.authors))
    if where.domains:
        conditions.append(DocumentRow.domain.in_(where.domains))
    if where.date_from:
        conditions.append(DocumentRow.date >= where.date_from)
    if where.date_to:
        conditions.append(DocumentRow.date <= where.date_to)
    if where.title_contains:
        pattern = f"%{_escape_like(where.title_contains)}%"
        conditions.append(
            or_(
                DocumentRow.title.like(pattern, escape="\\"),
                DocumentRow.filename.like(pattern, escape="\\"),
            )
        )
    return conditions


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
