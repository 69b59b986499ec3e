"""`filters.tags` is applied on every path: the retrieve API, a plan's execution and the
planner's relax count (one filter model from plan to store)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from planrag.planner.schema import Filters, SearchPlan
from planrag.services.ask import document_counter
from planrag.services.ask_requests import PlanRequest
from planrag.services.document_listing import DocumentListing
from planrag.services.plan_execution import PlanExecutor
from planrag.stores.catalog import Catalog
from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents

TEXT = "공공자전거 따릉이 요금은 한 시간에 천 원이다. Bike rental costs one thousand won."


@pytest.fixture
def tagged(client: TestClient) -> dict:
    kb = create_kb(client, "tagged")
    for name, tags in (("a.txt", "Finance,seoul"), ("b.txt", "sports"), ("c.txt", "")):
        response = upload(client, kb["id"], (name, f"{TEXT} ({name})".encode()), tags=tags)
        assert response.status_code in (201, 202), response.text
    docs = wait_for_documents(client, kb["id"])
    return {"kb": kb, "ids": {d["filename"]: d["id"] for d in docs}}


@pytest.mark.parametrize("strategy", ["ann", "bm25", "hybrid", "keyword"])
def test_retrieve_applies_tags(client: TestClient, tagged: dict, strategy: str) -> None:
    url = f"/api/knowledge-bases/{tagged['kb']['id']}/retrieve"
    body = {"query": "자전거 요금", "strategy": strategy, "top_k": 10}
    everything = client.post(url, json=body).json()
    assert {h["doc_id"] for h in everything} == set(tagged["ids"].values())
    only = client.post(url, json={**body, "filters": {"tags": ["finance", "nope"]}})
    assert only.status_code == 200, only.text
    assert {h["doc_id"] for h in only.json()} == {tagged["ids"]["a.txt"]}
    none = client.post(url, json={**body, "filters": {"tags": ["nope"]}})
    assert none.status_code == 200 and none.json() == []


def test_a_plan_applies_tags_and_counts_them(client: TestClient, tagged: dict) -> None:
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    kb = runtime.metadata.get_kb(tagged["kb"]["id"])
    plan = SearchPlan(
        strategy="hybrid", knowledge_bases=["tagged"], filters=Filters(tags=["SPORTS"])
    )
    catalog = Catalog(runtime.metadata.engine)
    executor = PlanExecutor(runtime.retrieval, 8, DocumentListing(catalog, runtime.metadata))
    passages, _ = executor.execute(plan, "자전거 요금", {kb.name: kb})
    assert {p.doc_id for p in passages} == {tagged["ids"]["b.txt"]}

    scope = runtime.ask.scope(PlanRequest(question="자전거"), [kb])
    count = document_counter(Catalog(runtime.metadata.engine))
    assert count(plan, scope) == 1
    unknown = plan.model_copy(update={"filters": Filters(tags=["nope"])})
    assert count(unknown, scope) == 0
