"""The CLI beside a running server (it goes through the server's HTTP API instead of failing on
the Milvus Lite lock), from another folder (never inventing an empty ./data), with bad settings
(one line naming the setting), and `kb list` never cutting ids."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from planrag.app.main import create_app
from planrag.cli.discovery import read_record, remove_record, write_record
from planrag.core.settings import Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.servers import serve

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PLANRAG_")}
    return subprocess.run(
        [sys.executable, "-m", "planrag.cli.main", *args],
        env={**clean, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def server(tmp_path: Path, embedders: EmbedderRegistry) -> Iterator[tuple[str, Path]]:
    """A real server on a port, holding the data dir's Milvus Lite, announced in the data dir
    as `planrag serve` does."""
    data_dir = tmp_path / "server-data"
    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    with serve(create_app(settings, embedders)) as url:
        port = int(url.rsplit(":", 1)[1])
        write_record(data_dir, "127.0.0.1", port)
        try:
            yield url, data_dir
        finally:
            remove_record(data_dir)


def test_commands_go_through_the_running_server(server: tuple[str, Path], tmp_path: Path) -> None:
    url, data_dir = server
    assert read_record(data_dir) is not None
    env = {"PLANRAG_DATA_DIR": str(data_dir)}
    created = run("kb", "create", "team-docs", cwd=tmp_path, **env)
    assert created.returncode == 0, created.stderr
    kb_id = created.stdout.strip()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "leave.md").write_text(
        "---\nauthor: 김민수\ndate: 2025-11-20\ntags: [hr]\n---\n"
        "# 휴가\n\n연차 휴가는 15일입니다.\n"
    )
    (notes / "photo.png").write_bytes(b"\x89PNG")
    ingested = run("ingest", str(notes), "--kb", kb_id, "--tag", "policy", cwd=tmp_path, **env)
    assert ingested.returncode == 0, ingested.stderr
    assert "1 of 1 file(s) indexed" in ingested.stderr
    assert "skipped" in ingested.stderr and "photo.png" in ingested.stderr

    docs = httpx.get(f"{url}/api/knowledge-bases/team-docs/documents").json()
    metadata = [d["metadata"] for d in docs]
    assert [(m["author"], m["date"], sorted(m["tags"])) for m in metadata] == [
        ("김민수", "2025-11-20", ["hr", "policy"])
    ]
    listed = json.loads(run("kb", "list", "--json", cwd=tmp_path, **env).stdout)
    assert [(k["id"], k["stats"]["document_count"]) for k in listed] == [(kb_id, 1)]
    plan = run("plan", "연차 휴가", "--kb", kb_id, "--json", cwd=tmp_path, **env)
    assert plan.returncode == 0, plan.stderr
    assert json.loads(plan.stdout)["plan"]["knowledge_bases"] == ["team-docs"]
    asked = run("ask", "연차 휴가는 며칠?", "--kb", "team-docs", cwd=tmp_path, **env)
    assert asked.returncode == 0, asked.stderr
    assert "15일" in asked.stdout

    elsewhere = run("kb", "list", "--json", cwd=tmp_path, PLANRAG_SERVER_URL=url)
    assert [k["name"] for k in json.loads(elsewhere.stdout)] == ["team-docs"]
    assert not (tmp_path / "data").exists()  # the server's data dir is elsewhere


def test_from_another_folder_nothing_is_invented(tmp_path: Path) -> None:
    listed = run("kb", "list", cwd=tmp_path)
    assert listed.returncode == 2
    lines = listed.stderr.strip().splitlines()
    assert len(lines) == 1 and "no data dir" in lines[0] and "PLANRAG_DATA_DIR" in lines[0]
    assert not (tmp_path / "data").exists()
    asked = run("ask", "hello", cwd=tmp_path)
    assert asked.returncode == 2 and not (tmp_path / "data").exists()


def test_configuration_errors_are_one_line_naming_the_setting(tmp_path: Path) -> None:
    auth = run("serve", cwd=tmp_path, PLANRAG_AUTH__ENABLED="true")
    assert auth.returncode == 2
    assert len(auth.stderr.strip().splitlines()) == 1, auth.stderr
    assert "PLANRAG_AUTH__SECRET_KEY" in auth.stderr and "Traceback" not in auth.stderr
    bad = run("kb", "list", cwd=tmp_path, PLANRAG_INGEST__MAX_UPLOAD_MB="-1")
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "PLANRAG_INGEST__MAX_UPLOAD_MB" in bad.stderr


def test_kb_list_never_cuts_ids(tmp_path: Path) -> None:
    env = {"PLANRAG_DATA_DIR": str(tmp_path / "data")}
    kb_id = run("kb", "create", "a-knowledge-base-with-a-long-name", cwd=tmp_path, **env).stdout
    listed = run("kb", "list", cwd=tmp_path, COLUMNS="40", **env)
    assert listed.returncode == 0, listed.stderr
    assert kb_id.strip() in listed.stdout
