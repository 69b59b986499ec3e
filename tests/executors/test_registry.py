"""Strategy names are defined once: a toy executor registered in its own module shows up in the
plan schema (and the LLM's structured-output schema), the policy whitelist and `/retrieve`."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from planrag.core.strategies import strategy_names
from planrag.executors.registry import BaseExecutor, register, unregister
from planrag.planner.policy import apply_policy, parse_plan
from planrag.planner.schema import llm_json_schema, plan_json_schema
from planrag.services.ask_requests import PlanRequest
from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def toy() -> Iterator[type[BaseExecutor]]:
    module = importlib.import_module("tests.executors.toy_executor")
    register(module.ToyExecutor)  # again, in case an earlier test withdrew it
    yield module.ToyExecutor
    unregister("toy")


def test_builtin_strategies_in_order() -> None:
    assert strategy_names() == ("ann", "keyword", "bm25", "hybrid", "2-stage")


def test_a_toy_executor_is_one_module(toy: type[BaseExecutor], client: TestClient) -> None:
    assert "toy" in plan_json_schema()["properties"]["strategy"]["enum"]
    assert "toy" in llm_json_schema()["properties"]["strategy"]["enum"]
    notes: list[str] = []
    plan = parse_plan('{"strategy": "toy"}', notes)

    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    assert "toy" in runtime.executors.strategies
    scope = runtime.ask.scope(PlanRequest(question="anything"), [])
    assert "toy" in scope.strategies
    assert apply_policy(plan, scope, scope.now.tzinfo).strategy == "toy"

    openapi = client.get("/openapi.json").json()
    request_schema = openapi["components"]["schemas"]["RetrieveRequest"]
    assert "toy" in request_schema["properties"]["strategy"]["enum"]
    kb = create_kb(client, "toys")
    upload(client, kb["id"], ("a.txt", "공공자전거 요금은 천 원이다.".encode()))
    wait_for_documents(client, kb["id"])
    response = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "자전거", "strategy": "toy"}
    )
    assert response.status_code == 200, response.text
    assert [h["score"] for h in response.json()] == [0.5]


def test_an_unknown_strategy_is_refused(client: TestClient) -> None:
    kb = create_kb(client, "plain")
    response = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "x", "strategy": "toy"}
    )
    assert response.status_code == 422


def test_docs_list_exactly_the_registered_strategies() -> None:
    text = (DOCS / "retrieval.md").read_text(encoding="utf-8")
    table = text.split("| strategy |", 1)[1].split("\n\n", 1)[0]
    documented = re.findall(r"^\| `([^`]+)` \|", table, flags=re.MULTILINE)
    assert documented == list(strategy_names())
