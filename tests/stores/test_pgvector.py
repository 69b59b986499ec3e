"""PostgreSQL + pgvector runs the conformance suite unchanged."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planrag.stores.pgvector import PgVectorStore
from planrag.testing.vector_store import VectorStoreConformance


class TestPgVectorStore(VectorStoreConformance):
    @pytest.fixture
    def store(self, pg_database: str) -> Iterator[PgVectorStore]:
        pgvector = PgVectorStore(pg_database)
        yield pgvector
        pgvector.close()
