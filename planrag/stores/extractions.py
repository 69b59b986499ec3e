"""The cache of LLM graph extractions in the metadata DB: re-indexing identical text (under the
same extractor and model) costs no LLM call."""

from __future__ import annotations

import contextlib
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from planrag.stores.tables import GraphExtractionRow


class ExtractionCache:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def get(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        if not keys:
            return {}
        found: dict[str, dict[str, Any]] = {}
        with Session(self._engine) as s:
            for start in range(0, len(keys), 500):
                rows = s.scalars(
                    select(GraphExtractionRow).where(
                        GraphExtractionRow.key.in_(keys[start : start + 500])
                    )
                )
                found.update({r.key: r.data for r in rows})
        return found

    def put(self, items: dict[str, dict[str, Any]]) -> None:
        if not items:
            return
        with contextlib.suppress(IntegrityError):  # another worker cached the same text
            self._put(items)

    def _put(self, items: dict[str, dict[str, Any]]) -> None:
        with Session(self._engine) as s, s.begin():
            existing = set(
                s.scalars(
                    select(GraphExtractionRow.key).where(GraphExtractionRow.key.in_(list(items)))
                )
            )
            s.add_all(
                GraphExtractionRow(key=k, data=v) for k, v in items.items() if k not in existing
            )
