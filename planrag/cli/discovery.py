"""Which server serves a data dir. `planrag serve` leaves `server.json` (its URL and pid) in the
data dir while it runs; other `planrag` commands then go through its HTTP API instead of opening
the stores themselves (Milvus Lite locks its data dir to one process). PLANRAG_SERVER_URL names
a server explicitly (another machine, a container)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

RECORD_NAME = "server.json"
SERVER_FILE = RECORD_NAME


@dataclass(frozen=True)
class ServerRecord:
    url: str
    pid: int


def record_path(data_dir: Path) -> Path:
    return data_dir / RECORD_NAME


def write_record(data_dir: Path, host: str, port: int) -> ServerRecord:
    """Announce this process as the data dir's server (removed by `remove_record`)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    record = ServerRecord(url=f"http://{shown}:{port}", pid=os.getpid())
    data_dir.mkdir(parents=True, exist_ok=True)
    record_path(data_dir).write_text(json.dumps(record.__dict__), encoding="utf-8")
    return record


@contextmanager
def announce(data_dir: Path, host: str, port: int) -> Iterator[ServerRecord]:
    """While the block runs, `<data_dir>/server.json` says where this process serves."""
    record = write_record(data_dir, host, port)
    # uvicorn re-raises a SIGTERM after its graceful shutdown; let it end the block (and so
    # remove the file) instead of killing the process on the spot.
    previous = signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        yield record
    finally:
        signal.signal(signal.SIGTERM, previous)
        remove_record(data_dir)


def _exit_cleanly(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


def remove_record(data_dir: Path) -> None:
    """Remove the record if it is this process's."""
    found = read_record(data_dir, check_alive=False)
    if found is not None and found.pid == os.getpid():
        with suppress(OSError):
            record_path(data_dir).unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    except (OSError, OverflowError):
        return False
    return True


def read_record(data_dir: Path, check_alive: bool = True) -> ServerRecord | None:
    """The running server of this data dir; None when there is none (a stale record of a
    process that died is ignored)."""
    try:
        raw = json.loads(record_path(data_dir).read_text(encoding="utf-8"))
        record = ServerRecord(url=str(raw["url"]), pid=int(raw["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if check_alive and not _alive(record.pid):
        return None
    return record


def server_url(explicit: str, data_dir: Path) -> str | None:
    """PLANRAG_SERVER_URL when set, else the URL of a server running for `data_dir`."""
    if explicit:
        return explicit.rstrip("/")
    record = read_record(data_dir)
    return record.url if record else None
