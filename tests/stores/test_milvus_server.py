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
