"""Ingestion throughput end to end versus the embedding model alone, on the same chunk texts.

    python -m bench.ingest [--docs 40] [--doc-chars 3000] [--repeats 3] [--out PATH]

Per document (the path of the upload API and the CLI): `IngestionService.upload(...,
background=False)` then `.index(doc_id)`, on a `Runtime` over a temporary data dir (parse → clean
→ chunk → tokenise → embed → Milvus Lite + SQLite). Raw: `embedder.embed(texts)` on exactly the
chunk texts the pipeline embeds (checked against the stored chunks), in the calls the pipeline
makes (per document, EMBED_BATCH texts at most; the model batches by its batch_size inside).
Each document is timed end to end and raw back to back, the order alternating, so the machine's
speed drift hits both sides alike. Stage timers around the steps the pipeline calls give its
non-embedding time from the same pass.

Batched (where the product has `index_many`): all documents uploaded, then indexed in one call
(chunks of several documents share embedding batches), bracketed by raw embedding of all texts
in EMBED_BATCH slices. The BM25 rebuild the product defers to the next lexical query is timed
apart. Overhead % = end_to_end_time / raw_time − 1 (target ≤ 25 %).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import planrag.services.ingestion as ingestion_module
from bench import corpus
from bench.ann_measure import release_milvus_lite
from bench.report import RESULTS_DIR, load_average, log, machine, markdown_table, write_json
from bench.stages import StageTimes, Target, instrumented
from planrag.core.settings import Settings
from planrag.core.types import ChunkingConfig, ChunkKind, DocumentStatus
from planrag.ingest.chunkers import chunk_document
from planrag.ingest.parsers import parse_document
from planrag.llm.embedders import Embedder, EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.ingestion import EMBED_BATCH, UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate

TARGET_OVERHEAD = 0.25
SEARCHABLE = [ChunkKind.chunk, ChunkKind.child]


def targets(runtime: Runtime, embedder: Embedder) -> list[Target]:
    tokenizer = getattr(ingestion_module, "LexicalTokenizer", None)
    return [
        (runtime.vectors, "upsert", "milvus_upsert"),
        (runtime.vectors, "delete", "milvus_delete"),
        (runtime.metadata, "replace_chunks", "sqlite_chunks"),
        (runtime.metadata, "delete_chunks", "sqlite_chunks_delete"),
        (runtime.metadata, "add_document", "sqlite_add_document"),
        (runtime.metadata, "set_status", "sqlite_set_status"),
        (runtime.files, "save", "file_save"),
        (embedder, "embed", "embed"),
        (ingestion_module, "parse_document", "parse"),
        (ingestion_module, "chunk_document", "chunk"),
        *([(tokenizer, "tokenize_many", "kiwi_tokenize")] if tokenizer else []),
    ]


def expected_texts(docs: list[str], config: ChunkingConfig) -> list[list[str]]:
    """The texts the pipeline will embed per document, from the product's own parse and chunk."""
    result = []
    for text in docs:
        chunks = chunk_document(parse_document(text.encode("utf-8"), "txt"), config, "doc")
        result.append([c.text for c in chunks if c.kind != ChunkKind.parent])
    return result


def slices(texts: list[str]) -> list[list[str]]:
    """Embed calls of EMBED_BATCH texts at most, as the pipeline makes them."""
    return [texts[i : i + EMBED_BATCH] for i in range(0, len(texts), EMBED_BATCH)]


def embed_timed(embedder: Embedder, texts: list[str]) -> float:
    start = time.perf_counter()
    for batch in slices(texts):
        embedder.embed(batch)
    return time.perf_counter() - start


def upload(runtime: Runtime, kb_id: str, filename: str, text: str) -> str:
    item = UploadItem(filename=filename, data=text.encode("utf-8"))
    (doc,) = runtime.ingestion.upload(kb_id, [item], background=False)
    return doc.id


def check_completed(runtime: Runtime, doc_id: str, texts: list[str]) -> None:
    doc = runtime.metadata.get_document(doc_id)
    if doc.status != DocumentStatus.completed:
        raise SystemExit(f"{doc.filename} failed: {doc.error}")
    if [c.text for c in runtime.metadata.list_chunks(doc_id, SEARCHABLE)] != texts:
        raise SystemExit(f"{doc.filename}: stored chunks differ from the expected texts")


def bm25_rebuild_s(runtime: Runtime, kb_id: str) -> float | None:
    """The lexical index build the product runs lazily; None where it has no BM25 store."""
    bm25 = getattr(runtime, "bm25", None)
    if bm25 is None:
        return None
    start = time.perf_counter()
    bm25.index(kb_id)
    return time.perf_counter() - start


@dataclass
class Pass:
    """One pass over the corpus, per-document path and batched path."""

    e2e_s: list[float] = field(default_factory=list)  # per document
    raw_s: list[float] = field(default_factory=list)  # per document, same calls
    stages: StageTimes = field(default_factory=StageTimes)
    bm25_s: float | None = None
    batched_s: float | None = None
    bulk_raw_s: float | None = None
    batched_stages: StageTimes = field(default_factory=StageTimes)


def per_document(
    runtime: Runtime, embedder: Embedder, name: str, docs: list[str], expected: list[list[str]]
) -> Pass:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=name))
    run = Pass()
    for i, (text, texts) in enumerate(zip(docs, expected, strict=True)):
        raw_first = i % 2 == 1
        if raw_first:
            run.raw_s.append(embed_timed(embedder, texts))
        with instrumented(targets(runtime, embedder), run.stages):
            start = time.perf_counter()
            doc_id = upload(runtime, kb.id, f"{name}-{i:03d}.txt", text)
            runtime.ingestion.index(doc_id)
            run.e2e_s.append(time.perf_counter() - start)
        if not raw_first:
            run.raw_s.append(embed_timed(embedder, texts))
        check_completed(runtime, doc_id, texts)
    run.bm25_s = bm25_rebuild_s(runtime, kb.id)
    return run


def batched(
    runtime: Runtime, embedder: Embedder, run: Pass, docs: list[str], expected: list[list[str]]
) -> None:
    """Upload all, then one index_many call; raw bulk embedding measured before and after."""
    if not hasattr(runtime.ingestion, "index_many"):
        return
    flat = [t for texts in expected for t in texts]
    name = f"batch-{len(run.e2e_s)}-{time.monotonic_ns()}"
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=name))
    before = embed_timed(embedder, flat)
    with instrumented(targets(runtime, embedder), run.batched_stages):
        start = time.perf_counter()
        ids = [upload(runtime, kb.id, f"{name}-{i:03d}.txt", text) for i, text in enumerate(docs)]
        runtime.ingestion.index_many(ids)
        run.batched_s = time.perf_counter() - start
    after = embed_timed(embedder, flat)
    for doc_id, texts in zip(ids, expected, strict=True):
        check_completed(runtime, doc_id, texts)
    run.bulk_raw_s = (before + after) / 2


def bench_language(
    runtime: Runtime, embedder: Embedder, lang: str, docs: list[str], args: argparse.Namespace
) -> dict[str, Any]:
    expected = expected_texts(docs, ChunkingConfig())
    for w in range(args.warmup_passes):  # untimed: first-use costs of the model and the stores
        per_document(runtime, embedder, f"warmup-{lang}-{w}", docs, expected)
    passes = []
    for r in range(args.repeats):
        run = per_document(runtime, embedder, f"doc-{lang}-{r}", docs, expected)
        batched(runtime, embedder, run, docs, expected)
        passes.append(run)
        log(
            f"  {lang} pass {r + 1}: per-doc e2e {sum(run.e2e_s):.2f}s raw {sum(run.raw_s):.2f}s;"
            f" batched e2e {run.batched_s or 0:.2f}s raw {run.bulk_raw_s or 0:.2f}s"
        )
    return summarise(lang, docs, expected, passes)


def _pct(numerator: float, denominator: float) -> float:
    return round((numerator / denominator - 1) * 100, 1)


def _stages(runs: list[StageTimes], totals: list[float]) -> dict[str, float]:
    """Median seconds per pass of each stage, and of the rest of the pipeline ("other")."""
    names = sorted({name for r in runs for name in r.seconds})
    stages = {n: statistics.median(r.seconds[n] for r in runs) for n in names}
    stages["other"] = statistics.median(totals) - sum(stages.values())
    return {name: round(value, 3) for name, value in stages.items()}


def summarise(
    lang: str, docs: list[str], expected: list[list[str]], passes: list[Pass]
) -> dict[str, Any]:
    chunks = sum(len(t) for t in expected)
    e2e, raw = [sum(p.e2e_s) for p in passes], [sum(p.raw_s) for p in passes]
    embed_in_pipeline = sum(p.stages.seconds["embed"] for p in passes)
    result: dict[str, Any] = {
        "language": lang,
        "documents": len(docs),
        "document_chars": sum(len(d) for d in docs),
        "chunks": chunks,
        "chunk_chars_mean": round(sum(len(x) for texts in expected for x in texts) / chunks, 1),
        "passes": len(passes),
        "target_overhead_pct": TARGET_OVERHEAD * 100,
        "per_document": {
            "end_to_end_s": round(sum(e2e) / len(passes), 3),
            "raw_embed_s": round(sum(raw) / len(passes), 3),
            "end_to_end_chunks_per_s": round(chunks * len(passes) / sum(e2e), 1),
            "raw_chunks_per_s": round(chunks * len(passes) / sum(raw), 1),
            "overhead_pct": _pct(sum(e2e), sum(raw)),
            "overhead_pct_per_pass": [_pct(e, w) for e, w in zip(e2e, raw, strict=True)],
            "non_embedding_pct_of_pipeline_embed": _pct(sum(e2e), embed_in_pipeline),
            "stages_s_median_per_pass": _stages([p.stages for p in passes], e2e),
        },
    }
    bm25 = [p.bm25_s for p in passes if p.bm25_s is not None]
    if bm25:
        result["bm25_rebuild_s_median"] = round(statistics.median(bm25), 3)
    done = [p for p in passes if p.batched_s and p.bulk_raw_s]
    if done:
        batch = sum(p.batched_s or 0.0 for p in done)
        bulk = sum(p.bulk_raw_s or 0.0 for p in done)
        result["batched"] = {
            "end_to_end_s": round(batch / len(done), 3),
            "raw_embed_s": round(bulk / len(done), 3),  # all texts, EMBED_BATCH slices
            "end_to_end_chunks_per_s": round(chunks * len(done) / batch, 1),
            "raw_chunks_per_s": round(chunks * len(done) / bulk, 1),
            "overhead_pct": _pct(batch, bulk),
            "overhead_pct_per_pass": [_pct(p.batched_s or 0, p.bulk_raw_s or 1) for p in done],
            "stages_s_median_per_pass": _stages(
                [p.batched_stages for p in done], [p.batched_s or 0.0 for p in done]
            ),
        }
    return result


def warm_up(embedder: Embedder, docs: list[str]) -> None:
    """Load the weights and run a few batches before anything is timed."""
    sample = [d[i : i + 500] for d in docs[:4] for i in range(0, len(d), 450)]
    for _ in range(2):
        embedder.embed(sample[:128])


def print_table(results: list[dict[str, Any]]) -> None:
    headers = ["corpus", "path", "chunks", "e2e s", "raw s", "e2e chunks/s", "raw chunks/s"]
    headers += ["overhead"]
    rows = [
        [r["language"], path, r["chunks"]]
        + [r[path][k] for k in ("end_to_end_s", "raw_embed_s")]
        + [r[path][k] for k in ("end_to_end_chunks_per_s", "raw_chunks_per_s")]
        + [f"{r[path]['overhead_pct']} %"]
        for r in results
        for path in ("per_document", "batched")
        if path in r
    ]
    print(markdown_table(headers, rows))
    for r in results:
        for path in ("per_document", "batched"):
            if path in r:
                stages = r[path]["stages_s_median_per_pass"]
                print(f"\n{r['language']} {path} stages (median s per pass): {stages}")
        if "bm25_rebuild_s_median" in r:
            print(f"{r['language']} deferred BM25 rebuild: {r['bm25_rebuild_s_median']} s")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=40, help="documents per language (max)")
    parser.add_argument("--doc-chars", type=int, default=3000, help="approximate document size")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes per language")
    parser.add_argument("--warmup-passes", type=int, default=1, help="untimed passes first")
    parser.add_argument("--languages", nargs="+", default=["en", "ko"], choices=["en", "ko"])
    parser.add_argument("--data-dir", type=Path, default=corpus.DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "ingest.json")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    load_at_start = load_average()
    sources = {"en": corpus.english_paragraphs, "ko": corpus.korean_paragraphs}
    corpora = {
        lang: corpus.pack_documents(sources[lang](args.data_dir), args.docs, args.doc_chars)
        for lang in args.languages
    }
    with tempfile.TemporaryDirectory(prefix="planrag-bench-ingest-") as tmp:
        settings = Settings(_env_file=None, data_dir=Path(tmp) / "data")  # type: ignore[call-arg]
        registry = EmbedderRegistry(settings.embedding)
        runtime = Runtime.open(settings, registry)
        try:
            embedder = registry.get()
            for docs in corpora.values():
                warm_up(embedder, docs)
            results = []
            for lang, docs in corpora.items():
                log(f"{lang}: {len(docs)} documents")
                results.append(bench_language(runtime, embedder, lang, docs, args))
        finally:
            runtime.close()
            release_milvus_lite(settings.milvus_uri)  # else it flushes into the deleted dir at exit
    payload = {
        "bench": "ingest",
        "command": f"python -m bench.ingest --docs {args.docs} --doc-chars {args.doc_chars} "
        f"--repeats {args.repeats} --warmup-passes {args.warmup_passes}",
        "machine": {**machine(), "load_average_at_start": load_at_start},
        "settings": {
            "embedding_model": settings.embedding.model,
            "model_batch_size": settings.embedding.batch_size,
            "embed_call_max_texts": EMBED_BATCH,
            "chunking": ChunkingConfig().model_dump(),
            "index_type": settings.milvus.index_type,
        },
        "results": results,
    }
    log(f"wrote {write_json(args.out, payload)}")
    print_table(results)


if __name__ == "__main__":
    main()
