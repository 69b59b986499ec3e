"""Questions that name a period, author or order but no topic plan a listing (documents by date)
instead of a text search for words like "기사" that rarely occur in the documents."""

from __future__ import annotations

import pytest

from planrag.core.settings import PlannerSettings
from planrag.planner.heuristic import HeuristicPlanner
from tests.planner.test_heuristic import scope

LISTED = [
    "어제 나온 기사 알려줘",
    "지난주 글 보여줘",
    "9월 글 2개만 보여줘",
    "최근 기사 5개",
    "연합뉴스가 쓴 기사 보여줘",
    "어제 올라온 글 전부",
    "그제와 어제 기사",
    "11월 첫째 주 뉴스 목록",
    "show me yesterday's articles",
    "what was published last week?",
    "news from last month",
    "the 3 most recent posts",
    "articles by Reuters",
]
SEARCHED = [
    "어제 반도체 기사 알려줘",
    "메타버스 기사 최신순으로 1개",
    "news from last month about rates",
    "latest news on AI",
    "2019년 메타버스 기사",
    "환율 전망",
    '"사드 배치" 기사',  # a quoted phrase is a topic
]


@pytest.mark.parametrize("question", LISTED)
def test_no_topic_lists_documents(question: str) -> None:
    plan = HeuristicPlanner(PlannerSettings()).plan(question, scope())
    assert plan.listing, plan.rationale
    assert plan.mode == "rag" and "list the documents" in plan.rationale


@pytest.mark.parametrize("question", SEARCHED)
def test_a_topic_is_searched(question: str) -> None:
    assert not HeuristicPlanner(PlannerSettings()).plan(question, scope()).listing


def test_document_mode_never_lists() -> None:
    plan = HeuristicPlanner(PlannerSettings()).plan("어제 나온 기사", scope(doc_id="d1"))
    assert plan.mode == "document" and not plan.listing


def test_policy_keeps_a_listing_out_of_document_mode() -> None:
    from zoneinfo import ZoneInfo

    from planrag.planner.policy import apply_policy
    from planrag.planner.schema import SearchPlan

    seoul = ZoneInfo("Asia/Seoul")
    listed = SearchPlan(knowledge_bases=["news"], listing=True)
    assert apply_policy(listed, scope(), seoul).listing
    assert not apply_policy(listed, scope(doc_id="d1"), seoul).listing
