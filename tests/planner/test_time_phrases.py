"""The calendar module on phrasings added for new users (issue 16), table by table:
Korean native day counts, English halves/quarters of a year, English periods counted back,
unions of two periods, ordinal weeks of a month. Expected dates worked out by hand."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from planrag.planner.time_phrases import week_of_month
from planrag.planner.time_range import SEOUL, resolve

FRI = "2025-11-21T10:00"  # a Friday; that week's Monday is 2025-11-17


def at(iso: str) -> datetime:
    return datetime.fromisoformat(iso).replace(tzinfo=SEOUL)


# (question, now, from, to)
NATIVE_DAYS = [
    ("최근 하루", FRI, "2025-11-21", "2025-11-21"),
    ("하루 동안 올라온 글", FRI, "2025-11-21", "2025-11-21"),
    ("최근 이틀", FRI, "2025-11-20", "2025-11-21"),
    ("이틀간 기사", FRI, "2025-11-20", "2025-11-21"),
    ("지난 이틀 동안", FRI, "2025-11-20", "2025-11-21"),
    ("최근 사흘", FRI, "2025-11-19", "2025-11-21"),
    ("사흘 동안 나온 뉴스", FRI, "2025-11-19", "2025-11-21"),
    ("최근 사흘간 기사", FRI, "2025-11-19", "2025-11-21"),
    ("최근 나흘", FRI, "2025-11-18", "2025-11-21"),
    ("나흘간의 기록", FRI, "2025-11-18", "2025-11-21"),
    ("최근 닷새", FRI, "2025-11-17", "2025-11-21"),
    ("닷새 동안", FRI, "2025-11-17", "2025-11-21"),
    ("최근 엿새", FRI, "2025-11-16", "2025-11-21"),
    ("엿새간", FRI, "2025-11-16", "2025-11-21"),
    ("최근 이레", FRI, "2025-11-15", "2025-11-21"),
    ("이레 동안 공지", FRI, "2025-11-15", "2025-11-21"),
    ("최근 여드레", FRI, "2025-11-14", "2025-11-21"),
    ("최근 아흐레", FRI, "2025-11-13", "2025-11-21"),
    ("최근 열흘", FRI, "2025-11-12", "2025-11-21"),
    ("열흘간 주요 뉴스", FRI, "2025-11-12", "2025-11-21"),
    ("지난 열흘 동안 나온 공지", FRI, "2025-11-12", "2025-11-21"),
    ("최근 보름", FRI, "2025-11-07", "2025-11-21"),
    ("보름 동안", FRI, "2025-11-07", "2025-11-21"),
    ("지난 보름간 회의록", FRI, "2025-11-07", "2025-11-21"),
    ("하루 전", FRI, "2025-11-20", "2025-11-20"),
    ("이틀 전", FRI, "2025-11-19", "2025-11-19"),
    ("사흘 전 기사", FRI, "2025-11-18", "2025-11-18"),
    ("나흘 전에 올라온 글", FRI, "2025-11-17", "2025-11-17"),
    ("닷새 전", FRI, "2025-11-16", "2025-11-16"),
    ("열흘 전 보도", FRI, "2025-11-11", "2025-11-11"),
    ("보름 전", FRI, "2025-11-06", "2025-11-06"),
    ("최근 석 달", FRI, "2025-08-22", "2025-11-21"),
    ("석 달 동안", FRI, "2025-08-22", "2025-11-21"),
    ("지난 넉 달간", FRI, "2025-07-22", "2025-11-21"),
    ("석 달 전", FRI, "2025-08-01", "2025-08-31"),
    ("넉 달 전 보고서", FRI, "2025-07-01", "2025-07-31"),
    ("최근 반년", FRI, "2025-05-22", "2025-11-21"),
    ("반년 동안", FRI, "2025-05-22", "2025-11-21"),
    # across month and year ends, and a leap day
    ("최근 사흘", "2025-01-02T09:00", "2024-12-31", "2025-01-02"),
    ("보름 전", "2025-01-02T09:00", "2024-12-18", "2024-12-18"),
    ("최근 열흘", "2025-01-02T09:00", "2024-12-24", "2025-01-02"),
    ("이틀 전", "2024-03-01T09:00", "2024-02-28", "2024-02-28"),
    ("최근 나흘", "2024-03-01T09:00", "2024-02-27", "2024-03-01"),
]

EN_YEAR_PERIODS = [
    ("the first half of last year", FRI, "2024-01-01", "2024-06-30"),
    ("the second half of last year", FRI, "2024-07-01", "2024-12-31"),
    ("first half of this year", FRI, "2025-01-01", "2025-06-30"),
    ("the second half of this year", FRI, "2025-07-01", "2025-11-21"),
    ("second half of 2022", FRI, "2022-07-01", "2022-12-31"),
    ("H1 of last year", FRI, "2024-01-01", "2024-06-30"),
    ("H2 last year", FRI, "2024-07-01", "2024-12-31"),
    ("2024 H2 results", FRI, "2024-07-01", "2024-12-31"),
    ("last year's first half", FRI, "2024-01-01", "2024-06-30"),
    ("this year's second half", FRI, "2025-07-01", "2025-11-21"),
    ("the latter half of 2023", FRI, "2023-07-01", "2023-12-31"),
    ("the back half of last year", FRI, "2024-07-01", "2024-12-31"),
    ("the first six months of 2024", FRI, "2024-01-01", "2024-06-30"),
    ("the last six months of last year", FRI, "2024-07-01", "2024-12-31"),
    ("Q3 2023", FRI, "2023-07-01", "2023-09-30"),
    ("Q3 of last year", FRI, "2024-07-01", "2024-09-30"),
    ("Q1 this year", FRI, "2025-01-01", "2025-03-31"),
    ("q2 of 2022", FRI, "2022-04-01", "2022-06-30"),
    ("2023 Q4 earnings", FRI, "2023-10-01", "2023-12-31"),
    ("2021-Q1", FRI, "2021-01-01", "2021-03-31"),
    ("the last quarter of 2022", FRI, "2022-10-01", "2022-12-31"),
    ("the final quarter of last year", FRI, "2024-10-01", "2024-12-31"),
    ("the fourth quarter of last year", FRI, "2024-10-01", "2024-12-31"),
    ("the third quarter of last year", FRI, "2024-07-01", "2024-09-30"),
    ("the first quarter of this year", FRI, "2025-01-01", "2025-03-31"),
    ("the second quarter of 2024", FRI, "2024-04-01", "2024-06-30"),
    ("the 3rd quarter of 2021", FRI, "2021-07-01", "2021-09-30"),
    ("last year's Q4", FRI, "2024-10-01", "2024-12-31"),
    ("last year's fourth quarter", FRI, "2024-10-01", "2024-12-31"),
    ("the first three months of 2024", FRI, "2024-01-01", "2024-03-31"),
    ("the first quarter of the previous year", FRI, "2024-01-01", "2024-03-31"),
    ("Q2 of the year before last", FRI, "2023-04-01", "2023-06-30"),
    ("revenue in the second half of the current year", FRI, "2025-07-01", "2025-11-21"),
    ("the last quarter of last year", "2025-02-10T09:00", "2024-10-01", "2024-12-31"),
    ("the first half of this year", "2025-02-10T09:00", "2025-01-01", "2025-02-10"),
]

EN_COUNTED_BACK = [
    ("two weeks ago", FRI, "2025-11-03", "2025-11-09"),
    ("3 weeks ago", FRI, "2025-10-27", "2025-11-02"),
    ("three weeks ago", FRI, "2025-10-27", "2025-11-02"),
    ("4 weeks ago", FRI, "2025-10-20", "2025-10-26"),
    ("a couple of weeks ago", FRI, "2025-11-03", "2025-11-09"),
    ("couple weeks ago", FRI, "2025-11-03", "2025-11-09"),
    ("two weeks back", FRI, "2025-11-03", "2025-11-09"),
    ("a fortnight ago", FRI, "2025-11-03", "2025-11-09"),
    ("the week before last", FRI, "2025-11-03", "2025-11-09"),
    ("2 months ago", FRI, "2025-09-01", "2025-09-30"),
    ("two months ago", FRI, "2025-09-01", "2025-09-30"),
    ("3 months ago", FRI, "2025-08-01", "2025-08-31"),
    ("six months ago", FRI, "2025-05-01", "2025-05-31"),
    ("11 months ago", FRI, "2024-12-01", "2024-12-31"),
    ("twelve months ago", FRI, "2024-11-01", "2024-11-30"),
    ("a couple of months ago", FRI, "2025-09-01", "2025-09-30"),
    ("three months back", FRI, "2025-08-01", "2025-08-31"),
    ("the month before last", FRI, "2025-09-01", "2025-09-30"),
    ("two years ago", FRI, "2023-01-01", "2023-12-31"),
    ("the year before last", FRI, "2023-01-01", "2023-12-31"),
    ("2 days ago", FRI, "2025-11-19", "2025-11-19"),
    ("the past two weeks", FRI, "2025-11-08", "2025-11-21"),
    ("the last three weeks", FRI, "2025-11-01", "2025-11-21"),
    ("the previous two months", FRI, "2025-09-22", "2025-11-21"),
    ("over the last 3 months", FRI, "2025-08-22", "2025-11-21"),
    ("the past couple of weeks", FRI, "2025-11-08", "2025-11-21"),
    ("the last couple of months", FRI, "2025-09-22", "2025-11-21"),
    ("the past fortnight", FRI, "2025-11-08", "2025-11-21"),
    ("in the past four weeks", FRI, "2025-10-25", "2025-11-21"),
    ("two weeks ago", "2025-01-08T09:00", "2024-12-23", "2024-12-29"),
    ("2 months ago", "2025-01-08T09:00", "2024-11-01", "2024-11-30"),
    ("the month before last", "2025-01-08T09:00", "2024-11-01", "2024-11-30"),
    ("three weeks ago", "2025-01-08T09:00", "2024-12-16", "2024-12-22"),
]

UNIONS = [
    ("그제와 어제", FRI, "2025-11-19", "2025-11-20"),
    ("그저께와 어제 기사", FRI, "2025-11-19", "2025-11-20"),
    ("그제하고 어제", FRI, "2025-11-19", "2025-11-20"),
    ("엊그제와 어제", FRI, "2025-11-19", "2025-11-20"),
    ("어제와 오늘", FRI, "2025-11-20", "2025-11-21"),
    ("어제랑 오늘 올라온 글", FRI, "2025-11-20", "2025-11-21"),
    ("어제하고 오늘 기사", FRI, "2025-11-20", "2025-11-21"),
    ("어제 및 오늘", FRI, "2025-11-20", "2025-11-21"),
    ("어제, 오늘", FRI, "2025-11-20", "2025-11-21"),
    ("어제 오늘 나온 기사", FRI, "2025-11-20", "2025-11-21"),
    ("오늘과 어제", FRI, "2025-11-20", "2025-11-21"),
    ("그제와 오늘", FRI, "2025-11-19", "2025-11-21"),
    ("어제나 오늘", FRI, "2025-11-20", "2025-11-21"),
    ("이틀 전과 어제", FRI, "2025-11-19", "2025-11-20"),
    ("3일 전과 오늘", FRI, "2025-11-18", "2025-11-21"),
    ("yesterday and today", FRI, "2025-11-20", "2025-11-21"),
    ("today and yesterday", FRI, "2025-11-20", "2025-11-21"),
    ("yesterday or today", FRI, "2025-11-20", "2025-11-21"),
    ("yesterday & today", FRI, "2025-11-20", "2025-11-21"),
    ("the day before yesterday and yesterday", FRI, "2025-11-19", "2025-11-20"),
    ("지난주와 이번 주", FRI, "2025-11-10", "2025-11-21"),
    ("지난주랑 이번 주 회의록", FRI, "2025-11-10", "2025-11-21"),
    ("지난주 이번 주 매출", FRI, "2025-11-10", "2025-11-21"),
    ("last week and this week", FRI, "2025-11-10", "2025-11-21"),
    ("this week and last week", FRI, "2025-11-10", "2025-11-21"),
    ("지난달과 이번 달", FRI, "2025-10-01", "2025-11-21"),
    ("last month and this month", FRI, "2025-10-01", "2025-11-21"),
    ("9월과 10월", FRI, "2025-09-01", "2025-10-31"),
    ("3월과 5월", FRI, "2025-03-01", "2025-05-31"),  # one range covers both
    ("September and October", FRI, "2025-09-01", "2025-10-31"),
    ("2023년과 2024년", FRI, "2023-01-01", "2024-12-31"),
    ("작년과 올해", FRI, "2024-01-01", "2025-11-21"),
    ("월요일과 화요일", FRI, "2025-11-17", "2025-11-18"),
    ("Monday and Tuesday", FRI, "2025-11-17", "2025-11-18"),
    ("11월과 12월", FRI, "2024-11-01", "2024-12-31"),  # Dec is last year's: Nov too
    ("그제와 어제", "2025-01-01T09:00", "2024-12-30", "2024-12-31"),
]

# Week k of a month: the Monday–Sunday week holding the month's k-th Thursday.
ORDINAL_WEEKS = [
    ("11월 첫째 주", FRI, "2025-11-03", "2025-11-09"),
    ("11월 첫 주", FRI, "2025-11-03", "2025-11-09"),
    ("11월 첫주 기사", FRI, "2025-11-03", "2025-11-09"),
    ("11월 1주차", FRI, "2025-11-03", "2025-11-09"),
    ("11월 둘째 주", FRI, "2025-11-10", "2025-11-16"),
    ("11월 2번째 주", FRI, "2025-11-10", "2025-11-16"),
    ("11월 두 번째 주", FRI, "2025-11-10", "2025-11-16"),
    ("11월 셋째 주", FRI, "2025-11-17", "2025-11-21"),  # clipped to today
    ("11월 넷째 주", FRI, "2024-11-25", "2024-12-01"),  # this year's has not started
    ("10월 첫째 주", FRI, "2025-09-29", "2025-10-05"),  # Oct 1 is a Wednesday
    ("10월 둘째 주 기사", FRI, "2025-10-06", "2025-10-12"),
    ("10월 셋째 주", FRI, "2025-10-13", "2025-10-19"),
    ("10월 넷째 주", FRI, "2025-10-20", "2025-10-26"),
    ("10월 다섯째 주", FRI, "2025-10-27", "2025-11-02"),
    ("10월 마지막 주", FRI, "2025-10-27", "2025-11-02"),
    ("9월 마지막 주 공지", FRI, "2025-09-22", "2025-09-28"),
    ("2024년 2월 첫째 주", FRI, "2024-01-29", "2024-02-04"),  # Feb 1 2024 is a Thursday
    ("2024년 2월 마지막 주", FRI, "2024-02-26", "2024-03-03"),
    ("작년 12월 셋째 주", FRI, "2024-12-16", "2024-12-22"),
    ("올해 1월 둘째 주", FRI, "2025-01-06", "2025-01-12"),
    ("이번 달 첫째 주", FRI, "2025-11-03", "2025-11-09"),
    ("이번 달 둘째 주", FRI, "2025-11-10", "2025-11-16"),
    ("지난달 셋째 주", FRI, "2025-10-13", "2025-10-19"),
    ("지난달 마지막 주", FRI, "2025-10-27", "2025-11-02"),
    ("3월 둘째 주", FRI, "2025-03-10", "2025-03-16"),
    ("the second week of March", FRI, "2025-03-10", "2025-03-16"),
    ("the first week of October", FRI, "2025-09-29", "2025-10-05"),
    ("the last week of September", FRI, "2025-09-22", "2025-09-28"),
    ("the 2nd week of August", FRI, "2025-08-11", "2025-08-17"),
    ("the first week of November", FRI, "2025-11-03", "2025-11-09"),
    ("the third week of November", FRI, "2025-11-17", "2025-11-21"),
    ("the last week of June", FRI, "2025-06-23", "2025-06-29"),
    ("the fifth week of May", FRI, "2025-05-26", "2025-06-01"),
    ("the first week of January 2025", FRI, "2024-12-30", "2025-01-05"),
    ("the last week of last month", FRI, "2025-10-27", "2025-11-02"),
    ("the second week of this month", FRI, "2025-11-10", "2025-11-16"),
    ("the first week of February 2024", FRI, "2024-01-29", "2024-02-04"),
]

TABLES = {
    "native_days": NATIVE_DAYS,
    "en_year_periods": EN_YEAR_PERIODS,
    "en_counted_back": EN_COUNTED_BACK,
    "unions": UNIONS,
    "ordinal_weeks": ORDINAL_WEEKS,
}
CASES = [
    pytest.param(*case, id=f"{kind}:{case[0]}") for kind, rows in TABLES.items() for case in rows
]


def test_each_table_has_thirty_cases_or_more() -> None:
    assert {kind: len(rows) >= 30 for kind, rows in TABLES.items()} == dict.fromkeys(TABLES, True)


@pytest.mark.parametrize("question, now, start, end", CASES)
def test_phrase_tables(question: str, now: str, start: str, end: str) -> None:
    found = resolve(question, at(now))
    assert found is not None, question
    assert found.iso() == (start, end), question
    assert found.expression and found.expression in question
    # The LLM planner re-resolves the extracted expression alone: it must mean the same.
    assert resolve(found.expression, at(now)).iso() == (start, end)


NOT_TIME = [
    "좋은 하루 되세요",
    "하루 종일 회의만 했다",
    "하루 내내 비가 왔다",
    "이틀 연속 상승한 종목",
    "열흘 넘게 이어진 파업",
    "help me with the quarterly report",
    "a couple of questions about the budget",
    "the first half of the article",
]


@pytest.mark.parametrize("question", NOT_TIME)
def test_not_time(question: str) -> None:
    assert resolve(question, at(FRI)) is None


def test_week_of_month_follows_the_thursday_rule() -> None:
    assert week_of_month(2025, 11, 1) == (date(2025, 11, 3), date(2025, 11, 9))
    assert week_of_month(2025, 10, 5) == (date(2025, 10, 27), date(2025, 11, 2))
    assert week_of_month(2025, 11, 5) is None  # four Thursdays only
    assert week_of_month(2025, 11, -1) == (date(2025, 11, 24), date(2025, 11, 30))
