"""Setting up and starting the server prints nothing a user cannot act on (issue 28): no
setuptools licence deprecation, no faiss "Could not load library with AVX512", and the last
setup line names the address `make run` serves."""

from __future__ import annotations

import io
import logging
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.telemetry import configure_logging

ROOT = Path(__file__).resolve().parents[2]


def test_the_licence_is_an_spdx_string_for_a_setuptools_that_reads_it() -> None:
    """A TOML table licence makes setuptools >= 77 print a deprecation box on every install."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in project["build-system"]["requires"]


@pytest.fixture
def root_logging() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    stream = io.StringIO()
    yield stream
    root.handlers[:], level = saved
    root.setLevel(level)
    for name in ("faiss", "faiss.loader"):
        logging.getLogger(name).setLevel(logging.NOTSET)


def test_faiss_loader_chatter_is_not_logged(root_logging: io.StringIO) -> None:
    configure_logging("INFO")
    logging.getLogger().handlers[0].setStream(root_logging)  # type: ignore[attr-defined]
    logging.getLogger("faiss.loader").info("Could not load library with AVX512 support")
    logging.getLogger("faiss.loader").warning("a real faiss problem")
    logging.getLogger("planrag.app").info("planrag says")
    logged = root_logging.getvalue()
    assert "AVX512" not in logged
    assert "a real faiss problem" in logged and "planrag says" in logged


def test_the_last_setup_line_names_the_port_make_run_uses(tmp_path: Path) -> None:
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".installed").touch()  # both stamps newer than their sources
    (tmp_path / "web" / "dist").mkdir(parents=True)
    (tmp_path / "web" / "dist" / ".built").touch()
    result = subprocess.run(
        ["make", "--no-print-directory", "setup", "PORT=8123", "HOST=0.0.0.0"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip().splitlines()[-1] == (
        "setup: done. Next: make run (serves http://0.0.0.0:8123) or make test"
    )


def test_the_readme_says_what_make_test_needs_and_links_nothing_outside_the_clone() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "../shared" not in readme  # a user's clone has nothing beside it
    needs = readme[readme.index("`make test` needs more") :][:800]
    assert "Node.js ≥ 20.19" in needs and "chromium" in needs and ".ci/run" in needs
    assert "fail" in needs  # what happens without them
