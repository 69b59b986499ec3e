"""The SearchPlan schema: bounded, closed, exported to a committed file that stays current."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from planrag.planner.schema import (
    SCHEMA_FILE,
    SearchPlan,
    TimeFilter,
    Weights,
    llm_json_schema,
    plan_json_schema,
)


def test_exported_schema_file_is_current() -> None:
    committed = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert committed == llm_json_schema(), (
        "planrag/planner/search_plan.schema.json is stale: run "
        "`python -c 'from planrag.planner.schema import export_schema; export_schema()'`"
    )


def _objects(node):  # type: ignore[no-untyped-def]
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item)


def test_llm_schema_is_strict_structured_output_shape() -> None:
    schema = llm_json_schema()
    objects = list(_objects(schema))
    assert len(objects) >= 6  # plan, filters, time, weights, rerank, graph
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert set(obj["required"]) == set(obj["properties"])
    assert "default" not in json.dumps(schema)
    # Same fields and bounds as the pydantic model.
    assert set(schema["properties"]) == set(plan_json_schema()["properties"])
    assert schema["properties"]["top_k"]["maximum"] == 50
    assert "from" in schema["$defs"]["TimeFilter"]["properties"]


@pytest.mark.parametrize(
    "change",
    [
        {"top_k": 51},
        {"top_k": 0},
        {"limit": 21},
        {"threshold": 1.5},
        {"strategy": "sql"},
        {"mode": "admin"},
        {"sort": "random"},
        {"graph": {"enabled": True, "hops": 6}},
        {"unknown_field": 1},
        {"filters": {"time": {"from": "2025/01/01"}}},
        {"filters": {"time": {"from": "2025-02-01", "to": "2025-01-01"}}},
        {"weights": {"chunk": 0.5, "title": 0.6}},
    ],
)
def test_out_of_bounds_plans_are_rejected(change: dict) -> None:
    with pytest.raises(ValidationError):
        SearchPlan.model_validate({**SearchPlan().model_dump(by_alias=True), **change})


def test_time_filter_uses_from_on_the_wire() -> None:
    time = TimeFilter.of("2025-01-01", None, "since January")
    assert time.model_dump(by_alias=True) == {
        "from": "2025-01-01",
        "to": None,
        "expression": "since January",
    }
    assert Weights(chunk=0.7, title=0.3).chunk == 0.7


def test_spec_002_post_mode_is_document_mode() -> None:
    from planrag.planner.policy import parse_plan

    assert SearchPlan.model_validate({"mode": "post"}).mode == "document"
    notes: list[str] = []
    plan = parse_plan('{"mode": "post", "knowledge_bases": []}', notes)
    assert plan.mode == "document" and any("post" in n for n in notes)
