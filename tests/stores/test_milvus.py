"""Milvus Lite runs the conformance suite, plus what only Milvus has (persistence, locking)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from planrag.stores.milvus import MilvusStore
from tests.stores.conformance import DIM, VectorStoreConformance, records, unit


class TestMilvusStore(VectorStoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[MilvusStore]:
        milvus = MilvusStore(str(tmp_path / "milvus.db"))
        yield milvus
        milvus.close()


def test_vectors_persist_across_reopen(tmp_path: Path) -> None:
    path = str(tmp_path / "milvus.db")
    vectors = unit(np.random.default_rng(3), 12)
    store = MilvusStore(path)
    store.create_collection("kb", DIM, "L2")
    store.upsert("kb", records(vectors))
    store.close()

    reopened = MilvusStore(path)
    try:
        assert reopened.count("kb") == 12
        hits = reopened.search("kb", vectors[4].tolist(), 1)
        assert hits[0].chunk_id == "doc0:4"
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    finally:
        reopened.close()


def test_second_process_gets_a_clear_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = str(tmp_path / "milvus.db")
    store = MilvusStore(path)
    try:
        code = (
            "from planrag.stores.milvus import MilvusStore\n"
            "from planrag.core.errors import StoreUnavailable\n"
            f"try:\n    MilvusStore({path!r})\nexcept StoreUnavailable as e:\n"
            "    print(e.message)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert "PLANRAG_MILVUS__URI" in out.stdout
    finally:
        store.close()
