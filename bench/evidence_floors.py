"""The per-KB evidence floors measured by embedding the sampled passages again (as session 10
did) and from the vector store's chunk vectors (session 11), and what one calibration costs each
way (issue 25).

    flock /work/bench.lock python -m bench.evidence_floors --data-dir <copy of the e5 data> \
        [--kbs ko-company set-cisi …] [--threads 2] [--out bench/results/evidence_floors.json]

For each KB: the floors both ways (the same sample), the seconds of a whole calibration
(`refresh(force=True)`) both ways, and of the lazy floors of a KB calibrated without them
(`FusionCalibrator.evidence_floor`). The unrelated questions' vectors are cleared before each
"embedded" calibration (session 10 embedded them every time) and kept across the "stored" ones
(one embedding per process and model).
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
from planrag.core.settings import E5_MODEL, EmbeddingSettings, IngestSettings, Settings  # noqa: E402
from planrag.executors import calibration  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402

KBS = [
    "ko-company",
    "set-publichealthqa_ko",
    "set-allganize_rag_ko",
    "set-hotpotqa_24",
    "set-cisi",
]


def timed_refresh(runtime: Runtime, kb_id: str) -> tuple[dict[str, float], float]:
    began = time.perf_counter()
    result = runtime.calibrator.refresh(kb_id, force=True)
    seconds = time.perf_counter() - began
    return (result.evidence_floor if result else {}), round(seconds, 2)


def lazy(runtime: Runtime, kb_id: str) -> tuple[dict[str, float], float]:
    """The floors of the KB's calibration dropped, then measured on first use."""
    kb = runtime.metadata.get_kb(kb_id)
    assert kb.calibration is not None
    plain = kb.calibration.model_copy(update={"evidence_floor": {}})
    runtime.metadata.update_kb(kb_id, {"calibration": plain.model_dump(mode="json")})
    began = time.perf_counter()
    floors = runtime.calibrator.evidence_floor(runtime.metadata.get_kb(kb_id))
    return floors, round(time.perf_counter() - began, 2)


def measure_kb(runtime: Runtime, name: str) -> dict[str, Any]:
    kb_id = runtime.metadata.get_kb_by_name(name).id
    stored = runtime.calibrator._stored
    runtime.calibrator._stored = None  # session 10: every passage embedded again
    calibration._ASKED.clear()
    embedded, embedded_s = timed_refresh(runtime, kb_id)
    runtime.calibrator._stored = stored
    from_store, stored_s = timed_refresh(runtime, kb_id)
    backfilled, lazy_s = lazy(runtime, kb_id)
    row = {
        "kb": name,
        "chunks": runtime.calibrator._count(kb_id),
        "floors_embedded": embedded,
        "floors_stored": from_store,
        "floors_lazy": backfilled,
        "calibration_s_embedded": embedded_s,
        "calibration_s_stored": stored_s,
        "lazy_floors_s": lazy_s,
    }
    print(json.dumps(row, ensure_ascii=False), flush=True)
    return row


def open_e5_runtime(data_dir: Path, threads: int) -> Runtime:
    """The runtime of an ingested bench data dir, e5 embedding in this process."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=data_dir,
        embedding=EmbeddingSettings(model=E5_MODEL, threads=threads),
        ingest=IngestSettings(embed_process=False),
    )
    return Runtime.open(settings)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--kbs", nargs="*", default=KBS)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS / "evidence_floors.json")
    args = parser.parse_args()
    runtime = open_e5_runtime(args.data_dir, args.threads)
    try:
        runtime.embedders.get().embed(["warm up"])  # the model's load is not a calibration's
        rows = [measure_kb(runtime, name) for name in args.kbs]
    finally:
        runtime.close()
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
