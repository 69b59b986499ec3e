"""The lexical-store protocol (BM25 today, `stores/bm25.py`): keyword search over the tokens the
metadata DB keeps for every searchable chunk, with scores normalised to [0, 1].

A lexical store reads its rows from a `RowSource` (the metadata DB: chunks of completed
documents) and is told when they changed (`mark_dirty`); it may rebuild lazily. Conformance:
`planrag.testing.lexical_store.LexicalStoreConformance`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from planrag.core.filters import Filter


class LexicalRow(BaseModel):
    chunk_id: str
    doc_id: str
    tokens: list[str]
    title: str = ""
    author: str = ""
    domain: str = ""
    date: int = 0


class LexicalHit(BaseModel):
    chunk_id: str
    doc_id: str
    score: float  # normalised, [0, 1]
    raw: float  # the engine's own score (BM25)


# kb_id → the KB's searchable rows.
RowSource = Callable[[str], list[LexicalRow]]


@runtime_checkable
class LexicalStore(Protocol):
    def mark_dirty(self, kb_id: str) -> None:
        """The KB's rows changed: the next search must see the new rows."""
        ...

    def search(
        self, kb_id: str, tokens: list[str], k: int, where: Filter | None = None
    ) -> list[LexicalHit]:
        """Best first; only rows matching `where`; nothing for tokens no row has."""
        ...

    def scores_for(
        self, kb_id: str, tokens: list[str], chunk_ids: list[str], clip: bool = True
    ) -> dict[str, float]:
        """Normalised scores of the given chunks (0, or absent, for a chunk without any query
        word or not in the index); with `clip` false, not capped at 1 (ordered like the raw
        score)."""
        ...

    def size(self, kb_id: str) -> int:
        """Searchable rows of the KB."""
        ...

    def drop(self, kb_id: str) -> None: ...
