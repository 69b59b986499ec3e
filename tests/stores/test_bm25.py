"""The BM25 store (bm25s over Kiwi tokens) runs the lexical conformance suite unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from planrag.stores.bm25 import BM25Store
from planrag.stores.lexical import RowSource
from planrag.testing.lexical_store import LexicalStoreConformance, MakeStore


class TestBM25Store(LexicalStoreConformance):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> MakeStore:
        def make(source: RowSource) -> BM25Store:
            return BM25Store(tmp_path / "bm25", source)

        return make
