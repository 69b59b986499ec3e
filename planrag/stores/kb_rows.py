"""A knowledge-base row as the domain `KnowledgeBase`, without SQLAlchemy: the one conversion,
used by the metadata store (ORM rows) and by the SQLite listing of `planrag kb list`
(`sqlite_listing.py`, plain rows), so both give the same objects."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from planrag.core.types import ChunkingConfig, FusionCalibration, KnowledgeBase, ReindexStatus


def aware(value: datetime) -> datetime:
    """SQLite drops the zone of stored timestamps; they are written in UTC."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def kb_from_row(row: Any) -> KnowledgeBase:
    """Any object with the `knowledge_bases` columns as attributes (JSON columns decoded,
    timestamps as datetimes)."""
    return KnowledgeBase(
        id=row.id,
        name=row.name,
        description=row.description,
        top_k=row.top_k,
        score_threshold=row.score_threshold,
        metric=row.metric,
        chunking=ChunkingConfig.model_validate(row.chunking),
        embedding_model=row.embedding_model,
        embedding_dim=row.embedding_dim,
        graph_backend=row.graph_backend,
        user_words=list(row.user_words or []),
        calibration=FusionCalibration.model_validate(row.calibration) if row.calibration else None,
        vector_store=row.vector_store,
        vector_generation=row.vector_generation or 0,
        reindex=ReindexStatus.model_validate(row.reindex) if row.reindex else None,
        per_user=bool(row.per_user),
        created_at=aware(row.created_at),
        updated_at=aware(row.updated_at),
    )
