"""The eval command: metrics agree with pytrec_eval (the trec_eval reference), and
`planrag eval … --json` prints exactly the documented keys."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval

from planrag.services.metrics import mrr_at, ndcg_at, percentile, recall_at
from tests.cli.invoke import planrag


def random_case(rng: random.Random) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    docs = [f"d{i}" for i in range(40)]
    qrels, runs = {}, {}
    for q in range(30):
        judged = rng.sample(docs, rng.randint(1, 8))
        qrels[f"q{q}"] = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
        runs[f"q{q}"] = rng.sample(docs, rng.randint(0, 25))
    return qrels, runs


@pytest.mark.parametrize("seed", range(5))
def test_metrics_agree_with_pytrec_eval(seed: int) -> None:
    qrels, rankings = random_case(random.Random(seed))
    run = {q: {d: float(100 - i) for i, d in enumerate(r)} for q, r in rankings.items()}
    top10 = {q: {d: float(100 - i) for i, d in enumerate(r[:10])} for q, r in rankings.items()}
    measures = {"ndcg_cut_10", "recall_5", "recall_10"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    reference_rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    for q, ranking in rankings.items():
        if not any(rel > 0 for rel in qrels[q].values()):
            continue  # trec_eval leaves queries without relevant documents out
        expected = reference.get(q, {"ndcg_cut_10": 0.0, "recall_5": 0.0, "recall_10": 0.0})
        assert ndcg_at(ranking, qrels[q], 10) == pytest.approx(expected["ndcg_cut_10"], abs=1e-4)
        assert recall_at(ranking, qrels[q], 5) == pytest.approx(expected["recall_5"], abs=1e-4)
        assert recall_at(ranking, qrels[q], 10) == pytest.approx(expected["recall_10"], abs=1e-4)
        rr = reference_rr.get(q, {"recip_rank": 0.0})["recip_rank"]
        assert mrr_at(ranking, qrels[q], 10) == pytest.approx(rr, abs=1e-4)


def test_percentile_matches_numpy() -> None:
    import numpy as np

    values = [random.Random(1).random() * 100 for _ in range(101)]
    for q in (50, 95, 99):
        assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


@pytest.mark.slow
def test_eval_command_prints_exactly_the_documented_keys(tmp_path: Path) -> None:
    topics = {
        "a": ("Volcanoes", "Volcanic eruptions release ash and sulfur dioxide."),
        "b": ("Bicycles", "서울시 공공자전거 따릉이 요금이 인상된다."),
        "c": ("Museums", "The museum is closed on Mondays."),
        "d": ("Revenue", "Quarterly revenue grew thanks to cloud sales."),
    }
    dataset = {
        "corpus": {k: {"title": t, "text": x} for k, (t, x) in topics.items()},
        "queries": {"q1": "volcanic ash", "q2": "따릉이 요금", "q3": "museum Mondays", "q4": "?"},
        "qrels": {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 2}},
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(dataset, ensure_ascii=False))
    # in this process, through the entry point (the pgvector test below runs it as a child)
    out = planrag(tmp_path / "unused", "eval", str(path), "--strategy", "bm25", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report) == {
        "ndcg@10",
        "recall@5",
        "recall@10",
        "all_recall@10",
        "mrr@10",
        "latency_ms",
        "queries",
        "ingest_s",
    }
    assert set(report["latency_ms"]) == {"p50", "p95"}
    assert report["queries"] == 3  # q4 has no judgements
    assert report["ndcg@10"] == report["mrr@10"] == report["recall@5"] == 1.0
    assert not (tmp_path / "unused").exists()  # a throw-away KB in a temporary data dir


@pytest.fixture
def tiny_dataset() -> dict:
    topics = {
        "a": ("Volcanoes", "Volcanic eruptions release ash and sulfur dioxide."),
        "b": ("Bicycles", "Public bicycles in Seoul will cost more from next year."),
        "c": ("Museums", "The museum is closed on Mondays."),
        "d": ("Revenue", "Quarterly revenue grew thanks to cloud sales."),
    }
    return {
        "corpus": {k: {"title": t, "text": x} for k, (t, x) in topics.items()},
        "queries": {"q1": "volcanic ash", "q2": "bike prices", "q3": "museum opening days"},
        "qrels": {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}},
    }


@pytest.mark.slow
def test_eval_command_on_pgvector_starts_and_stops_its_own_postgres(
    tmp_path: Path, tiny_dataset: dict
) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(tiny_dataset))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PLANRAG_")},
        "HF_HUB_OFFLINE": "1",
        "PLANRAG_DATA_DIR": str(tmp_path / "unused"),
    }
    command = [sys.executable, "-m", "planrag.cli.main", "eval", str(path), "--json"]
    options = ["--strategy", "ann", "--store", "pgvector", "--title-weight", "0.3"]
    out = subprocess.run(command + options, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["queries"] == 3 and report["ndcg@10"] == 1.0


def test_both_stores_score_the_same(
    tmp_path: Path, pg_database: str, embedders, tiny_dataset: dict
) -> None:
    from planrag.core.settings import PgSettings, Settings
    from planrag.runtime import Runtime
    from planrag.services.evaluation import BeirDataset, EvalSession

    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", pg=PgSettings(url=pg_database)
    )
    dataset = BeirDataset.model_validate(tiny_dataset)
    runtime = Runtime.open(settings, embedders)
    try:
        reports = {}
        for store in ("milvus", "pgvector"):
            with EvalSession(runtime, dataset, {"vector_store": store}) as session:
                reports[store] = [
                    session.run("ann").ndcg_at_10,
                    session.run("hybrid").ndcg_at_10,
                    session.run("ann", weights={"chunk": 0.5, "title": 0.5}).ndcg_at_10,
                ]
    finally:
        runtime.close()
    assert reports["milvus"] == reports["pgvector"]
