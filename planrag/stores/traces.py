"""Stored plan traces: every ask's question, plan envelope, stage counts and timings, hits,
answer and citations — for plan inspection (`GET /ai/v2/traces`)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session

from planrag.core.errors import NotFound
from planrag.stores.tables import TraceRow, aware

TraceStatus = Literal["ok", "error", "cancelled"]


class TraceNotFound(NotFound):
    code = "trace_not_found"


class Trace(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "6f1c…",
                    "created_at": "2025-11-21T01:00:00Z",
                    "question": "지난주 뉴스 요약해줘",
                    "principal": "anonymous",
                    "knowledge_bases": ["news"],
                    "source": "heuristic",
                    "status": "ok",
                    "data": {
                        "envelope": {},
                        "stages": {"retrieved": {"news": 4}, "merged": 4, "passages": 4},
                        "answer": "… [1]",
                        "answer_source": "extractive",
                        "citations": [],
                        "timings_ms": {"plan": 1.2, "search": 35.0, "answer": 4.1, "total": 41.0},
                    },
                }
            ]
        }
    )

    id: str
    created_at: datetime
    question: str
    principal: str | None = None
    knowledge_bases: list[str] = Field(default_factory=list)
    source: str
    status: TraceStatus
    data: dict[str, Any] = Field(
        default_factory=dict,
        description="envelope, stages, hits, answer, citations, timings_ms, error",
    )


class TraceSummary(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "6f1c…",
                    "created_at": "2025-11-21T01:00:00Z",
                    "question": "지난주 뉴스 요약해줘",
                    "knowledge_bases": ["news"],
                    "source": "heuristic",
                    "status": "ok",
                }
            ]
        }
    )

    id: str
    created_at: datetime
    question: str
    knowledge_bases: list[str]
    source: str
    status: TraceStatus


def _trace(row: TraceRow) -> Trace:
    return Trace(
        id=row.id,
        created_at=aware(row.created_at),
        question=row.question,
        principal=row.principal,
        knowledge_bases=list(row.knowledge_bases),
        source=row.source,
        status=row.status,  # type: ignore[arg-type]
        data=row.data,
    )


class TraceStore:
    def __init__(self, engine: Engine, keep: int = 10000) -> None:
        self._engine = engine
        self._keep = keep
        self._saved = 0

    def save(self, trace: Trace) -> None:
        with Session(self._engine) as s, s.begin():
            s.merge(
                TraceRow(
                    id=trace.id,
                    created_at=trace.created_at,
                    question=trace.question,
                    principal=trace.principal,
                    knowledge_bases=trace.knowledge_bases,
                    source=trace.source,
                    status=trace.status,
                    data=trace.data,
                )
            )
        self._saved += 1
        if self._saved % 100 == 0:
            self.prune()

    def prune(self) -> int:
        """Drops the oldest traces beyond the number kept."""
        with Session(self._engine) as s, s.begin():
            total = s.scalar(select(func.count()).select_from(TraceRow)) or 0
            if total <= self._keep:
                return 0
            cutoff = s.scalar(
                select(TraceRow.created_at)
                .order_by(TraceRow.created_at.desc())
                .offset(self._keep - 1)
                .limit(1)
            )
            result = s.execute(delete(TraceRow).where(TraceRow.created_at < cutoff))
            return int(result.rowcount or 0)  # type: ignore[attr-defined]

    def get(self, trace_id: str, readable: Collection[str] | None = None) -> Trace:
        with Session(self._engine) as s:
            row = s.get(TraceRow, trace_id)
            if row is None or not _visible(row, readable):
                raise TraceNotFound(f"trace '{trace_id}' not found")
            return _trace(row)

    def list(
        self, limit: int = 50, offset: int = 0, readable: Collection[str] | None = None
    ) -> list[TraceSummary]:
        """Newest first; with `readable`, only traces that touched no other knowledge base."""
        columns = (
            TraceRow.id,
            TraceRow.created_at,
            TraceRow.question,
            TraceRow.knowledge_bases,
            TraceRow.source,
            TraceRow.status,
        )
        with Session(self._engine) as s:
            rows = s.execute(select(*columns).order_by(TraceRow.created_at.desc())).all()
        visible = [r for r in rows if readable is None or set(r[3]) <= set(readable)]
        return [
            TraceSummary(
                id=r[0],
                created_at=aware(r[1]),
                question=r[2],
                knowledge_bases=list(r[3]),
                source=r[4],
                status=r[5],  # type: ignore[arg-type]
            )
            for r in visible[offset : offset + limit]
        ]


def _visible(row: TraceRow, readable: Collection[str] | None) -> bool:
    return readable is None or set(row.knowledge_bases) <= set(readable)
