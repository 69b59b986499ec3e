"""A fast CLI start: `planrag --help` and `planrag kb list` import none of the heavy modules
(stores, models, SQLAlchemy, the HTTP client), checked in a fresh process with a probe of
`sys.modules`; and `kb list`'s `sqlite3` reading gives exactly what the metadata store gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import JSON, DateTime, text

from planrag.core.types import DocumentMetadata, DocumentStatus, KnowledgeBase
from planrag.stores import migrations
from planrag.stores.metadata import MetadataStore, make_engine
from planrag.stores.sqlite_listing import (
    JSON_COLUMNS,
    TIME_COLUMNS,
    list_knowledge_bases,
    sqlite_path,
)
from planrag.stores.tables import KnowledgeBaseRow

HEAVY = (
    "sqlalchemy", "alembic", "pymilvus", "milvus_lite", "torch", "sentence_transformers",
    "transformers", "kiwipiepy", "numpy", "bm25s", "httpx", "fastapi", "planrag.runtime",
)  # fmt: skip
PROBE = """
import atexit, json, sys
heavy = {heavy!r}
atexit.register(lambda: print("LOADED " + json.dumps([m for m in heavy if m in sys.modules]),
                              file=sys.stderr))
sys.argv = ["planrag", *{args!r}]
from planrag.cli.main import main
main()
"""


def run_probed(data_dir: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the CLI in a fresh interpreter; returns the result and the heavy modules it loaded."""
    env = {**os.environ, "PLANRAG_DATA_DIR": str(data_dir)}
    env.pop("PLANRAG_SERVER_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY, args=list(args))],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    loaded = [line for line in result.stderr.splitlines() if line.startswith("LOADED ")]
    assert loaded, result.stderr
    return result, json.loads(loaded[-1].removeprefix("LOADED "))


def new_kb(name: str) -> KnowledgeBase:
    now = datetime.now(UTC)
    return KnowledgeBase(
        id=f"id-{name}", name=name, embedding_model="m", embedding_dim=4, created_at=now,
        updated_at=now,
    )  # fmt: skip


def filled_store(url: str) -> MetadataStore:
    """Three KBs, one with every optional column set, two with documents."""
    engine = make_engine(url)
    migrations.upgrade(engine)
    store = MetadataStore(engine)
    for name in ("규정", "news", "empty"):
        store.create_kb(new_kb(name))
    now = datetime.now(UTC).isoformat()
    store.update_kb(
        "id-규정",
        {
            "user_words": ["연차휴가"],
            "per_user": True,
            "description": "사내 규정",
            "calibration": {"scripts": {}, "chunk_count": 3, "calibrated_at": now},
            "reindex": {"status": "running", "embedding_model": "e5", "previous_model": "m",
                        "generation": 2, "started_at": now},
        },
    )  # fmt: skip
    for i, (kb, size) in enumerate([("id-규정", 10), ("id-규정", 32), ("id-news", 5)]):
        doc, _ = store.add_document(kb, f"f{i}.txt", "txt", size, f"hash{i}", DocumentMetadata())
        store.set_status(doc.id, DocumentStatus.completed, chunk_count=i + 1)
    return store


def test_the_sqlite_listing_is_the_metadata_stores(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'planrag.db'}"
    store = filled_store(url)
    kbs = store.list_kbs()
    expected = [(kb, store.kb_stats([kb.id])[kb.id]) for kb in kbs]
    store.engine.dispose()
    listed = list_knowledge_bases(url)
    assert listed == expected
    assert [kb.name for kb, _ in listed] == ["규정", "news", "empty"]
    assert [s.document_count for _, s in listed] == [2, 1, 0]
    assert listed[0][1].size_bytes == 42 and listed[0][0].reindex is not None


def test_the_decoded_columns_are_the_tables() -> None:
    columns = KnowledgeBaseRow.__table__.columns
    assert {c.name for c in columns if isinstance(c.type, JSON)} == JSON_COLUMNS
    assert {c.name for c in columns if isinstance(c.type, DateTime)} == TIME_COLUMNS


def test_the_listing_steps_aside_when_it_cannot_answer(tmp_path: Path) -> None:
    assert list_knowledge_bases(f"sqlite:///{tmp_path / 'missing.db'}") is None
    assert sqlite_path("postgresql+psycopg://u@h/db") is None
    assert sqlite_path("sqlite:///:memory:") is None
    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = filled_store(url)
    with store.engine.begin() as connection:  # a DB behind the migrations: upgrade first
        connection.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    store.engine.dispose()
    assert list_knowledge_bases(url) is None


def test_help_and_kb_list_load_no_heavy_module(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    _, loaded = run_probed(data, "--help")
    assert loaded == []
    empty, loaded = run_probed(data, "kb", "list", "--json")  # no DB yet: created, as before
    assert empty.returncode == 0 and json.loads(empty.stdout) == [], empty.stderr
    assert (data / "planrag.db").is_file()
    filled_store(f"sqlite:///{data / 'planrag.db'}").engine.dispose()
    listed, loaded = run_probed(data, "kb", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert loaded == []
    assert [(k["name"], k["stats"]["document_count"]) for k in json.loads(listed.stdout)] == [
        ("규정", 2), ("news", 1), ("empty", 0),
    ]  # fmt: skip
    table, loaded = run_probed(data, "kb", "list")
    assert table.returncode == 0 and "id-news" in table.stdout and loaded == []


def test_keys_and_users_open_only_the_metadata_db(tmp_path: Path) -> None:
    """`planrag keys|users` without a server open the metadata DB alone: no runtime, no
    vector store client, no models (they ran a whole runtime's imports before)."""
    data = tmp_path / "data"
    data.mkdir()
    created, loaded = run_probed(data, "keys", "create", "reporting", "--kb", "news")
    assert created.returncode == 0, created.stderr
    assert created.stdout.strip().startswith("prk_")
    listed, loaded = run_probed(data, "keys", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [k["name"] for k in json.loads(listed.stdout)] == ["reporting"]
    heavy_for_keys = {"pymilvus", "milvus_lite", "torch", "kiwipiepy", "bm25s", "planrag.runtime"}
    assert heavy_for_keys.isdisjoint(loaded), loaded
