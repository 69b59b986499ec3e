"""A knowledge base on PostgreSQL + pgvector over HTTP: create, upload, retrieve (with filters and
title weighting), delete — next to a Milvus KB in the same server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect

from planrag.app.main import create_app
from planrag.core.settings import PgSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents

SAME_TEXT = (
    "Customers may send items back within 30 days. Contact the support desk for help with "
    "orders, receipts and any questions about the process."
)


@pytest.fixture
def settings(tmp_path: Path, pg_database: str) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data", pg=PgSettings(url=pg_database))  # type: ignore[call-arg]


def retrieve(client: TestClient, kb_id: str, **body: object) -> list[dict]:
    response = client.post(f"/api/knowledge-bases/{kb_id}/retrieve", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_pgvector_kb_end_to_end(client: TestClient, pg_database: str) -> None:
    kb = create_kb(client, "pg-docs", vector_store="pgvector")
    assert kb["vector_store"] == "pgvector"
    milvus_kb = create_kb(client, "milvus-docs")
    assert milvus_kb["vector_store"] == "milvus"

    assert upload(client, kb["id"], ("refund_policy.txt", SAME_TEXT.encode())).status_code == 202
    assert (
        upload(client, kb["id"], ("shipping_times.txt", SAME_TEXT.encode() + b" ")).status_code
        == 202
    )
    museum = "The national museum is closed on Mondays; admission is free for everyone."
    assert (
        upload(client, kb["id"], ("museum.txt", museum.encode()), author="kim").status_code == 202
    )
    upload(client, milvus_kb["id"], ("museum.txt", museum.encode()))
    docs = wait_for_documents(client, kb["id"])
    wait_for_documents(client, milvus_kb["id"])
    assert {d["status"] for d in docs} == {"completed"}

    hits = retrieve(client, kb["id"], query="When is the museum closed?", top_k=3)
    assert hits[0]["metadata"]["filename"] == "museum.txt"
    health = client.get("/api/v1/health").json()["components"]
    assert health["pgvector"] == {"status": "up", "detail": "PgVectorStore"}
    assert 0.0 <= hits[-1]["score"] <= hits[0]["score"] <= 1.0
    assert hits[0]["metadata"]["title_score"] is None  # no weights asked
    same_on_milvus = retrieve(client, milvus_kb["id"], query="When is the museum closed?", top_k=1)
    assert same_on_milvus[0]["score"] == pytest.approx(hits[0]["score"], abs=1e-4)

    only_kim = retrieve(client, kb["id"], query="refund", top_k=5, filters={"authors": ["kim"]})
    assert [h["metadata"]["filename"] for h in only_kim] == ["museum.txt"]

    # Same text, different titles: the title decides once it carries weight.
    for strategy in ("ann", "hybrid"):
        weighted = retrieve(
            client,
            kb["id"],
            query="refund policy",
            top_k=2,
            strategy=strategy,
            weights={"chunk": 0.5, "title": 0.5},
        )
        assert weighted[0]["metadata"]["filename"] == "refund_policy.txt", strategy
        assert weighted[0]["metadata"]["title_score"] > weighted[1]["metadata"]["title_score"]
    bad = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "x", "weights": {"chunk": 0.5, "title": 0.6}},
    )
    assert bad.status_code == 422

    museum_doc = next(d for d in docs if d["filename"] == "museum.txt")
    assert (
        client.delete(f"/api/knowledge-bases/{kb['id']}/documents/{museum_doc['id']}").status_code
        == 204
    )
    left = retrieve(client, kb["id"], query="When is the museum closed?", top_k=5)
    assert "museum.txt" not in {h["metadata"]["filename"] for h in left}

    assert client.delete(f"/api/knowledge-bases/{kb['id']}").status_code == 204
    with psycopg.connect(pg_database) as conn:
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables")}
        kept = conn.execute("SELECT count(*) FROM planrag_vector_collections").fetchone()
    assert not {t for t in tables if t.startswith("planrag_kb_")}
    assert kept == (0,)


def test_default_start_up_starts_no_postgres(tmp_path: Path, embedders: EmbedderRegistry) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    with TestClient(create_app(settings, embedders)) as client:
        create_kb(client, "plain")
        assert client.get("/api/knowledge-bases").status_code == 200
    assert not (tmp_path / "data" / "pg").exists()


@pytest.fixture
def pg_metadata_runtime(
    tmp_path: Path, pg_database: str, embedders: EmbedderRegistry
) -> Iterator[Runtime]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", pg=PgSettings(url=pg_database, metadata=True)
    )
    runtime = Runtime.open(settings, embedders)
    yield runtime
    runtime.close()


def test_metadata_db_on_postgresql(pg_metadata_runtime: Runtime) -> None:
    runtime = pg_metadata_runtime
    assert runtime.metadata.engine.dialect.name == "postgresql"
    assert "knowledge_bases" in inspect(runtime.metadata.engine).get_table_names()
    from planrag.services.knowledge_bases import KnowledgeBaseCreate

    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="all-pg", vector_store="pgvector"))
    assert runtime.knowledge_bases.get(kb.id).vector_store == "pgvector"
    assert runtime.vectors.has_collection(kb.id)
