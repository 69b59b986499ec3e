"""Query-embedding latency with torch using 1 thread versus its default, in one process.

    python -m bench.embed_threads [--queries 200] [--blocks 4] [--out PATH]

One query per `embedder.embed([q])` call, as the retrieve path makes them (HotpotQA questions).
Thread counts alternate block by block so drift hits both alike. A side measurement for the
ANN bench: the query path's embedding is most of a retrieve call at 10k chunks.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import torch

from bench import corpus
from bench.report import RESULTS_DIR, load_average, log, machine, summarise_ms, write_json
from planrag.core.settings import MINILM_MODEL, EmbeddingSettings
from planrag.llm.embedders import EmbedderRegistry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=4, help="blocks per thread count")
    parser.add_argument("--data-dir", type=Path, default=corpus.DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "embed_threads.json")
    args = parser.parse_args()
    load_at_start = load_average()
    queries = corpus.english_queries(args.data_dir)[: args.queries]
    embedder = EmbedderRegistry(EmbeddingSettings(model=MINILM_MODEL)).get()  # torch threads
    default_threads = torch.get_num_threads()
    counts = sorted({1, default_threads})
    for query in queries[:20]:
        embedder.embed_queries([query])
    seconds: dict[int, list[float]] = defaultdict(list)
    for block in range(args.blocks):
        for threads in counts if block % 2 == 0 else counts[::-1]:
            torch.set_num_threads(threads)
            for query in queries:
                start = time.perf_counter()
                embedder.embed_queries([query])
                seconds[threads].append(time.perf_counter() - start)
        log(f"block {block + 1}/{args.blocks} done")
    torch.set_num_threads(default_threads)
    results = {f"{n}_threads": summarise_ms(seconds[n]) for n in counts}
    payload = {
        "bench": "embed_threads",
        "command": f"python -m bench.embed_threads --queries {args.queries} --blocks {args.blocks}",
        "machine": {**machine(), "load_average_at_start": load_at_start},
        "results": results,
    }
    log(f"wrote {write_json(args.out, payload)}")
    for name, stats in results.items():
        print(
            f"{name}: p50 {stats['p50_ms']} ms, p95 {stats['p95_ms']} ms, max {stats['max_ms']} ms"
        )


if __name__ == "__main__":
    main()
