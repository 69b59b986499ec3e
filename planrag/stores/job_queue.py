"""The durable ingestion queue and the index version stamps, both in the metadata DB.

Queue: a job per document waiting for indexing. A worker *claims* the oldest job whose lease is
free or expired, renews the lease while it works, and deletes the job when the document is done.
A worker killed mid-job stops renewing; once its lease expires another worker claims the job
(indexing is idempotent: an attempt first removes what an earlier one wrote). On PostgreSQL the
claim is `SELECT … FOR UPDATE SKIP LOCKED` (no two workers wait on one row); on SQLite, which
serialises writers, a conditional `UPDATE` whose row count says who won.

Why not a queue library: the documents already live in this database; a job row beside them keeps
"upload = row written" one transaction away and needs no broker. procrastinate (PostgreSQL only)
would leave the SQLite default without a queue; Celery/RQ would add Redis.

Version stamps: `index_versions(kb_id, kind)` counters. A process that changes a knowledge base's
BM25 terms bumps `lexical`; every process compares the version it built its in-memory index from
with the stored one before searching, so several API processes never serve a stale keyword index.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import CursorResult, Engine, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable

from planrag.stores.tables import IndexVersionRow, IngestionJobRow

__all__ = ["ClaimedJob", "IndexVersions", "JobQueue"]


@dataclass(frozen=True)
class ClaimedJob:
    doc_id: str
    kb_id: str
    attempts: int


def _changed(session: Session, statement: Executable) -> int:
    """Rows an UPDATE/DELETE changed."""
    result = session.execute(statement)
    assert isinstance(result, CursorResult)
    return result.rowcount


def _now() -> datetime:
    return datetime.now(UTC)


class JobQueue:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def enqueue(self, doc_id: str, kb_id: str) -> None:
        """Queue a document (again). Enqueuing a queued document is a no-op, never a duplicate."""
        try:
            with Session(self._engine) as s, s.begin():
                if s.get(IngestionJobRow, doc_id) is None:
                    s.add(IngestionJobRow(doc_id=doc_id, kb_id=kb_id, enqueued_at=_now()))
        except IntegrityError:  # another process queued it at the same moment
            pass

    def claim(self, owner: str, lease_s: float) -> ClaimedJob | None:
        """Take the oldest job whose lease is free or expired, or None when there is none."""
        for _ in range(5):  # lost races (SQLite) are retried on the next candidate
            now = _now()
            free = or_(
                IngestionJobRow.lease_expires_at.is_(None),
                IngestionJobRow.lease_expires_at < now,
            )
            with Session(self._engine) as s, s.begin():
                candidate = s.execute(
                    select(IngestionJobRow.doc_id, IngestionJobRow.kb_id, IngestionJobRow.attempts)
                    .where(free)
                    .order_by(IngestionJobRow.enqueued_at, IngestionJobRow.doc_id)
                    .limit(1)
                    .with_for_update(skip_locked=True)
                ).first()
                if candidate is None:
                    return None
                won = _changed(
                    s,
                    update(IngestionJobRow)
                    .where(IngestionJobRow.doc_id == candidate.doc_id, free)
                    .values(
                        lease_owner=owner,
                        lease_expires_at=now + timedelta(seconds=lease_s),
                        attempts=IngestionJobRow.attempts + 1,
                    )
                    .execution_options(synchronize_session=False),
                )
            if won == 1:
                return ClaimedJob(candidate.doc_id, candidate.kb_id, candidate.attempts + 1)
        return None

    def renew(self, doc_id: str, owner: str, lease_s: float) -> bool:
        """Extend a held lease; False when the job is no longer this owner's (taken over)."""
        with Session(self._engine) as s, s.begin():
            return (
                _changed(
                    s,
                    update(IngestionJobRow)
                    .where(IngestionJobRow.doc_id == doc_id, IngestionJobRow.lease_owner == owner)
                    .values(lease_expires_at=_now() + timedelta(seconds=lease_s))
                    .execution_options(synchronize_session=False),
                )
                == 1
            )

    def finish(self, doc_id: str, owner: str) -> bool:
        """Remove a finished job; False when another worker had taken it over."""
        with Session(self._engine) as s, s.begin():
            return (
                _changed(
                    s,
                    delete(IngestionJobRow).where(
                        IngestionJobRow.doc_id == doc_id, IngestionJobRow.lease_owner == owner
                    ),
                )
                == 1
            )

    def release(self, owner: str) -> int:
        """Free every lease of an owner shutting down cleanly (its jobs go back to the queue)."""
        with Session(self._engine) as s, s.begin():
            return _changed(
                s,
                update(IngestionJobRow)
                .where(IngestionJobRow.lease_owner == owner)
                .values(lease_owner=None, lease_expires_at=None)
                .execution_options(synchronize_session=False),
            )

    def drop(self, doc_id: str) -> None:
        with Session(self._engine) as s, s.begin():
            s.execute(delete(IngestionJobRow).where(IngestionJobRow.doc_id == doc_id))

    def depth(self, kb_id: str | None = None) -> int:
        """Jobs queued or running (of one KB's documents, with `kb_id`)."""
        query = select(func.count()).select_from(IngestionJobRow)
        if kb_id is not None:
            query = query.where(IngestionJobRow.kb_id == kb_id)
        with Session(self._engine) as s:
            return int(s.scalar(query) or 0)

    def queued(self) -> set[str]:
        with Session(self._engine) as s:
            return set(s.scalars(select(IngestionJobRow.doc_id)))


class IndexVersions:
    """Per-KB version counters of an index kind (e.g. `lexical`) shared by every process."""

    def __init__(self, engine: Engine, kind: str) -> None:
        self._engine = engine
        self._kind = kind

    def get(self, kb_id: str) -> int:
        with Session(self._engine) as s:
            row = s.get(IndexVersionRow, (kb_id, self._kind))
            return row.version if row else 0

    def bump(self, kb_id: str) -> int:
        try:
            with Session(self._engine) as s, s.begin():
                changed = _changed(
                    s,
                    update(IndexVersionRow)
                    .where(IndexVersionRow.kb_id == kb_id, IndexVersionRow.kind == self._kind)
                    .values(version=IndexVersionRow.version + 1)
                    .execution_options(synchronize_session=False),
                )
                if changed == 0:
                    s.add(IndexVersionRow(kb_id=kb_id, kind=self._kind, version=1))
        except IntegrityError:  # the row was created concurrently: bump that one instead
            return self.bump(kb_id)
        return self.get(kb_id)

    def forget(self, kb_id: str) -> None:
        with Session(self._engine) as s, s.begin():
            s.execute(delete(IndexVersionRow).where(IndexVersionRow.kb_id == kb_id))
