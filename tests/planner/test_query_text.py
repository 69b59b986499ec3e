"""The heuristic plan's search text: the question without its time, sort and count words and
without the particles (Kiwi) or English prepositions those words leave dangling."""

from __future__ import annotations

import pytest

from planrag.core.settings import PlannerSettings
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.query_text import mask, search_text
from tests.planner.test_heuristic import scope

CASES = [
    ("최근 3개월 동안의 인사 규정 변경", "인사 규정 변경"),
    ("최근 사흘간의 환율 동향", "환율 동향"),
    ("지난달에는 무슨 일이 있었나", "무슨 일이 있었나"),
    ("지난주의 회의록", "회의록"),
    ("작년 하반기에 발표된 실적", "발표된 실적"),
    ("반도체 기사 세 건을 보여줘", "반도체"),  # the request and the document type go too
    ("어제 김민수가 쓴 회의록", "김민수가 쓴 회의록"),  # a particle not glued to a removed phrase
    ("9월 반도체 글 2개만 보여줘", "반도체"),
    ("작년 4분기의 영업이익", "영업이익"),
    ("11월 첫째 주에 나온 공지", "나온 공지"),
    ("최신순으로 반도체 뉴스", "반도체"),
    ("news from last month about chips", "chips"),
    ("what happened in the first half of last year?", "what happened?"),
    ("3 most recent posts about the merger", "the merger"),
    ("latest news on AI", "AI"),
    ("reports during the past two weeks about rates", "reports about rates"),
]


@pytest.mark.parametrize("question, query", CASES)
def test_the_search_text_drops_what_the_removed_words_leave(question: str, query: str) -> None:
    plan = HeuristicPlanner(PlannerSettings()).plan(question, scope())
    assert plan.query == query


def test_particles_elsewhere_are_kept() -> None:
    text = "인사 규정의 변경 내용"
    assert search_text(text, mask(text, 0, 0)) == text
    assert search_text("의 인사", mask("의 인사", 0, 0)) == "의 인사"
