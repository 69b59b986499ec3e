"""Document time vs. world time (issue 23): a time, count or order becomes a filter only when it is
about the documents; the search text keeps every other word."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from planrag.core.settings import PlannerSettings
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.policy import apply_policy
from planrag.planner.scope import PlanScope
from tests.planner.test_heuristic import scope

SEOUL = ZoneInfo("Asia/Seoul")

PLANNER = HeuristicPlanner(PlannerSettings())

# Questions about the world: no filter, no sort, no limit, the search text untouched.
WORLD = [
    "1989년 6월 30일 평양축전에 대표로 파견 된 인물은?",
    "1995년에 발표된 서태지와 아이들의 앨범 이름은?",
    "2002년 월드컵에서 한국의 최종 순위는?",
    "한 건물에 여러 가구가 사는 주택 구조는?",
    "두 가지 전통이 합쳐진 축제는?",
    "15개 나라가 참가한 회의의 이름은?",
    "누리봇 S2 개발을 총괄한 사람은?",
    "아이폰 15 개봉기에서 지적된 단점은?",
    "한국에서 가장 오래된 아파트는?",
    "가장 최근에 개봉한 마블 영화는?",
    "5월 18일에 일어난 민주화 운동의 이름은?",
    "세 건의 조약 중 마지막으로 체결된 것은?",
    "What novel published in 1951 won the prize?",
    "Which team won the 1998 World Cup?",
    "the oldest university in Europe",
    "top speed of the 2020 Tesla Model 3",
]


@pytest.mark.parametrize("question", WORLD)
def test_a_question_about_the_world_is_searched_as_asked(question: str) -> None:
    plan = PLANNER.plan(question, scope())
    assert plan.filters.time is None, plan.rationale
    assert (plan.sort, plan.limit, plan.listing) == ("relevance", None, False), plan.rationale
    assert plan.query is None, plan.query  # None: the question itself is searched


# question, (from, to) or None, sort, limit, search text (None: the question itself)
DOCUMENTS = [
    ("2024년 3월 15일 메타버스 뉴스", ("2024-03-15", "2024-03-15"), "relevance", None, "메타버스"),
    ("1989년 기사 중 평양축전 관련 기사", ("1989-01-01", "1989-12-31"), "relevance", None,
     "평양축전 관련"),
    ("작년 인사 규정", ("2024-01-01", "2024-12-31"), "relevance", None, "인사 규정"),
    ("가장 오래된 문서 보여줘", None, "oldest", None, None),
    ("가장 최근 3개", None, "newest", 3, None),
    ("반도체 기사 5건 보여줘", None, "relevance", 5, "반도체"),
    ("top 5 posts about chips", None, "relevance", 5, "chips"),
    ("between March 1 and March 15, 2024", ("2024-03-01", "2024-03-15"), "relevance", None, None),
    ("2023년에 올라온 보안 공지", ("2023-01-01", "2023-12-31"), "relevance", None, "보안 공지"),
]  # fmt: skip


@pytest.mark.parametrize("question, time, sort, limit, query", DOCUMENTS)
def test_a_question_about_documents_filters_them(question, time, sort, limit, query) -> None:  # type: ignore[no-untyped-def]
    plan = PLANNER.plan(question, scope())
    got = plan.filters.time
    assert (None if got is None else (got.from_, got.to)) == time, plan.rationale
    assert (plan.sort, plan.limit) == (sort, limit), plan.rationale
    if query is not None:
        assert plan.query == query


def test_the_rationale_says_why() -> None:
    world = PLANNER.plan("1989년 6월 30일 평양축전에 대표로 파견 된 인물은?", scope())
    assert "dates the world" in world.rationale
    assert "documents named ('뉴스')" in PLANNER.plan("2024년 반도체 뉴스", scope()).rationale
    assert "relative to today" in PLANNER.plan("지난주 반도체 동향", scope()).rationale


def test_author_names_that_became_filters_leave_the_search_text() -> None:
    plan = PLANNER.plan("연합뉴스 반도체 기사 보여줘", scope())
    assert plan.filters.authors == ["연합뉴스"]
    assert plan.query == "반도체"


def test_words_are_removed_by_morpheme_not_by_substring() -> None:
    # "한 건" is not inside "한 건물"; "S2 개" is not a count inside "S2 개발"
    assert PLANNER.plan("반도체 기사 한 건만 보여줘", scope()).query == "반도체"
    plan = PLANNER.plan("지난주 누리봇 S2 개발 기사", scope())
    assert plan.limit is None and plan.query == "누리봇 S2 개발"


def test_a_relaxed_time_filter_gives_its_words_back_to_the_search_text() -> None:
    from planrag.planner.relaxation import relax

    plan = PLANNER.plan("1989년 평양축전 기사", scope())
    assert plan.filters.time is not None and plan.query == "평양축전"
    relaxed, why = relax(plan, scope(), lambda p, s: 0 if p.filters.time else 5)
    assert why is not None and relaxed.filters.time is None
    assert relaxed.query == "1989년 평양축전"


def test_decades_and_future_years() -> None:
    plan = PLANNER.plan("1960년대 투자은행 관련 기사", scope())
    assert plan.filters.time is not None
    assert (plan.filters.time.from_, plan.filters.time.to) == ("1960-01-01", "1969-12-31")
    assert plan.query == "투자은행 관련"
    future = PLANNER.plan("2028년부터 시행되는 제도 관련 기사", scope())  # never an invalid range
    assert future.filters.time is not None and future.filters.time.to is None


def test_this_week_s_x_is_the_week_as_in_korean_but_today_s_x_is_nowadays() -> None:
    korean = PLANNER.plan("이번 주 보안 사고", scope()).filters.time
    english = PLANNER.plan("this week's security incidents", scope())
    assert korean is not None and english.filters.time is not None, english.rationale
    assert (english.filters.time.from_, english.filters.time.to) == (korean.from_, korean.to)
    assert english.query == "security incidents"
    report = PLANNER.plan("last month's sales report", scope())
    assert report.filters.time is not None and report.query == "sales report"
    nowadays = PLANNER.plan("today's libraries face budget cuts", scope())
    assert nowadays.filters.time is None and nowadays.query is None


def test_a_long_question_plans_with_the_search_text_s_own_limit() -> None:
    # allowed when PLANRAG_ASK__MAX_QUESTION_CHARS is raised (CISI's queries reach 2,023)
    question = "지난주 반도체 기사 보여줘 " + "반도체 시장 동향과 전망에 대한 분석 " * 150
    plan = PLANNER.plan(question, scope())
    assert plan.filters.time is not None and plan.query is not None
    assert len(plan.query) == 2000 and plan.query.startswith("반도체")


def _dated(first: str | None, last: str | None) -> PlanScope:
    at = scope(names=("news",))
    kb = at.knowledge_bases[0]
    facets = kb.facets.model_copy(update={"date_from": first, "date_to": last})
    return at.model_copy(update={"knowledge_bases": [kb.model_copy(update={"facets": facets})]})


def test_a_date_of_the_world_is_a_soft_signal_where_documents_are_dated_then() -> None:
    question = "2017년 7월 28일 북한이 발사한 ICBM은?"
    dated = _dated("2017-07-21", "2017-08-11")
    plan = apply_policy(PLANNER.plan(question, dated), dated, SEOUL)
    assert plan.filters.time is None and plan.query is None  # nothing filtered or rewritten
    assert plan.world_time is not None
    assert (plan.world_time.from_, plan.world_time.to) == ("2017-07-28", "2017-07-28")
    assert "may add passages (none removed)" in plan.rationale
    for elsewhere in (_dated(None, None), _dated("2020-01-01", "2024-12-31")):  # no such dates
        assert apply_policy(PLANNER.plan(question, elsewhere), elsewhere, SEOUL).world_time is None
    # a date that scopes documents is a filter, not a soft signal
    news = apply_policy(PLANNER.plan("2017년 7월 28일 북한 기사", dated), dated, SEOUL)
    assert news.filters.time is not None and news.world_time is None
