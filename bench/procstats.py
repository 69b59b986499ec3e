"""CPU seconds, RSS and open file descriptors of the benches' process groups (psutil).

A group is named after what it runs ("api", "workers", "milvus", "postgres", "client") and
holds root processes; every descendant of a root counts in its group (uvicorn's worker
processes under `serve --workers N`, an embedding helper process, PostgreSQL's backends),
except in the groups named `alone` (the bench's own process, whose descendants are the rest).
`ProcessGroups` samples them from a background thread: the CPU seconds each process used since
the meter started (a process that exits between samples loses at most one interval), and on
request a snapshot of RSS and descriptors per process. The machine's own CPU seconds over the
same span (`psutil.cpu_times`) show what the groups could have had: on 2 cores, 2 × elapsed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import psutil

ProcessRoots = Callable[[], Iterable[int]]


def postmaster_pid(pgdata: Path) -> int | None:
    """The PostgreSQL server's pid (first line of postmaster.pid), None when not running."""
    try:
        return int((pgdata / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _busy_seconds() -> float:
    times = psutil.cpu_times()
    return float(sum(times) - times.idle - getattr(times, "iowait", 0.0))


class ProcessGroups:
    """Named groups of process trees, their CPU use sampled every `interval_s` seconds."""

    def __init__(
        self, groups: dict[str, ProcessRoots], alone: Iterable[str] = (), interval_s: float = 1.0
    ) -> None:
        self._groups = groups
        self._alone = set(alone)
        self._initial = False  # the first sample: baselines are what each process used so far
        self._interval = interval_s
        self._lock = threading.Lock()
        self._base: dict[int, float] = {}  # cpu seconds of a pid when first seen
        self._last: dict[int, tuple[str, float]] = {}  # group and latest cpu seconds
        self._peak_rss: dict[int, int] = {}
        self._roles: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self._busy_at_start = 0.0

    def processes(self) -> dict[str, list[psutil.Process]]:
        return {
            name: [
                p for pid in set(roots()) for p in _tree(pid)[: 1 if name in self._alone else None]
            ]
            for name, roots in self._groups.items()
        }

    def sample(self) -> None:
        for name, procs in self.processes().items():
            for proc in procs:
                try:
                    times, rss = proc.cpu_times(), proc.memory_info().rss
                    if proc.pid not in self._roles:
                        self._roles[proc.pid] = role(proc)
                except psutil.Error:
                    continue
                used = times.user + times.system
                with self._lock:
                    self._base.setdefault(proc.pid, used if self._initial else 0.0)
                    self._last[proc.pid] = (name, used)
                    self._peak_rss[proc.pid] = max(self._peak_rss.get(proc.pid, 0), rss)

    def start(self) -> ProcessGroups:
        """Processes alive now count from now; processes started later from their start."""
        self._started, self._busy_at_start = time.monotonic(), _busy_seconds()
        self._initial = True
        self.sample()  # baselines of the processes already running
        self._initial = False
        self._thread = threading.Thread(target=self._run, name="procstats", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()

    def stop(self) -> dict[str, Any]:
        """CPU seconds per group since `start`, the span, and the machine's busy CPU seconds."""
        self.sample()
        self._stop.set()
        if self._thread:
            self._thread.join()
        elapsed = time.monotonic() - self._started
        busy = _busy_seconds() - self._busy_at_start
        groups = {name: 0.0 for name in self._groups}
        detail = []
        with self._lock:
            for pid, (name, used) in self._last.items():
                spent = max(used - self._base.get(pid, 0.0), 0.0)
                groups[name] += spent
                detail.append(
                    {
                        "group": name,
                        "pid": pid,
                        "role": self._roles.get(pid, "?"),
                        "cpu_s": round(spent, 1),
                        "peak_rss_mb": round(self._peak_rss.get(pid, 0) / 2**20, 1),
                    }
                )
        ours = sum(groups.values())
        return {
            "seconds": round(elapsed, 1),
            "cpu_s": {name: round(value, 1) for name, value in groups.items()},
            "cpu_s_groups_total": round(ours, 1),
            "cpu_s_machine_busy": round(busy, 1),
            "cpu_s_others": round(max(busy - ours, 0.0), 1),
            "cpu_s_available": round(elapsed * (psutil.cpu_count() or 1), 1),
            # PostgreSQL's short-lived backends are many; the rest one row per process
            "processes": [d for d in detail if d["group"] != "postgres" or d["cpu_s"] >= 0.5],
        }

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """RSS (MB) and open descriptors of every process of every group, now."""
        out: dict[str, list[dict[str, Any]]] = {}
        for name, procs in self.processes().items():
            rows = []
            for proc in procs:
                try:
                    with proc.oneshot():
                        rows.append(
                            {
                                "pid": proc.pid,
                                "role": role(proc),
                                "rss_mb": round(proc.memory_info().rss / 2**20, 1),
                                "fds": proc.num_fds(),
                            }
                        )
                except psutil.Error:
                    continue
            out[name] = rows
        return out


def role(proc: psutil.Process) -> str:
    """A short name for a process: its planrag sub-command, else its executable's name."""
    try:
        args = proc.cmdline()
    except psutil.Error:
        return "?"
    if "planrag.cli.main" in args:
        tail = args[args.index("planrag.cli.main") + 1 :]
        return "planrag " + (tail[0] if tail else "")
    joined = " ".join(args)
    if "resource_tracker" in joined:
        return "multiprocessing resource tracker"
    if "multiprocessing" in joined:
        try:
            parent = proc.parent()
            serve = parent is not None and "serve" in parent.cmdline()
        except psutil.Error:
            serve = False
        # `serve --workers N` spawns uvicorn's N processes; a worker its indexing helper
        return "api process (uvicorn worker)" if serve else "indexing helper process"
    if "milvus-lite" in joined or "milvus_lite" in joined:
        return "milvus-lite server"
    if " -m bench." in f" {joined}" or "bench/" in joined:
        return "bench"
    return Path(args[0]).name if args else proc.name()
