"""A low-priority child process for CPU-heavy work the serving process must not wait on.

Indexing a large document is minutes of CPU (Kiwi tokenisation, passage embedding). Done in
the server's own process, it competes with every search for the same cores, and some of it
holds the GIL for hundreds of milliseconds (Kiwi, measured in docs/benchmarks.md). Here such work
runs in one child process started lazily with `spawn` (never `fork`: the server has threads and
open stores), niced (`os.nice(19)`: the kernel gives the serving process the CPU whenever it
wants it), fed one call at a time over a pipe. A call is a top-level function and its arguments
(pickled by reference, so the child imports the same code); state such as a loaded model lives in
module-level caches of the child and is reused by later calls.

Robustness: a child that dies during a call (killed, out of memory, a crash in native code) is
started again and the call retried once; a second death is a `ChildProcessDied` error naming the
exit status, which fails the work as any other error would. `close()` stops the child at once
(a call in flight raises `ShuttingDown`); when the parent dies, the child notices within a
second (its parent changes) and exits, even in the middle of a call.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from planrag.core.errors import PlanragError

log = logging.getLogger(__name__)

__all__ = ["ChildProcessDied", "LowPriorityProcess", "ShuttingDown"]

Setup = tuple[Callable[..., object], tuple[object, ...]]


class ChildProcessDied(PlanragError):
    """The helper process died during a call, twice in a row."""

    code = "child_process_died"


class ShuttingDown(PlanragError):
    """The helper process was closed while a call waited for it."""

    code = "shutting_down"


class _Died(Exception):
    def __init__(self, exitcode: int | None) -> None:
        super().__init__(exitcode)
        self.exitcode = exitcode


def describe_exit(exitcode: int | None) -> str:
    if exitcode is None:
        return "closed its pipe"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def _sendable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling, else a RuntimeError with its type and message."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _exit_with_parent(parent: int, interval_s: float = 1.0) -> None:
    """Exit at once when the parent (its pid given by the parent itself: it may have died
    before this runs) is gone, even in the middle of a long call (a killed server must not
    leave a helper computing for nobody)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _serve(conn: Connection, nice: int, setup: Sequence[Setup], parent: int) -> None:
    """The child: run calls until EOF (the parent closed or died) or a `None` request."""
    _exit_with_parent(parent)
    if nice:
        os.nice(nice)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")  # as in the serving process (DESIGN.md)
    except ImportError:  # pragma: no cover - a dependency of the package
        pass
    for fn, args in setup:
        fn(*args)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        except Exception as exc:  # a request that cannot be unpickled here
            reply: tuple[str, object] = ("error", _sendable(exc))
        else:
            if request is None:
                return
            fn, args = request
            try:
                reply = ("ok", fn(*args))
            except BaseException as exc:
                reply = ("error", _sendable(exc))
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


class LowPriorityProcess:
    """One niced helper process, started on the first call; see the module's docstring."""

    def __init__(
        self,
        *,
        nice: int = 19,
        setup: Sequence[Setup] = (),
        name: str = "planrag-indexer",
        poll_s: float = 0.1,
    ) -> None:
        self.nice = nice
        self._setup = list(setup)
        self._name = name
        self._poll_s = poll_s
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()  # one call at a time
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self._closed = False
        self.starts = 0  # children started so far (tests read it)

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.is_alive() else None

    @property
    def closed(self) -> bool:
        return self._closed

    def call(self, fn: Callable[..., Any], *args: object) -> Any:
        """`fn(*args)` in the child; its result, or the exception it raised, raised here."""
        with self._lock:
            for attempt in (1, 2):
                self._check_open()
                self._ensure_started()
                try:
                    return self._round_trip(fn, args)
                except _Died as died:
                    self._reap()
                    self._check_open()  # killed by close(): shutting down, not a crash
                    reason = describe_exit(died.exitcode)
                    if attempt == 2:
                        raise ChildProcessDied(
                            f"the indexing helper process died twice ({reason}) while running "
                            f"{fn.__name__}",
                            exit=reason,
                        ) from None
                    log.warning("helper process died (%s); starting it again", reason)
        raise AssertionError("unreachable")

    def _check_open(self) -> None:
        if self._closed:
            raise ShuttingDown("server shutting down; indexing resumes at next start")

    def _ensure_started(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._reap()
        parent, child = self._ctx.Pipe()
        process = self._ctx.Process(
            target=_serve,
            args=(child, self.nice, self._setup, os.getpid()),
            name=self._name,
            daemon=True,
        )
        process.start()
        child.close()  # only the child holds its end: its death is EOF here
        self._process, self._conn = process, parent
        self.starts += 1
        log.info("started helper process %s (pid %s, nice +%d)", self._name, process.pid, self.nice)

    def _round_trip(self, fn: Callable[..., Any], args: tuple[object, ...]) -> Any:
        conn, process = self._conn, self._process
        assert conn is not None and process is not None
        try:
            conn.send((fn, args))
            while not conn.poll(self._poll_s):
                if self._closed or not process.is_alive():
                    break
            status, value = conn.recv()
        except (EOFError, OSError):
            process.join(timeout=5)
            raise _Died(process.exitcode) from None
        if status == "error":
            raise value
        return value

    def _reap(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            if process.is_alive():
                process.terminate()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)

    def close(self) -> None:
        """Stop the child now (idempotent). A call in flight raises `ShuttingDown`."""
        self._closed = True
        process = self._process
        if process is not None and process.is_alive():
            process.terminate()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)
        if not self._lock.locked():
            with self._lock:
                self._reap()
