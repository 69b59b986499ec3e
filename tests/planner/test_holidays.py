"""Holidays and fuzzy periods (planrag/planner/holidays.py; conventions in docs/planner.md)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from planrag.core.settings import PlannerSettings
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.holidays import lunar_to_solar
from planrag.planner.time_range import resolve
from tests.planner.test_heuristic import scope

NOW = datetime(2025, 11, 21, 10, 0, tzinfo=ZoneInfo("Asia/Seoul"))

CASES = [
    ("추석 연휴 기사", "2025-10-05", "2025-10-07"),  # Chuseok 2025 is October 6
    ("추석 연휴 직전 기사", "2025-09-28", "2025-10-04"),  # the seven days before the holiday
    ("작년 추석 연휴 뉴스", "2024-09-16", "2024-09-18"),
    ("2024년 설날 기사", "2024-02-10", "2024-02-10"),
    ("설 연휴 직후 올라온 글", "2025-01-31", "2025-02-06"),  # Seollal 2025 is January 29
    ("2017년 추석 연휴 기사", "2017-10-03", "2017-10-05"),
    ("작년 연말 보고서", "2024-12-01", "2024-12-31"),
    ("올해 연초 공지", "2025-01-01", "2025-01-31"),
    ("작년 이맘때 기사", "2024-11-14", "2024-11-28"),
    ("this time last year news", "2024-11-14", "2024-11-28"),
    ("mid-March 2024 news", "2024-03-11", "2024-03-20"),
    ("articles from early March 2025", "2025-03-01", "2025-03-10"),
    ("late February 2024 posts", "2024-02-21", "2024-02-29"),
    ("the end of March 2023 reports", "2023-03-21", "2023-03-31"),
    ("10월 하순 기사", "2025-10-21", "2025-10-31"),
    ("9월 초순 회의록", "2025-09-01", "2025-09-10"),
]


@pytest.mark.parametrize("question, start, end", CASES)
def test_holidays_and_fuzzy_periods(question: str, start: str, end: str) -> None:
    found = resolve(question, NOW)
    assert found is not None and found.iso() == (start, end)
    plan = HeuristicPlanner(PlannerSettings()).plan(question, scope())
    assert plan.filters.time is not None, plan.rationale  # each names documents or is relative


def test_a_holiday_in_a_question_about_the_world_is_no_filter() -> None:
    plan = HeuristicPlanner(PlannerSettings()).plan("추석에 먹는 전통 음식은?", scope())
    assert plan.filters.time is None and plan.query is None
    assert resolve("설명해줘", NOW) is None and resolve("전설의 동물", NOW) is None


@pytest.mark.parametrize(
    "lunar, year, solar",
    [
        ((8, 15), 2024, "2024-09-17"),  # 추석 2024
        ((1, 1), 2025, "2025-01-29"),  # 설날 2025
        ((8, 15), 2017, "2017-10-04"),
        ((1, 1), 2026, "2026-02-17"),
        ((8, 15), 2035, "2035-09-16"),  # past the table the planner used to carry (2015–2030)
        ((1, 1), 2010, "2010-02-14"),
    ],
)
def test_lunar_dates_come_from_the_kari_tables(
    lunar: tuple[int, int], year: int, solar: str
) -> None:
    assert str(lunar_to_solar(year, *lunar)) == solar


def test_any_year_of_the_calendar_and_none_past_it() -> None:
    found = resolve("2035년 추석 연휴 기사", NOW)
    assert found is not None and found.iso() == ("2035-09-15", "2035-09-17")
    assert lunar_to_solar(2051, 1, 1) is None  # past the KARI tables: no date is made up
    found = resolve("2051년 설날 기사", NOW)
    assert found is None or "설" not in found.expression  # the year alone, not a made-up 설날
