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
