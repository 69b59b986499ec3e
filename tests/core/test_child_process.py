"""The low-priority helper process: results and errors come back, it runs niced, a death is
retried once then reported with its cause, and close() leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.child_process import ChildProcessDied, LowPriorityProcess, ShuttingDown
from planrag.core.errors import InvalidInput

# Top-level functions: the child imports this module to run them.


def niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


def refuse(message: str) -> None:
    raise InvalidInput(message)


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def die_once(marker: str) -> str:
    if not Path(marker).exists():
        Path(marker).write_text("died")
        os.kill(os.getpid(), signal.SIGKILL)
    return "second try"


def block(seconds: float) -> None:
    time.sleep(seconds)


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


@pytest.fixture
def helper() -> Iterator[LowPriorityProcess]:
    process = LowPriorityProcess(poll_s=0.02)
    yield process
    process.close()


def test_results_and_errors_come_back_and_the_child_is_niced(helper) -> None:
    assert helper.pid is None  # started lazily
    assert helper.call(sorted, [3, 1, 2]) == [1, 2, 3]
    assert helper.call(niceness) == min(19, niceness() + 19)
    with pytest.raises(InvalidInput, match="no such thing"):
        helper.call(refuse, "no such thing")
    assert helper.call(len, "still alive") == 11 and helper.starts == 1
    pid = helper.pid
    assert pid is not None and pid != os.getpid()
    helper.close()
    assert helper.pid is None and gone(pid)


def test_a_child_that_dies_once_is_started_again(helper, tmp_path) -> None:
    assert helper.call(die_once, str(tmp_path / "marker")) == "second try"
    assert helper.starts == 2


def test_a_child_that_dies_twice_is_an_error_naming_the_cause(helper) -> None:
    with pytest.raises(ChildProcessDied, match="died twice \\(killed by SIGKILL\\)"):
        helper.call(die)
    assert helper.call(len, "ab") == 2  # the next call gets a fresh child


def test_close_stops_a_call_in_flight_and_leaves_no_process(helper) -> None:
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            helper.call(block, 60.0)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    while helper.pid is None:  # wait for the child to exist
        time.sleep(0.01)
    pid = helper.pid
    helper.close()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], ShuttingDown)
    assert gone(pid)
    with pytest.raises(ShuttingDown):
        helper.call(len, "closed")


PARENT = """
import sys, threading
from planrag.core.child_process import LowPriorityProcess
from tests.core.test_child_process import block
helper = LowPriorityProcess(poll_s=0.02)
threading.Thread(target=helper.call, args=(block, 120.0), daemon=True).start()
while helper.pid is None:
    pass
print(helper.pid, flush=True)
threading.Event().wait()
"""


def finished(pid: int) -> bool:
    """Gone, or a zombie nobody reaps (an orphan's new parent may not wait for it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def test_a_helper_exits_when_its_parent_is_killed_mid_call() -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], cwd=root, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert not finished(child)
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 30
    while not finished(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert finished(child)
