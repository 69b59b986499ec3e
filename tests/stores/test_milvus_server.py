"""The vector-store conformance suite against a Milvus server reached by URI — Milvus Lite's own
gRPC server here, the same client and code path as a Milvus standalone or cluster."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from pymilvus import MilvusClient

from planrag.stores.milvus import MilvusStore
from planrag.testing.vector_store import VectorStoreConformance
from tests.milvus_server import milvus_server  # noqa: F401  (session fixture)


def _drop_everything(uri: str) -> None:
    """The server is shared by the session: each test starts from an empty server."""
    client = MilvusClient(uri=uri)
    try:
        for name in client.list_collections():
            client.drop_collection(name)
    finally:
        client.close()


class TestMilvusServerStore(VectorStoreConformance):
    @pytest.fixture
    def store(self, milvus_server: str) -> Iterator[MilvusStore]:  # noqa: F811
        _drop_everything(milvus_server)
        milvus = MilvusStore(milvus_server)
        yield milvus
        milvus.close()

    @pytest.fixture
    def settle(self, milvus_server: str) -> Iterator[Callable[[MilvusStore], MilvusStore]]:  # noqa: F811
        """Another client of the same server (as another API process would connect)."""
        reopened: list[MilvusStore] = []

        def reconnect(store: MilvusStore) -> MilvusStore:
            reopened.append(MilvusStore(milvus_server))
            return reopened[-1]

        yield reconnect
        for store in reopened:
            store.close()


def test_our_keepalive_options_reach_the_connection(milvus_server: str) -> None:  # noqa: F811
    """pymilvus pings every 10 s even when idle, and Milvus Lite's server answers with GOAWAY
    too_many_pings: the store's channel carries our keepalive options instead — even when
    another client (made with pymilvus's defaults) is already connected to the same address."""
    plain = MilvusClient(uri=milvus_server)
    store = MilvusStore(milvus_server, keepalive_s=120)
    try:
        options = store._client._handler._grpc_options
        assert options["grpc.keepalive_time_ms"] == 120_000
        assert options["grpc.keepalive_permit_without_calls"] == 0
        assert store._client._handler is not plain._handler  # its own connection
        assert not store.has_collection("nothing-here")  # and it works
    finally:
        store.close()
        plain.close()


def test_concurrent_searches_share_one_call_through_a_server_uri(milvus_server: str) -> None:  # noqa: F811
    """The search batcher over a Milvus server reached by URI, as over Milvus Lite's data dir."""
    import numpy as np

    from planrag.stores.search_batching import BatchingVectorStore
    from planrag.testing.vector_store import DIM, assert_same_hits, records, unit
    from tests.stores.test_search_batching import LONG, SpyMilvusStore, at_once

    _drop_everything(milvus_server)
    store = SpyMilvusStore(milvus_server)
    try:
        vectors = unit(np.random.default_rng(8), 20)
        store.create_collection("kb", DIM, "L2")
        store.upsert("kb", records(vectors))
        batching = BatchingVectorStore(store, window_s=LONG, max_batch=8)
        found = at_once(
            [lambda i=i: batching.search("kb", vectors[i].tolist(), 3) for i in range(8)]
        )
        assert store.batches == [8]
        for i, hits in enumerate(found):
            assert_same_hits(hits, store.search("kb", vectors[i].tolist(), 3))  # type: ignore[arg-type]
    finally:
        store.close()
