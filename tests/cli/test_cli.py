"""The `planrag` command end to end on one data dir: `kb create` and `ingest` as separate
processes (the installed entry point), the other commands through the same entry point in this
process (`tests/cli/invoke.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.invoke import planrag, planrag_process
from tests.ingest.pdfs import make_pdf

pytestmark = pytest.mark.slow


def test_kb_create_ingest_list_delete(tmp_path: Path) -> None:
    data = tmp_path / "data"
    docs = tmp_path / "docs"
    (docs / "nested").mkdir(parents=True)
    (docs / "guide.md").write_text("# Guide\n\nPress the red button to start.\n")
    (docs / "nested" / "메모.txt").write_bytes("회의는 3시에 시작합니다.".encode("cp949"))
    (docs / "nested" / "scan.pdf").write_bytes(make_pdf(["첫 페이지", "둘째 페이지"]))
    (docs / "nested" / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    (docs / "image.png").write_bytes(b"\x89PNG")  # skipped: not a supported type

    created = planrag_process(data, "kb", "create", "notes", "--chunking", "context_aware")
    assert created.returncode == 0, created.stderr
    kb_id = created.stdout.strip()
    assert len(kb_id) == 36

    duplicate = planrag(data, "kb", "create", "notes")
    assert duplicate.returncode == 1 and "exists" in duplicate.stderr

    ingested = planrag_process(data, "ingest", str(docs), "--kb", "notes")
    assert ingested.returncode == 1, ingested.stderr  # one file failed
    assert "3 of 4 file(s) indexed" in ingested.stderr
    assert "broken.pdf" in ingested.stderr and "not a valid PDF" in ingested.stderr

    again = planrag(data, "ingest", str(docs / "guide.md"), "--kb", "notes")
    assert again.returncode == 0 and "1 of 1 file(s) indexed" in again.stderr

    listed = json.loads(planrag(data, "kb", "list", "--json").stdout)
    assert [(k["name"], k["stats"]["document_count"]) for k in listed] == [("notes", 4)]

    missing = planrag(data, "ingest", str(docs / "guide.md"), "--kb", "nope")
    assert missing.returncode == 1 and "--create" in missing.stderr

    deleted = planrag(data, "kb", "delete", "notes", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert json.loads(planrag(data, "kb", "list", "--json").stdout) == []
