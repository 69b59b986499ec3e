"""Milvus Lite runs the conformance suite, plus what only Milvus has (persistence, locking)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from planrag.stores.milvus import MilvusStore
from planrag.testing.vector_store import DIM, VectorStoreConformance, records, unit


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
            store.close()  # the last store on the path: its server stops
            reopened.append(MilvusStore(path))
            return reopened[-1]

        yield restart
        for store in reopened:
            store.close()


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


def test_second_process_gets_a_clear_error_until_the_last_store_closes(tmp_path: Path) -> None:
    """Milvus Lite allows one process per data dir; closing this process's last store on it
    frees it (pymilvus kept its in-process server, and the lock, until exit)."""
    import subprocess
    import sys

    path = str(tmp_path / "milvus.db")
    code = (
        "from planrag.stores.milvus import MilvusStore\n"
        "from planrag.core.errors import StoreUnavailable\n"
        f"try:\n    MilvusStore({path!r}).close()\n    print('opened')\n"
        "except StoreUnavailable as e:\n    print(e.message)\n"
    )

    def other_process() -> str:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        ).stdout

    first, second = MilvusStore(path), MilvusStore(path)
    try:
        second.create_collection("kb", DIM, "L2")
        first.close()  # the other store on the path keeps the server
        second.upsert("kb", records(unit(np.random.default_rng(1), 3)))
        assert second.count("kb") == 3
        assert "PLANRAG_MILVUS__URI" in other_process()
    finally:
        first.close()
        second.close()
    assert other_process().strip() == "opened"


def test_an_unreachable_server_fails_clearly_after_the_deadline() -> None:
    import socket

    from planrag.core.errors import StoreUnavailable

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(StoreUnavailable, match="PLANRAG_MILVUS__URI|cannot open Milvus"):
        MilvusStore(f"http://127.0.0.1:{port}", connect_timeout_s=1.0)
