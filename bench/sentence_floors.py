"""The sentence-level evidence floor of each KB read over every sampled passage's sentences and
over only the passages nearest each unrelated question (issue 25, session 12).

    python -m bench.sentence_floors --data-dir <copy of the e5 data with ko-company> \
        [--kbs ko-company set-cisi …] [--nearest 1 2 4 8] [--out bench/results/sentence_floors.json]

For each KB and bound: the floors per direction and how many sentences they embed (the
calibration's cost: e5 embeds these at every calibration and once for a KB calibrated before
the sentence floor existed). Sentences are embedded once per process (a cache), so the bound's
cost is its sentence count, not this bench's seconds; `--timed 0 4` also times
`sentence_floors` without a cache over all passages (0) and the 4 nearest (run it under
`flock /work/bench.lock`).

`--dump FLOORS.json`: only the KBs' floors as the ask path reads them (`cross_floors`, the
missing ones measured and kept), for `bench.answers_replay --floors`; `--alias answers-ko=
ko-company` names a KB's floors as another's (the replayed runs' KB of the same documents).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.datasets import RESULTS  # noqa: E402
from bench.evidence_floors import KBS, open_e5_runtime  # noqa: E402
from planrag.core.settings import E5_MODEL  # noqa: E402
from planrag.executors.sentence_floors import sentence_floors  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402


class Counting:
    """The embedder with its passage vectors cached, counting the texts each bound asks for."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self.name = embedder.name
        self.cache: dict[str, list[float]] = {}
        self.asked = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.asked += len(texts)
        new = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if new:
            self.cache.update(zip(new, self._embedder.embed(new), strict=True))
        return [self.cache[t] for t in texts]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed_queries(texts)


def measure_kb(runtime: Runtime, name: str, bounds: list[int | None], timed: list[int]) -> dict:
    kb = runtime.metadata.get_kb_by_name(name)
    calibrator = runtime.calibrator
    sample = calibrator._sampled(kb.id)
    ids = sorted(set(sample.chunk_ids.values()))
    found = runtime.vectors.get_vectors(kb.id, ids)
    stored = {t: found[c] for t, c in sample.chunk_ids.items() if c in found}
    counting = Counting(runtime.embedders.get(E5_MODEL))
    row: dict[str, Any] = {"kb": name, "passages": {s: len(t) for s, t in sample.passages.items()}}
    for bound in bounds:
        counting.asked = 0
        floors = sentence_floors(counting, sample.passages, stored, bound)  # type: ignore[arg-type]
        row[f"nearest {bound or 'all'}"] = {"floors": floors, "sentences": counting.asked}
    for bound in timed:
        began = time.perf_counter()
        sentence_floors(runtime.embedders.get(E5_MODEL), sample.passages, stored, bound or None)
        row[f"seconds, nearest {bound or 'all'}"] = round(time.perf_counter() - began, 2)
    print(json.dumps(row, ensure_ascii=False), flush=True)
    return row


def dump(runtime: Runtime, names: list[str], aliases: list[str], out: Path) -> None:
    floors = {}
    for name in names:
        kb = runtime.metadata.get_kb_by_name(name)
        runtime.calibrator.cross_floors(kb)
        runtime.calibrator.backfilled(kb.id)
        floors[name] = runtime.calibrator.cross_floors(runtime.metadata.get_kb(kb.id)).model_dump()
    for alias in aliases:
        name, _, kb_name = alias.partition("=")
        floors[name] = floors[kb_name]
    out.write_text(json.dumps(floors, indent=1))
    print(json.dumps(floors))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--kbs", nargs="*", default=KBS)
    parser.add_argument("--nearest", nargs="*", type=int, default=[1, 2, 4, 8])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--timed", nargs="*", type=int, default=[], help="bounds timed without a cache (0: all)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "sentence_floors.json")
    parser.add_argument("--dump", type=Path, help="write the KBs' floors as the ask reads them")
    parser.add_argument("--alias", nargs="*", default=[], help="NAME=KB: KB's floors as NAME's")
    args = parser.parse_args()
    runtime = open_e5_runtime(args.data_dir, args.threads)
    if args.dump:
        try:
            dump(runtime, args.kbs, args.alias, args.dump)
        finally:
            runtime.close()
        return
    try:
        runtime.embedders.get().embed(["warm up"])
        bounds: list[int | None] = [None, *args.nearest]
        rows = [measure_kb(runtime, name, bounds, args.timed) for name in args.kbs]
    finally:
        runtime.close()
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
