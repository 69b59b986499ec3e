"""A real planrag server for benches: uvicorn on 127.0.0.1, a free port, a given data dir."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

READY_TIMEOUT_S = 900.0


@dataclass(frozen=True)
class ServerProcess:
    base_url: str
    pid: int
    startup_s: float  # process start until /healthz reports the model loaded


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _wait_ready(proc: subprocess.Popen[bytes], base_url: str, log_path: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{_tail(log_path)}")
        try:
            response = httpx.get(f"{base_url}/healthz", timeout=5.0)
            if response.status_code == 200 and response.json().get("ready"):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server not ready after {READY_TIMEOUT_S}s:\n{_tail(log_path)}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Ctrl-C, as a user would: uvicorn shuts down and the lifespan closes the stores."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def planrag_server(
    data_dir: Path, log_path: Path, seed: int | None = None
) -> Iterator[ServerProcess]:
    """`planrag serve` with PLANRAG_DATA_DIR=data_dir; stopped (and the data dir unlocked) after.

    Runs from the data dir's parent so no `.env` of the checkout is read. With `seed`, string
    hashing (PYTHONHASHSEED) and the global random generators are seeded with it (`bench.seeded`).
    """
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PLANRAG_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "planrag.cli.main", "serve"]
    if seed is not None:
        env["PYTHONHASHSEED"] = str(seed)
        command = [sys.executable, "-m", "bench.seeded", str(seed), "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    start = time.perf_counter()
    with log_path.open("ab") as log_file:
        proc = subprocess.Popen(
            command, env=env, cwd=data_dir.parent, stdout=log_file, stderr=subprocess.STDOUT
        )
    try:
        _wait_ready(proc, base_url, log_path)
        yield ServerProcess(base_url, proc.pid, time.perf_counter() - start)
    finally:
        _stop(proc)


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """`values` in os.environ for the block (servers started inside inherit them)."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
