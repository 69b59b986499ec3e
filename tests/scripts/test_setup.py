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


def stand_in_python(path: Path, version: str, log: Path, local_torch_wheel: bool) -> Path:
    """An executable that answers the script's questions like a Python of `version` would."""
    no_index = "exit 0" if local_torch_wheel else "exit 1"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        'case "$*" in\n'
        f"  *version_info*) echo {version} ;;\n"
        "  *importlib.metadata*) exit 1 ;;\n"  # torch not installed yet
        f"  *--no-index*) {no_index} ;;\n"
        "esac\n"
        "exit 0\n"
    )
    path.chmod(0o755)
    return path


def run_setup(tmp_path: Path, version: str, local_torch_wheel: bool = True):  # type: ignore[no-untyped-def]
    log = tmp_path / "calls.log"
    log.touch()
    python = stand_in_python(tmp_path / "python3", version, log, local_torch_wheel)
    stand_in_python(tmp_path / "venv" / "bin" / "python", version, log, local_torch_wheel)
    env = {**os.environ, "PYTHON": str(python), "VENV": str(tmp_path / "venv")}
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
    for step in ("1/4 checking Python", "2/4 virtual environment", "3/4 torch", "4/4 planrag"):
        assert step in result.stdout
    assert "installed from a local wheel" in result.stdout
    torch_installs = [c for c in calls if "install" in c and "torch==" in c]
    assert "--no-index --no-deps" in torch_installs[0]  # the local wheel, then its dependencies
    assert not any("--index-url" in c for c in torch_installs)
    assert any("-e .[dev]" in c for c in calls)


@pytest.mark.skipif(platform.system() != "Linux", reason="the CPU index is for Linux")
def test_without_a_local_wheel_linux_gets_the_cpu_build(tmp_path: Path) -> None:
    result, calls = run_setup(tmp_path, "3.12", local_torch_wheel=False)
    assert result.returncode == 0, result.stderr
    cpu = [c for c in calls if "torch==2.13.0" in c and "--index-url" in c]
    assert cpu and cpu[0].endswith("--index-url https://download.pytorch.org/whl/cpu")
    install_of_the_package = calls.index(next(c for c in calls if "-e .[dev]" in c))
    assert calls.index(cpu[0]) < install_of_the_package  # torch first: never the CUDA build
