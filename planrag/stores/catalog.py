"""What a knowledge base holds, for planning: distinct authors, domains and the date range of its
documents, and how many documents a set of metadata filters would leave (bound parameters only)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, and_, func, or_, select
from sqlalchemy.sql.elements import ColumnElement

from planrag.core.filters import RetrieveFilters, has_tag
from planrag.core.types import DocumentStatus, KbFacets
from planrag.stores.tables import DocumentRow

# kb id → the only documents of that KB an ask may see (per-user KBs); absent: no restriction
Restriction = dict[str, frozenset[str]]

FACET_LIMIT = 50
CACHE_TTL_S = 5.0


class Catalog:
    """Reads facets from the metadata DB; cached for a few seconds (planning is per question)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._cache: dict[str, tuple[datetime, KbFacets]] = {}

    def facets(self, kb_id: str, documents: frozenset[str] | None = None) -> KbFacets:
        """The KB's facets; with `documents` (a per-user KB: the asker's), of those documents
        only, so a plan never names another user's authors, domains or dates (not cached)."""
        if documents is not None:
            return self._read(kb_id, documents)
        cached = self._cache.get(kb_id)
        now = datetime.now(UTC)
        if cached and now - cached[0] < timedelta(seconds=CACHE_TTL_S):
            return cached[1]
        facets = self._read(kb_id)
        self._cache[kb_id] = (now, facets)
        return facets

    def _read(self, kb_id: str, documents: frozenset[str] | None = None) -> KbFacets:
        in_kb: ColumnElement[bool] = DocumentRow.kb_id == kb_id
        if documents is not None:
            in_kb = and_(in_kb, DocumentRow.id.in_(sorted(documents)))
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

    def tagged_documents(self, kb_ids: Iterable[str], tags: list[str]) -> list[str]:
        """Ids of the documents of these KBs carrying any of the tags (case-insensitive). Tags
        are a JSON list per document: matched here rather than in SQL, alike on every DB."""
        query = select(DocumentRow.id, DocumentRow.tags).where(DocumentRow.kb_id.in_(list(kb_ids)))
        with self._engine.connect() as conn:
            return sorted(
                doc_id for doc_id, doc_tags in conn.execute(query) if has_tag(doc_tags or [], tags)
            )

    def unfinished_documents(self, kb_id: str) -> list[str]:
        """Documents of the KB not (or no longer) completed: their vectors may exist while their
        BM25 terms do not, so searches hide them until they are searchable everywhere."""
        query = select(DocumentRow.id).where(
            DocumentRow.kb_id == kb_id, DocumentRow.status != DocumentStatus.completed.value
        )
        with self._engine.connect() as conn:
            return sorted(conn.execute(query).scalars())

    def count_documents(
        self, kb_ids: Iterable[str], where: RetrieveFilters, restriction: Restriction | None = None
    ) -> int:
        """Documents in these KBs that the filter leaves."""
        condition = and_(*self._conditions(kb_ids, where), *_restricted(restriction))
        with self._engine.connect() as conn:
            return int(conn.execute(select(func.count()).where(condition)).scalar_one())

    def list_documents(
        self,
        kb_ids: Iterable[str],
        where: RetrieveFilters,
        newest: bool,
        limit: int,
        restriction: Restriction | None = None,
    ) -> list[str]:
        """Ids of the completed documents the filter leaves, by date (newest or oldest first;
        undated last, then by upload time)."""
        date = DocumentRow.date.desc() if newest else DocumentRow.date.asc()
        query = (
            select(DocumentRow.id)
            .where(
                *self._conditions(kb_ids, where),
                *_restricted(restriction),
                DocumentRow.status == "completed",
            )
            .order_by(DocumentRow.date.is_(None), date, DocumentRow.created_at.desc())
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [row[0] for row in conn.execute(query)]

    def _conditions(
        self, kb_ids: Iterable[str], where: RetrieveFilters
    ) -> list[ColumnElement[bool]]:
        """The filters on the documents table (SQLAlchemy binds; tags resolved to ids)."""
        kb_ids = list(kb_ids)
        conditions: list[ColumnElement[bool]] = [DocumentRow.kb_id.in_(kb_ids)]
        if where.tags:
            conditions.append(DocumentRow.id.in_(self.tagged_documents(kb_ids, where.tags)))
        if where.doc_ids:
            conditions.append(DocumentRow.id.in_(where.doc_ids))
        if where.authors:
            conditions.append(DocumentRow.author.in_(where.authors))
        if where.domains:
            conditions.append(DocumentRow.domain.in_(where.domains))
        if where.date_from:
            conditions.append(DocumentRow.date >= _iso_date(where.date_from))
        if where.date_to:
            conditions.append(DocumentRow.date <= _iso_date(where.date_to))
        if where.title_contains:
            pattern = f"%{_escape_like(where.title_contains)}%"
            conditions.append(
                or_(
                    DocumentRow.title.like(pattern, escape="\\"),
                    DocumentRow.filename.like(pattern, escape="\\"),
                )
            )
        return conditions


def _restricted(restriction: Restriction | None) -> list[ColumnElement[bool]]:
    """A restricted KB's documents count only when allowed; other KBs' all do."""
    if not restriction:
        return []
    return [
        or_(
            DocumentRow.kb_id.not_in(list(restriction)),
            *(
                and_(DocumentRow.kb_id == kb_id, DocumentRow.id.in_(sorted(ids)))
                for kb_id, ids in restriction.items()
            ),
        )
    ]


def _iso_date(value: str) -> str:
    """YYYYMMDD or YYYY-MM-DD → YYYY-MM-DD (how documents' dates are stored)."""
    digits = value.replace("-", "")
    return f"{digits[:4]}-{digits[4:6]}-{digits[6:8]}"


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
