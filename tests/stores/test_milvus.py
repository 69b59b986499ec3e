"""Milvus Lite runs the conformance suite, plus what only Milvus has (persistence, locking)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from planrag.stores.milvus import MilvusStore
from planrag.testing.vector_store import DIM, VectorStoreConformance, records, unit


def release(path: str) -> None:
    """Stop milvus-lite's in-process server for a data dir (`close()` leaves it running)."""
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(os.path.abspath(path))


class TestMilvusStore(VectorStoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[MilvusStore]:
        milvus = MilvusStore(str(tmp_path / "milvus.db"))
        yield milvus
        milvus.close()

    @pytest.fixture
    def settle(self, tmp_path: Path) -> Iterator[Callable[[MilvusStore], MilvusStore]]:
        """A restart: the data dir reopened by a new server, rows now in indexed segments."""
        path, reopened = str(tmp_path / "milvus.db"), []

        def restart(store: MilvusStore) -> MilvusStore:
            store.close()
            release(path)
            reopened.append(MilvusStore(path))
            return reopened[-1]

        yield restart
        for store in reopened:
            store.close()
        release(path)


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


def test_an_unreachable_server_fails_clearly_after_the_deadline() -> None:
    import socket

    from planrag.core.errors import StoreUnavailable

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(StoreUnavailable, match="PLANRAG_MILVUS__URI|cannot open Milvus"):
        MilvusStore(f"http://127.0.0.1:{port}", connect_timeout_s=1.0)
