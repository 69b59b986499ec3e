"""Holidays and fuzzy periods, as rules of the calendar module (`time_rules.rule`).

Conventions (docs/planner.md, "Holidays and fuzzy periods"):

- 설날 (설, 구정, lunar 1/1) and 추석 (한가위, lunar 8/15) are converted to the solar calendar by
  `korean-lunar-calendar` (the KARI tables, lunar years 1391–2050): the day itself; "설 연휴/
  추석 연휴" is the three-day holiday (the day before, the day, the day after; substitute
  holidays are not added). "… 직전" is the seven days before the holiday's first day,
  "… 직후" the seven days after its last. Without a year: the most recent one that started on or
  before today; with "작년/올해/2024년" that year's.
- 연초 is January, 연말 December (of the year named, else the most recent one); 연말연시 is
  December 15 – January 15.
- 이맘때 ("작년 이맘때", "this time last year") is the two weeks around today's date in that
  year (seven days either side); "이맘때" alone the last seven days.
- 초순/중순/하순 (and 초/중/말) of a month are days 1–10, 11–20, 21–end; "early/mid/late March",
  "mid-March 2024", "the beginning/middle/end of March" the same thirds (time_range.py).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache

from korean_lunar_calendar import KoreanLunarCalendar

from planrag.planner.time_rules import rule

SEOLLAL = (1, 1)  # lunar month and day
CHUSEOK = (8, 15)


@lru_cache(maxsize=256)
def lunar_to_solar(year: int, month: int, day: int) -> date | None:
    """The solar date of a lunar date (not a leap month), or None outside the library's years."""
    calendar = KoreanLunarCalendar()
    if not calendar.setLunarDate(year, month, day, False):
        return None
    return date.fromisoformat(calendar.SolarIsoFormat())


_YEAR = r"(?:(?P<y>(?:19|20)\d{2})\s*년\s*(?:도\s*)?|(?P<rel>올해|금년|작년|지난\s*해|재작년)\s*)?"
_REL_YEARS = {"올해": 0, "금년": 0, "작년": 1, "지난해": 1, "재작년": 2}


def _year(m: re.Match[str], today: date) -> int | None:
    if m["y"]:
        return int(m["y"])
    if m["rel"]:
        return today.year - _REL_YEARS[re.sub(r"\s", "", m["rel"])]
    return None


def _holiday(lunar: tuple[int, int], year: int, holiday: bool) -> tuple[date, date] | None:
    one = lunar_to_solar(year, *lunar)
    if one is None:
        return None
    return (one - timedelta(days=1), one + timedelta(days=1)) if holiday else (one, one)


@rule(
    _YEAR + r"(?P<name>설날|구정|추석|한가위|(?<![가-힣])설(?=\s*연휴|\s*(?:직전|직후|전후|당일)|"
    r"(?:에|의|엔|부터|까지|이후|이전|전|후)?(?![가-힣])))(?P<long>\s*연휴)?"
    r"(?:\s*(?P<edge>직전|직후))?"
)
def _lunar_holiday(m: re.Match[str], today: date) -> tuple[date, date] | None:
    lunar = CHUSEOK if m["name"] in ("추석", "한가위") else SEOLLAL
    year = _year(m, today)
    holiday = bool(m["long"])
    if year is None:  # the most recent one that started on or before today
        spans = ((y, _holiday(lunar, y, holiday)) for y in (today.year, today.year - 1))
        year = next((y for y, span in spans if span and span[0] <= today), None)
    span = _holiday(lunar, year, holiday) if year is not None else None
    if span is None:
        return None
    start, end = span
    if m["edge"] == "직전":
        return start - timedelta(days=7), start - timedelta(days=1)
    if m["edge"] == "직후":
        return end + timedelta(days=1), end + timedelta(days=7)
    return start, end


@rule(_YEAR + r"(?P<which>연말\s*연시|연말|연초|세밑)")
def _year_end(m: re.Match[str], today: date) -> tuple[date, date]:
    which = re.sub(r"\s", "", m["which"])
    year = _year(m, today)
    if which == "연말연시":
        first = year if year is not None else (today.year if today.month == 12 else today.year - 1)
        return date(first, 12, 15), date(first + 1, 1, 15)
    if which == "연초":
        return date(year if year is not None else today.year, 1, 1), date(
            year if year is not None else today.year, 1, 31
        )
    if year is None:
        year = today.year if today.month == 12 else today.year - 1
    return date(year, 12, 1), date(year, 12, 31)


@rule(
    r"(?:(?P<rel>작년|지난\s*해|재작년|(?P<n>\d{1,2})\s*년\s*전)\s*)?(?:이맘때|이\s*맘때|이\s*무렵)"
    r"|this\s+time\s+(?P<en>last\s+year|two\s+years\s+ago)"
)
def _this_time(m: re.Match[str], today: date) -> tuple[date, date]:
    rel = re.sub(r"\s", "", m["rel"] or "")
    back = int(m["n"]) if m["n"] else {"작년": 1, "지난해": 1, "재작년": 2}.get(rel, 0)
    if m["en"]:
        back = 1 if m["en"].lower().startswith("last") else 2
    if back == 0:
        return today - timedelta(days=6), today
    try:
        then = today.replace(year=today.year - back)
    except ValueError:  # February 29
        then = today.replace(year=today.year - back, day=28)
    return then - timedelta(days=7), then + timedelta(days=7)
