"""What `planrag ask` writes: the answer on stdout always ends with a newline (issue 28), and
`--help` shows no `<bool>` placeholder after a flag."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from planrag.cli.ask import _print_events

END = {"citations": [], "answer_source": "extractive", "trace_id": "t"}
ERROR = {"code": "llm_unavailable", "message": "the LLM stopped"}


def stream(*events: tuple[str, dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield from events


@pytest.mark.parametrize(
    "events",
    [
        [("answer", {"delta": "14일"}), ("answer", {"delta": " 이내 [1]"}), ("end", END)],
        [("answer", {"delta": "14일"}), ("error", ERROR)],  # failed after text was written
        [("answer", {"delta": "14일"})],  # the stream stopped without an end event
    ],
)
def test_the_answer_ends_with_a_newline(capsys, events) -> None:  # type: ignore[no-untyped-def]
    failed = _print_events(stream(*events), as_json=False)
    out = capsys.readouterr().out
    assert out.startswith("14일") and out.endswith("\n") and not out.endswith("\n\n")
    assert failed == (events[-1][0] == "error")


def test_an_empty_answer_prints_no_blank_line(capsys) -> None:  # type: ignore[no-untyped-def]
    assert _print_events(stream(("end", END)), as_json=False) is False
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "command", [[], ["ask"], ["serve"], ["ingest"], ["kb", "delete"], ["keys", "create"]]
)
def test_help_shows_no_bool_placeholder(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "planrag.cli.main", *command, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "--help" in result.stdout
    assert "<bool>" not in result.stdout
