"""Metadata DB: migrations up/down/up and the store's behaviour, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from planrag.core.errors import DocumentNotFound, KnowledgeBaseExists, KnowledgeBaseNotFound
from planrag.core.types import Chunk, ChunkKind, DocumentMetadata, DocumentStatus, KnowledgeBase
from planrag.stores import migrations
from planrag.stores.metadata import MetadataStore, make_engine
from tests.pg import sqlalchemy_url

TABLES = {"knowledge_bases", "documents", "chunks"}


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'meta.db'}"
    return sqlalchemy_url(request.getfixturevalue("pg_database"))


@pytest.fixture
def store(db_url: str) -> Iterator[MetadataStore]:
    engine = make_engine(db_url)
    migrations.upgrade(engine)
    yield MetadataStore(engine)
    engine.dispose()


def new_kb(name: str = "kb") -> KnowledgeBase:
    now = datetime.now(UTC)
    return KnowledgeBase(
        id=f"id-{name}",
        name=name,
        embedding_model="m",
        embedding_dim=4,
        created_at=now,
        updated_at=now,
    )


def test_migrations_upgrade_downgrade_upgrade(db_url: str) -> None:
    engine = make_engine(db_url)
    migrations.upgrade(engine)
    assert set(inspect(engine).get_table_names()) >= TABLES
    migrations.downgrade(engine, "base")
    assert not TABLES & set(inspect(engine).get_table_names())
    migrations.upgrade(engine)
    assert set(inspect(engine).get_table_names()) >= TABLES
    migrations.upgrade(engine)  # already at head: a no-op
    engine.dispose()


def _insert(conn, table: str, values: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    columns = {c["name"] for c in inspect(conn).get_columns(table)}
    row = {k: v for k, v in values.items() if k in columns}
    conn.execute(
        text(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join(':' + k for k in row)})"),
        row,
    )


@pytest.mark.parametrize("start", ["0001", "0002", "0003", "0004_queue", "0006_graph"])
def test_upgrading_keeps_every_document_and_chunk(tmp_path: Path, start: str) -> None:
    """SQLite batch migrations copy a table and drop the original: with foreign keys on, that
    DROP cascaded into every document and chunk (0003 and 0007 alter knowledge_bases)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    migrations.upgrade(engine, start)
    stamp = datetime(2024, 1, 1)
    with engine.begin() as conn:
        _insert(
            conn,
            "knowledge_bases",
            {
                "id": "k",
                "name": "n",
                "description": "",
                "top_k": 5,
                "score_threshold": 0.0,
                "metric": "COSINE",
                "chunking": "{}",
                "embedding_model": "m",
                "embedding_dim": 4,
                "graph_backend": "none",
                "user_words": "[]",
                "vector_store": "milvus",
                "created_at": stamp,
                "updated_at": stamp,
            },
        )
        _insert(
            conn,
            "documents",
            {
                "id": "d",
                "kb_id": "k",
                "filename": "f",
                "file_type": "txt",
                "status": "completed",
                "size": 1,
                "content_hash": "h",
                "chunk_count": 1,
                "tags": "[]",
                "created_at": stamp,
                "updated_at": stamp,
            },
        )
        _insert(
            conn,
            "chunks",
            {
                "id": "c",
                "doc_id": "d",
                "position": 0,
                "text": "t",
                "kind": "chunk",
                "start": 0,
                "end": 1,
            },
        )
    migrations.upgrade(engine)
    store = MetadataStore(engine)
    assert [c.id for c in store.list_chunks("d")] == ["c"]
    assert store.get_kb("k").vector_generation == 0
    with engine.connect() as conn:  # foreign keys are back on for the app
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_migration_matches_the_orm_models(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from planrag.stores.tables import Base

    engine = make_engine(db_url)
    migrations.upgrade(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert diff == []


def test_kb_names_are_unique(store: MetadataStore) -> None:
    store.create_kb(new_kb("a"))
    with pytest.raises(KnowledgeBaseExists):
        store.create_kb(new_kb("a").model_copy(update={"id": "other"}))


def test_timestamps_come_back_timezone_aware(store: MetadataStore) -> None:
    kb = store.create_kb(new_kb())
    assert kb.created_at.tzinfo is not None


def test_add_document_is_idempotent_per_kb_and_hash(store: MetadataStore) -> None:
    store.create_kb(new_kb("a"))
    store.create_kb(new_kb("b"))
    meta = DocumentMetadata(author="kim", date="20240102", tags=["x"])
    first, created = store.add_document("id-a", "f.txt", "txt", 10, "h1", meta)
    again, created_again = store.add_document("id-a", "g.txt", "txt", 10, "h1", meta)
    other_kb, created_other = store.add_document("id-b", "f.txt", "txt", 10, "h1", meta)
    assert created and not created_again and created_other
    assert again.id == first.id != other_kb.id
    assert first.metadata.date == "2024-01-02" and first.metadata.date_int() == 20240102
    assert first.status == DocumentStatus.pending


def test_chunks_cascade_with_documents_and_kbs(store: MetadataStore) -> None:
    store.create_kb(new_kb())
    doc, _ = store.add_document("id-kb", "f.txt", "txt", 10, "h", DocumentMetadata())
    chunks = [
        Chunk(id=f"{doc.id}:0", doc_id=doc.id, position=0, text="p", kind=ChunkKind.parent),
        Chunk(
            id=f"{doc.id}:1",
            doc_id=doc.id,
            position=1,
            text="c",
            kind=ChunkKind.child,
            parent_id=f"{doc.id}:0",
        ),
    ]
    store.replace_chunks(doc.id, chunks)
    assert store.list_chunks(doc.id) == chunks
    assert store.list_chunks(doc.id, [ChunkKind.child]) == chunks[1:]
    store.replace_chunks(doc.id, chunks[:1])
    assert len(store.list_chunks(doc.id)) == 1
    store.set_status(doc.id, DocumentStatus.completed, chunk_count=1)
    assert store.kb_stats(["id-kb"])["id-kb"].chunk_count == 1
    store.delete_kb("id-kb")
    with pytest.raises(KnowledgeBaseNotFound):
        store.get_kb("id-kb")
    with pytest.raises(DocumentNotFound):
        store.get_document(doc.id)
    assert store.get_chunks([f"{doc.id}:0"]) == {}


def test_the_vector_store_is_kept(store: MetadataStore) -> None:
    assert store.create_kb(new_kb("m")).vector_store == "milvus"
    kb = store.create_kb(new_kb("p").model_copy(update={"vector_store": "pgvector"}))
    assert store.get_kb(kb.id).vector_store == "pgvector"
