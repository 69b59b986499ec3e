"""Running the `planrag` command in a test: in this process (`planrag`) or as a real child
process (`planrag_process`).

In-process runs call the same entry point (`planrag.cli.main.main`) with the same arguments,
environment, stdin and captured stdout/stderr, and give the same exit code, so a test of what a
command does needs no new interpreter: a child process pays seconds of imports and Kiwi's
model load per command, which the suite paid dozens of times. Each command family keeps at least
one test through `planrag_process`, so the installed entry point stays proven.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path


def _env(data_dir: Path) -> dict[str, str]:
    return {"PLANRAG_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}


def planrag_process(
    data_dir: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """`python -m planrag.cli.main ARGS` in a child process on DATA_DIR."""
    return subprocess.run(
        [sys.executable, "-m", "planrag.cli.main", *args],
        env={**os.environ, **_env(data_dir)},
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
    )


def planrag(data_dir: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The same command run by `main()` in this process: environment set and settings re-read
    for the call (then restored), stdout and stderr captured, the exit code from SystemExit (an
    uncaught exception is exit code 1 with its traceback on stderr, as in a child process)."""
    from planrag.cli.main import main
    from planrag.core.settings import get_settings

    out, err = io.StringIO(), io.StringIO()
    saved_env = {name: os.environ.get(name) for name in _env(data_dir)}
    saved_argv, saved_stdin = sys.argv, sys.stdin
    os.environ.update(_env(data_dir))
    sys.argv = ["planrag", *args]
    sys.stdin = io.StringIO(stdin or "")
    get_settings.cache_clear()
    code = 0
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main()
            except SystemExit as exit_:
                if isinstance(exit_.code, str):  # sys.exit("message"): printed, exit code 1
                    print(exit_.code, file=sys.stderr)
                code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
            except Exception:
                traceback.print_exc()
                code = 1
    finally:
        get_settings.cache_clear()
        sys.argv, sys.stdin = saved_argv, saved_stdin
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return subprocess.CompletedProcess(["planrag", *args], code, out.getvalue(), err.getvalue())
