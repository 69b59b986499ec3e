"""What the console's tests need: a current build of web/ (built here when stale, so a fresh
clone works), Debian's chromium, and a real `planrag serve` process on loopback.

Nothing here skips: a missing Node.js or chromium fails the test with what to install.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
DIST_STAMP = WEB / "dist" / ".built"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SOURCE_FILES = (
    "index.html",
    "package.json",
    "package-lock.json",
    "vite.config.ts",
    "tsconfig.json",
)


def _newest_source() -> float:
    files = [WEB / name for name in SOURCE_FILES if (WEB / name).exists()]
    for folder in ("src", "public"):
        files += [p for p in (WEB / folder).rglob("*") if p.is_file()]
    return max(p.stat().st_mtime for p in files)


def _run(command: list[str]) -> None:
    result = subprocess.run(command, cwd=WEB, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        pytest.fail(
            f"{' '.join(command)} failed in web/:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )


@contextmanager
def _web_lock() -> Iterator[None]:
    """One npm install/build at a time: the suite's parallel workers may all find web/ stale."""
    with open(WEB / ".build.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def ensure_node_modules() -> None:
    """`npm ci` when node_modules is missing or older than the lockfile (as `make setup` does)."""
    with _web_lock():
        _ensure_node_modules()


def _ensure_node_modules() -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.fail(
            "Node.js >= 20.19 and npm are needed to build web/ (apt-get install nodejs npm)"
        )
    installed = WEB / "node_modules" / ".package-lock.json"
    lock = WEB / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        _run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"])


def ensure_console_built() -> Path:
    """web/dist, rebuilt when any web/ source is newer than the last build."""
    with _web_lock():
        if not DIST_STAMP.exists() or DIST_STAMP.stat().st_mtime < _newest_source():
            _ensure_node_modules()
            _run(["npm", "run", "build", "--silent"])
            DIST_STAMP.touch()
    assert (WEB / "dist" / "index.html").is_file()
    return WEB / "dist"


def require_chromium() -> str:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: apt-get install -y chromium (tests never download one)"
        )
    return CHROMIUM


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """`planrag serve` in its own process with its own data dir; stderr goes to a log file."""

    def __init__(self, data_dir: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data_dir.parent / "server.log"
        data_dir.mkdir(parents=True, exist_ok=True)
        full_env = {
            **os.environ,
            "PLANRAG_DATA_DIR": str(data_dir),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            **env,
        }
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "planrag.cli.main",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                env=full_env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._wait_ready()

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def _wait_ready(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"planrag serve exited:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).json().get("ready"):
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        self.stop()
        raise AssertionError(f"planrag serve did not become ready:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
