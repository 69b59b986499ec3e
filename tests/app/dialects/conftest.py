"""Fixtures of the API-dialect tests: an app whose reranker is a real (random-weight)
cross-encoder, in-process or on a real uvicorn port, and the spec 000 example document."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import RerankSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.llm.rerank_models import build_random_cross_encoder

NEWS: dict[str, Any] = {
    "domain": "news",
    "title": "메타버스 뉴스",
    "author": "삼성전자",
    "text": "메타버스는 비대면 시대 뜨거운 화두로 떠올랐다. 특히 코로나19 이후 메타버스 시장이 "
    "급성장하고 있다.",
    "info": {"press_num": "비즈니스 워치", "url": "http://example.com/news/1"},
    "tags": {"date": "20240315", "user": "admin"},
}


def news(**changes: Any) -> dict[str, Any]:
    """The spec's example document with some fields changed."""
    return {**NEWS, **changes}


def wait_indexed(client: TestClient) -> None:
    client.app.state.runtime.ingestion.wait(timeout=120)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def rerank_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_random_cross_encoder(tmp_path_factory.mktemp("cross-encoder") / "model")


def settings_with_reranker(data_dir: Path, model_dir: Path, **changes: Any) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=data_dir,
        rerank=RerankSettings(model=str(model_dir)),
        **changes,
    )


@pytest.fixture
def rerank_client(
    tmp_path: Path, rerank_model_dir: Path, embedders: EmbedderRegistry
) -> Iterator[TestClient]:
    """An app like `client`'s whose configured reranker loads."""
    settings = settings_with_reranker(tmp_path / "data", rerank_model_dir)
    with TestClient(create_app(settings, embedders)) as test_client:
        yield test_client
