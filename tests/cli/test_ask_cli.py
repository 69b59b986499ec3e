"""`planrag plan`, `planrag ask`, `keys` and `users` on one data dir: the first call of each
family as a separate process (the installed entry point), the others through the same entry point
in this process (`tests/cli/invoke.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.invoke import planrag, planrag_process

pytestmark = pytest.mark.slow


def test_plan_prints_the_envelope_as_json(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert planrag(data, "kb", "create", "news").returncode == 0
    result = planrag_process(
        data, "plan", "지난주 뉴스 2개만", "--now", "2025-11-21T10:00:00+09:00", "--json"
    )
    assert result.returncode == 0, result.stderr
    envelope = json.loads(result.stdout)
    assert envelope["source"] == "heuristic"
    assert envelope["plan"]["filters"]["time"] == {
        "from": "2025-11-10",
        "to": "2025-11-16",
        "expression": "지난주",
    }
    assert envelope["plan"]["limit"] == 2 and envelope["plan"]["knowledge_bases"] == ["news"]
    bad = planrag(data, "plan", "x", "--now", "yesterday")
    assert bad.returncode != 0 and "ISO 8601" in bad.stderr
    missing = planrag(data, "plan", "x", "--kb", "nope")
    assert missing.returncode == 1 and "not found" in missing.stderr


def test_ask_streams_an_extractive_answer_with_sources(tmp_path: Path) -> None:
    data = tmp_path / "data"
    doc = tmp_path / "refund.md"
    doc.write_text(
        "# 환불 규정\n\n구매 후 14일 이내에는 전액 환불됩니다. 배송비는 고객 부담입니다.\n"
    )
    assert planrag(data, "ingest", str(doc), "--kb", "policy", "--create").returncode == 0
    result = planrag_process(data, "ask", "환불은 며칠 이내에 가능한가요?", "--kb", "policy")
    assert result.returncode == 0, result.stderr
    assert "14일" in result.stdout and "[1]" in result.stdout
    assert "refund.md" in result.stderr or "환불 규정" in result.stderr
    assert "answer: extractive" in result.stderr
    lines = planrag(data, "ask", "환불 규정", "--kb", "policy", "--json").stdout.splitlines()
    assert [json.loads(line)["event"] for line in lines][0] == "search_plan"
    assert json.loads(lines[-1])["event"] == "end"


def test_keys_and_users_commands(tmp_path: Path) -> None:
    data = tmp_path / "data"
    created = planrag_process(data, "keys", "create", "reporting", "--kb", "news")
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    assert key.startswith("prk_") and "store it now" in created.stderr
    listed = json.loads(planrag(data, "keys", "list", "--json").stdout)
    assert [(k["name"], k["knowledge_bases"], k["revoked_at"]) for k in listed] == [
        ("reporting", ["news"], None)
    ]
    assert key not in json.dumps(listed)
    assert planrag(data, "keys", "revoke", listed[0]["prefix"]).returncode == 0
    assert json.loads(planrag(data, "keys", "list", "--json").stdout)[0]["revoked_at"]
    assert planrag(data, "keys", "revoke", "nope").returncode == 1
    user = planrag_process(
        data, "users", "create", "kim", "--password-stdin", stdin="long-password\n"
    )
    assert user.returncode == 0, user.stderr
    short = planrag(data, "users", "create", "lee", "--password-stdin", stdin="short\n")
    assert short.returncode == 1 and "8 characters" in short.stderr
    users = json.loads(planrag(data, "users", "list", "--json").stdout)
    assert [(u["username"], u["disabled"]) for u in users] == [("kim", False)]
    assert planrag(data, "users", "disable", "kim").returncode == 0
