"""A date the question names about the world (issue 23): it filters nothing and stays in the
search text; on a knowledge base with documents of that date, their best passages are added
after the others — nothing removed or reordered (`plan.world_time`, `PlanExecutor._dated`)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from planrag.planner.schema import SearchPlan, TimeFilter
from planrag.services.document_listing import DocumentListing
from planrag.services.plan_execution import PlanExecutor
from planrag.stores.catalog import Catalog
from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents

DOCS = [  # (filename, date, text)
    ("a.txt", "2017-07-20", "북한이 대륙간탄도미사일 ICBM 화성-14형을 발사했다. 미사일 발사 소식."),
    ("b.txt", "2017-07-21", "북한 ICBM 미사일 발사에 정부가 긴급 회의를 열었다."),
    ("c.txt", "2017-07-22", "북한 미사일 도발 이후 국제사회의 대북 제재 논의."),
    ("d.txt", "2017-07-28", "정부는 심야에 국가안전보장회의를 소집했다."),  # the day's news
    ("e.txt", "2017-07-25", "폭염 특보가 전국에 내려졌다."),
]
QUESTION = "2017년 7월 28일 북한이 발사한 ICBM은?"


@pytest.fixture
def dated(client: TestClient) -> dict:
    kb = create_kb(client, "worlddate")
    for name, day, text in DOCS:
        response = upload(client, kb["id"], (name, text.encode()), date=day)
        assert response.status_code in (201, 202), response.text
    docs = wait_for_documents(client, kb["id"])
    return {"kb": kb, "ids": {d["filename"]: d["id"] for d in docs}}


def _executor(client: TestClient, extra: int) -> PlanExecutor:
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    listing = DocumentListing(Catalog(runtime.metadata.engine), runtime.metadata)
    return PlanExecutor(runtime.retrieval, 2, listing, world_date_passages=extra)


def test_the_date_adds_passages_after_the_others_and_removes_none(
    client: TestClient, dated: dict
) -> None:
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    kb = runtime.metadata.get_kb(dated["kb"]["id"])
    day = TimeFilter.of("2017-07-28", "2017-07-28", "2017년 7월 28일")
    soft = SearchPlan(strategy="hybrid", knowledge_bases=["worlddate"], world_time=day)
    plain = soft.model_copy(update={"world_time": None})
    without, _ = _executor(client, 2).execute(plain, QUESTION, {kb.name: kb})
    shown, stages = _executor(client, 2).execute(soft, QUESTION, {kb.name: kb})
    first = [(p.doc_id, p.chunk_id) for p in without]
    assert len(without) == 2 and dated["ids"]["d.txt"] not in {p.doc_id for p in without}
    assert [(p.doc_id, p.chunk_id) for p in shown[:2]] == first  # untouched
    assert [p.doc_id for p in shown[2:]] == [dated["ids"]["d.txt"]]  # added after them
    assert [p.n for p in shown] == [1, 2, 3]
    assert any("dated '2017년 7월 28일' added" in note for note in stages.notes)
    off, _ = _executor(client, 0).execute(soft, QUESTION, {kb.name: kb})
    assert [(p.doc_id, p.chunk_id) for p in off] == first  # PLANRAG_ASK__WORLD_DATE_PASSAGES=0


def test_the_plan_route_shows_the_date_as_a_soft_signal(client: TestClient, dated: dict) -> None:
    body = {"question": QUESTION, "now": "2017-08-11T18:00:00+09:00",
            "knowledge_bases": ["worlddate"]}  # fmt: skip
    plan = client.post("/ai/v2/plan", json=body).json()["plan"]
    assert plan["filters"]["time"] is None and plan["query"] is None
    assert plan["world_time"]["from"] == "2017-07-28"
    assert "may add passages (none removed)" in plan["rationale"]
