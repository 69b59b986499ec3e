"""Rerank backends: local cross-encoder (random weights from the real config), a real HTTP
rerank service (TEI and Jina shapes, retries), the LLM reranker on a scripted LLM server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planrag.core.errors import ModelUnavailable
from planrag.core.settings import LLMSettings, RerankSettings
from planrag.llm.chat import ChatClient
from planrag.llm.rerankers import CrossEncoderReranker, HttpReranker, LLMReranker, RerankerRegistry
from tests.llm.fake_llm import Reply, Script, serve_llm
from tests.llm.rerank_models import build_random_cross_encoder, serve_rerank

PASSAGES = ["The cat sat on the mat.", "Stocks fell on Monday.", "고양이가 매트 위에 있다."]


@pytest.fixture(scope="session")
def cross_encoder_dir(tmp_path_factory) -> Path:
    return build_random_cross_encoder(tmp_path_factory.mktemp("ce") / "model")


@pytest.fixture(scope="session")
def cross_encoder(cross_encoder_dir: Path) -> CrossEncoderReranker:
    return CrossEncoderReranker(str(cross_encoder_dir))


def test_local_cross_encoder_loads_by_path_and_scores_in_unit_interval(cross_encoder) -> None:
    scores = cross_encoder.score("where is the cat?", PASSAGES)
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert cross_encoder.score("where is the cat?", PASSAGES) == scores  # deterministic
    assert cross_encoder.score("q", []) == []


def test_hub_name_offline_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailable) as info:
        RerankerRegistry(RerankSettings(), LLMSettings()).get()
    assert info.value.details["setting"] == "PLANRAG_RERANK__MODEL"


UNAVAILABLE_PROBE = """
import json, sys
from planrag.core.settings import LLMSettings, RerankSettings
from planrag.llm.rerankers import RerankerRegistry
registry = RerankerRegistry(RerankSettings(model=sys.argv[1]), LLMSettings())
problem = registry.unavailable()
print(json.dumps({"problem": problem and problem.message,
                  "stack": sorted(m for m in ("torch", "sentence_transformers", "transformers")
                                  if m in sys.modules)}))
"""


@pytest.mark.parametrize("model", ["config-only", "some-org/not-cached-reranker"])
def test_an_unloadable_reranker_is_known_without_loading_the_model_stack(
    tmp_path: Path, model: str
) -> None:
    """2-stage's first call without a reranker costs what its first stage costs: that no
    reranker can load (a directory without weights, a hub name offline) is decided before
    torch or transformers are imported."""
    if model == "config-only":
        directory = tmp_path / "model"
        directory.mkdir()
        (directory / "config.json").write_text(
            '{"architectures": ["BertForSequenceClassification"]}'
        )
        (directory / "tokenizer_config.json").write_text("{}")
        model = str(directory)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    result = subprocess.run(
        [sys.executable, "-c", UNAVAILABLE_PROBE, model],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(result.stdout.splitlines()[-1])
    assert "PLANRAG_RERANK__MODEL" in report["problem"]
    assert report["stack"] == []


@pytest.mark.parametrize("api_format", ["tei", "jina"])
def test_http_rerank_service(cross_encoder, api_format: str) -> None:
    with serve_rerank(cross_encoder) as (url, seen):
        remote = HttpReranker(RerankSettings(backend="http", url=url, api_format=api_format))
        scores = remote.score("where is the cat?", PASSAGES)
    assert scores == pytest.approx(cross_encoder.score("where is the cat?", PASSAGES), abs=1e-6)
    key = "documents" if api_format == "jina" else "texts"
    assert seen[0][key] == PASSAGES


def test_http_rerank_retries_then_succeeds(cross_encoder) -> None:
    with serve_rerank(cross_encoder, fail_first=2) as (url, seen):
        remote = HttpReranker(RerankSettings(backend="http", url=url, retries=2))
        assert len(remote.score("q", PASSAGES)) == 3
    assert len(seen) == 3


def test_http_rerank_gives_up_with_the_setting_to_change(cross_encoder) -> None:
    with serve_rerank(cross_encoder, fail_first=10) as (url, seen):
        remote = HttpReranker(RerankSettings(backend="http", url=url, retries=1))
        with pytest.raises(ModelUnavailable) as info:
            remote.score("q", PASSAGES)
    assert len(seen) == 2
    assert info.value.details["setting"] == "PLANRAG_RERANK__URL"
    unreachable = HttpReranker(RerankSettings(backend="http", url="http://127.0.0.1:9", retries=0))
    with pytest.raises(ModelUnavailable):
        unreachable.score("q", PASSAGES)


def test_llm_reranker_on_a_scripted_llm() -> None:
    script = Script([Reply('Sure: {"scores": [9, 1, 7.5]}'), Reply("no idea"), Reply(status=500)])
    with serve_llm(script) as base_url:
        llm = LLMSettings(base_url=base_url, model="test-model")
        reranker = LLMReranker(ChatClient(llm), timeout_s=5)
        assert reranker.score("where is the cat?", PASSAGES) == [0.9, 0.1, 0.75]
        with pytest.raises(ModelUnavailable):
            reranker.score("q", PASSAGES)  # unparseable answer
        with pytest.raises(ModelUnavailable):
            reranker.score("q", PASSAGES)  # server error (after the client's retry)
    assert "where is the cat?" in script.requests[0]["messages"][0]["content"]


def test_llm_reranker_needs_a_configured_llm() -> None:
    with pytest.raises(ModelUnavailable) as info:
        LLMReranker(ChatClient(LLMSettings()), timeout_s=5)
    assert info.value.details["setting"] == "PLANRAG_LLM__BASE_URL"


def test_an_unreachable_hub_fails_at_once_and_the_failure_is_remembered(monkeypatch) -> None:
    """Not offline by configuration, but the hub does not answer (a closed port): the error
    comes from a short probe, and later calls do not try again until the settings change."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    registry = RerankerRegistry(RerankSettings(model="someone/not-cached-reranker"), LLMSettings())
    created = []
    real_create = registry._create

    def counting_create(backend: str):  # type: ignore[no-untyped-def]
        created.append(backend)
        return real_create(backend)

    monkeypatch.setattr(registry, "_create", counting_create)
    with pytest.raises(ModelUnavailable) as first:
        registry.get()
    assert "http://127.0.0.1:9 does not answer" in first.value.message
    assert first.value.details["setting"] == "PLANRAG_RERANK__MODEL"
    with pytest.raises(ModelUnavailable) as again:
        registry.get()
    assert again.value.message == first.value.message
    assert registry.unavailable() is not None
    assert created == ["cross-encoder"]  # tried once
    fresh = RerankerRegistry(RerankSettings(model="someone/not-cached-reranker"), LLMSettings())
    with pytest.raises(ModelUnavailable):
        fresh.get()  # new settings, a new attempt
