"""Shared helpers of the benches: latency summaries, machine description, tables, JSON output."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def summarise_ms(seconds: Sequence[float]) -> dict[str, float]:
    """p50/p95/mean/min/max in milliseconds of per-call timings given in seconds."""
    ms = np.asarray(seconds, dtype=np.float64) * 1000.0
    return {
        "n": int(ms.size),
        "p50_ms": round(float(np.percentile(ms, 50)), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
        "mean_ms": round(float(ms.mean()), 3),
        "min_ms": round(float(ms.min()), 3),
        "max_ms": round(float(ms.max()), 3),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def revision() -> str:
    """The product revision measured: PLANRAG_BENCH_REVISION, else the checkout's commit."""
    if os.environ.get("PLANRAG_BENCH_REVISION"):
        return os.environ["PLANRAG_BENCH_REVISION"]
    import planrag

    root = Path(planrag.__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "planrag"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"unknown ({root} is not a git checkout)"
    return commit + (" + uncommitted changes in planrag/" if dirty else "")


def load_average() -> list[float]:
    """1, 5 and 15 minute load averages: above ~0.5 on 2 cores, something else was running."""
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict[str, Any]:
    """What the figures were measured on, and the thread settings that change them."""
    import torch

    packages = ["torch", "sentence-transformers", "pymilvus", "milvus-lite", "fastapi", "uvicorn"]
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "accelerator": "none (CPU only)",
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "planrag_revision": revision(),
        "torch_threads": torch.get_num_threads(),
        "load_average_at_end": load_average(),
        "env": {
            k: os.environ.get(k, "")
            for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "TOKENIZERS_PARALLELISM")
        },
        "packages": {p: _version(p) for p in packages},
    }


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def write_json(path: Path, payload: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return path


def log(message: str) -> None:
    """Progress goes to stderr; the result table to stdout."""
    print(message, file=sys.stderr, flush=True)
