"""Cross-lingual retrieval on our own fixture corpus: English questions over the Korean documents
of tests/fixtures/ko_company and Korean questions over its English ones (crosslingual.jsonl).

    python -m bench.crosslingual [--dense 0.5 0.8 1.0] [--out FILE.json]

Ingests the corpus once with e5 (the default model) and asks every question with ann, bm25 and
hybrid (sequential); a question is found when a passage of its document holding the answer is in
the top 1 / top 3. `--dense` also replays hybrid with the cross-script dense weight forced to each
value (the product's choice is `fusion.CROSS_SCRIPT_DENSE`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.datasets import RESULTS  # noqa: E402
from planrag.core.settings import E5_MODEL, EmbeddingSettings, IngestSettings, Settings  # noqa: E402
from planrag.core.types import DocumentMetadata  # noqa: E402
from planrag.executors import fusion, hybrid  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.ingestion import UploadItem  # noqa: E402
from planrag.services.knowledge_bases import KnowledgeBaseCreate  # noqa: E402
from planrag.services.retrieval import RetrieveRequest  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ko_company"


def questions() -> list[dict[str, str]]:
    lines = (CORPUS / "crosslingual.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def ingest(runtime: Runtime) -> tuple[str, dict[str, str]]:
    """The fixture corpus in a new KB; returns its id and document id → file name."""
    kb = runtime.knowledge_bases.create(
        KnowledgeBaseCreate(name="ko-company", embedding_model=E5_MODEL)
    )
    files = sorted(p for p in CORPUS.glob("*.md") if p.name != "README.md")
    names: dict[str, str] = {}
    for path in files:
        doc = runtime.ingestion.upload(
            kb.id,
            [UploadItem(filename=path.name, data=path.read_bytes())],
            DocumentMetadata(),
            background=False,
        )[0]
        names[doc.id] = path.name
    runtime.ingestion.index_many(list(names))
    runtime.calibrator.refresh(kb.id, force=True)
    return kb.id, names


def found(
    runtime: Runtime, kb_id: str, names: dict[str, str], q: dict[str, str], strategy: str
) -> int:
    """Rank (1-based) of the first hit of the question's document holding its answer, else 0."""
    request = RetrieveRequest(query=q["question"], strategy=strategy, top_k=5, score_threshold=0.0)  # type: ignore[arg-type]
    for rank, hit in enumerate(runtime.retrieval.retrieve(kb_id, request), start=1):
        if names.get(hit.doc_id) == q["doc"] and q["answer"] in hit.content:
            return rank
    return 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dense", nargs="*", type=float, default=[])
    parser.add_argument("--out", type=Path, default=RESULTS / "crosslingual.json")
    args = parser.parse_args()
    qs = questions()
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            data_dir=Path(tmp),
            embedding=EmbeddingSettings(model=E5_MODEL, threads=1),
            ingest=IngestSettings(embed_process=False),
        )
        runtime = Runtime.open(settings)
        try:
            kb_id, names = ingest(runtime)
            print(
                "calibration", runtime.metadata.get_kb(kb_id).model_dump(mode="json")["calibration"]
            )
            runs: list[tuple[str, str, float | None]] = [
                ("ann", "ann", None),
                ("bm25", "bm25", None),
                ("hybrid", "hybrid", None),
            ]
            runs += [(f"hybrid, cross-script dense {w}", "hybrid", w) for w in args.dense]
            runs += [("hybrid, other-script passages imputed", "hybrid", -1.0)]
            default, imputing = fusion.CROSS_SCRIPT_DENSE, hybrid.CROSS_SCRIPT_IMPUTE
            for label, strategy, weight in runs:
                hybrid.CROSS_SCRIPT_IMPUTE = imputing if weight != -1.0 else True
                fusion.CROSS_SCRIPT_DENSE = default if weight in (None, -1.0) else weight
                ranks = {q["id"]: found(runtime, kb_id, names, q, strategy) for q in qs}
                rows[label] = summary(qs, ranks) | {"ranks": ranks}  # type: ignore[assignment,dict-item]
                print(label, json.dumps(rows[label]), flush=True)
                missed = [i for i, r in ranks.items() if not 0 < r <= 3]
                print("  not in top 3:", missed, flush=True)
            fusion.CROSS_SCRIPT_DENSE, hybrid.CROSS_SCRIPT_IMPUTE = default, imputing
            rows["ask (no LLM)"] = asked(runtime, qs)  # type: ignore[assignment]
            print("ask", json.dumps(rows["ask (no LLM)"]), flush=True)
        finally:
            runtime.close()
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1))
    print(table(rows, qs))


def asked(runtime: Runtime, qs: list[dict[str, str]]) -> dict[str, object]:
    """Every question through the ask path as a user meets it (planner rules, no LLM: the
    extractive answer): answered when the answer cites a passage of the question's document
    holding its answer; `vetoed` counts answers of "nothing found" although the search's
    passages held it (the evidence check refusing a cross-lingual hit)."""
    from planrag.services.ask_requests import AskRequest

    readable = [runtime.metadata.get_kb_by_name("ko-company")]
    answered: dict[str, bool] = {}
    vetoed: list[str] = []
    for q in qs:
        request = AskRequest(question=q["question"], knowledge_bases=["ko-company"])
        outcome = runtime.ask.run(request, readable)
        held = [p for p in outcome.passages if q["answer"] in p.content]
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", outcome.answer)}
        answered[q["id"]] = any(p.n in cited for p in held)
        if held and outcome.answer_source not in ("extractive", "llm"):
            vetoed.append(q["id"])
    out: dict[str, object] = {}
    for lang in ("en", "ko"):
        mine = [answered[q["id"]] for q in qs if q["lang"] == lang]
        out[f"{lang} answered"] = sum(mine) / len(mine)
    return out | {"vetoed": vetoed, "not answered": [i for i, a in answered.items() if not a]}


def summary(qs: list[dict[str, str]], ranks: dict[str, int]) -> dict[str, float]:
    out: dict[str, float] = {}
    for lang in ("en", "ko"):
        mine = [ranks[q["id"]] for q in qs if q["lang"] == lang]
        out[f"{lang} top1"] = sum(1 for r in mine if r == 1) / len(mine)
        out[f"{lang} top3"] = sum(1 for r in mine if 0 < r <= 3) / len(mine)
    return out  # type: ignore[return-value]


def table(rows: dict[str, dict[str, float]], qs: list[dict[str, str]]) -> str:
    en = sum(1 for q in qs if q["lang"] == "en")
    ko = len(qs) - en
    lines = [
        f"| strategy | en→ko top 1 ({en} q) | en→ko top 3 | ko→en top 1 ({ko} q) | ko→en top 3 |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label, r in rows.items():
        if "en top1" not in r:
            continue
        lines.append(
            f"| {label} | {r['en top1']:.2f} | {r['en top3']:.2f} | {r['ko top1']:.2f} | "
            f"{r['ko top3']:.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
