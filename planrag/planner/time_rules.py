"""Rules that read one time expression each (Korean and English) into a date span.

A rule is a regular expression and a function from its match and today to a (start, end) span
(`Span` when the year was inferred, so a range can borrow its partner's year). Rules register on
import (`@rule`); `time_range.resolve` runs them all, keeps the longest non-overlapping matches
and combines them. More phrasings live in `holidays` and `time_phrases`, registered the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from planrag.planner.calendar_periods import (
    SEASONS,
    add_months,
    half_span,
    month_end,
    month_span,
    most_recent,
    part_of_month,
    quarter_span,
    rolling_range,
    season_span,
    unit_name,
    units_back,
    week_start,
)
from planrag.planner.time_vocabulary import (
    MON,
    MONTHS_EN,
    NUM,
    PART_EN,
    PART_KO,
    YEAR_EN,
    YEAR_KO,
    number,
    numbered,
    year_of,
)


@dataclass(frozen=True)
class Span:
    start: date
    end: date
    pos: int
    stop: int
    # (month, day, part) when the year was inferred, so a range can borrow its partner's year.
    yearless: tuple[int, int | None, str | None] | None = None


Rule = Callable[[re.Match[str], date], tuple[date, date] | Span | None]
RULES: list[tuple[re.Pattern[str], Rule]] = []


def rule(pattern: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        RULES.append((re.compile(pattern, re.IGNORECASE), fn))
        return fn

    return register


@rule(
    r"(?P<y>\d{4})[-./](?P<m>\d{1,2})[-./](?P<d>\d{1,2})|(?<!\d)(?P<y2>(?:19|20)\d{2})(?P<m2>[01]\d)(?P<d2>[0-3]\d)(?!\d)"
)  # noqa: E501
def _iso_day(m: re.Match[str], today: date) -> tuple[date, date] | None:
    y, mo, d = (m["y"], m["m"], m["d"]) if m["y"] else (m["y2"], m["m2"], m["d2"])
    try:
        one = date(int(y), int(mo), int(d))
    except ValueError:
        return None
    return one, one


@rule(r"(?<!\d)(?P<y>(?:19|20)\d{2})[-./](?P<m>\d{1,2})(?![-./]?\d)")
def _iso_month(m: re.Match[str], today: date) -> tuple[date, date] | None:
    month = int(m["m"])
    return month_span(int(m["y"]), month, None, None) if 1 <= month <= 12 else None


@rule(
    rf"{YEAR_KO}?\s*(?:지난\s*|저번\s*)?(?<!\d)(?P<m>\d{{1,2}})\s*월(?:\s*(?P<d>\d{{1,2}})\s*일|\s*(?:{PART_KO}))?"
)  # noqa: E501
def _ko_month(m: re.Match[str], today: date) -> tuple[date, date] | Span | None:
    month = int(m["m"])
    day = int(m["d"]) if m["d"] else None
    part = m["part"] or m["part2"]
    if not 1 <= month <= 12:
        return None
    year = year_of(m, today)
    try:
        if year is not None:
            return month_span(year, month, day, part)
        start, end = most_recent(month, day, part, today)
    except ValueError:
        return None
    return Span(start, end, 0, 0, yearless=(month, day, part))


@rule(rf"{YEAR_KO}\s*(?P<half>상반기|하반기)|(?P<bare>상반기|하반기)")
def _ko_half(m: re.Match[str], today: date) -> tuple[date, date]:
    second = (m["half"] or m["bare"]) == "하반기"
    year = year_of(m, today)
    if year is None:
        year = today.year if half_span(today.year, second)[0] <= today else today.year - 1
    return half_span(year, second)


@rule(rf"{YEAR_KO}?\s*(?P<q>[1-4])\s*분기|(?P<rel>지난|이번|전|저번|직전)\s*분기")
def _ko_quarter(m: re.Match[str], today: date) -> tuple[date, date]:
    current = (today.month - 1) // 3 + 1
    if m["rel"]:
        back = 0 if m["rel"] == "이번" else 1
        year, q = divmod(today.year * 4 + current - 1 - back, 4)
        return quarter_span(year, q + 1)
    return _recent_quarter(int(m["q"]), year_of(m, today), today)


def _recent_quarter(q: int, year: int | None, today: date) -> tuple[date, date]:
    """Quarter q of `year`, or the most recent quarter q that started on or before today."""
    if year is None:
        year = today.year if quarter_span(today.year, q)[0] <= today else today.year - 1
    return quarter_span(year, q)


@rule(rf"{YEAR_KO}?\s*(?P<season>봄|여름|가을|겨울)(?![가-힣]{{2}})")
def _ko_season(m: re.Match[str], today: date) -> tuple[date, date]:
    return _season_range(m, today)


def _season_range(m: re.Match[str], today: date) -> tuple[date, date]:
    first = SEASONS[m["season"].lower()]
    year = year_of(m, today)
    if year is None:
        year = today.year if date(today.year, first, 1) <= today else today.year - 1
        if first == 12 and today.month <= 2:
            year = today.year - 1
    return season_span(year, first)


@rule(YEAR_KO + r"(?!\s*(?:\d{1,2}\s*월|[1-4]\s*분기|상반기|하반기|봄|여름|가을|겨울))")
def _ko_year(m: re.Match[str], today: date) -> tuple[date, date] | None:
    year = year_of(m, today)
    return (date(year, 1, 1), date(year, 12, 31)) if year else None


WEEKDAYS_KO = "월화수목금토일"
WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@rule(
    r"(?P<rel>지난\s*주|저번\s*주|이번\s*주|지난|저번|last|this|previous)?\s*"
    r"(?P<ko>[월화수목금토일])요일|(?P<rel2>last|this|previous)?\s*(?P<en>monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)"
)
def _weekday(m: re.Match[str], today: date) -> tuple[date, date]:
    """A bare weekday is the most recent one (today included); "지난/last" X is the most recent
    one before today ("지난주 X요일": that day of last week); "이번 주 X요일/this X":
    this week's."""
    index = WEEKDAYS_KO.index(m["ko"]) if m["ko"] else WEEKDAYS_EN.index(m["en"].lower())
    rel = (m["rel"] or m["rel2"] or "").replace(" ", "").lower()
    monday = week_start(today)
    if rel in ("지난주", "저번주"):
        day = monday - timedelta(weeks=1) + timedelta(days=index)
    elif rel in ("이번주", "this"):
        day = monday + timedelta(days=index)
    else:
        back = (today.weekday() - index) % 7
        if back == 0 and rel:
            back = 7
        day = today - timedelta(days=back)
    return day, day


@rule(r"(?P<rel>지난|저번|이번|last|this)\s*(?:주말|weekend)")
def _weekend(m: re.Match[str], today: date) -> tuple[date, date]:
    saturday = week_start(today) + timedelta(days=5)
    if m["rel"].lower() in ("지난", "저번", "last"):
        saturday -= timedelta(weeks=1)
    return saturday, saturday + timedelta(days=1)


@rule(r"지지난\s*주")
def _week_before_last(m: re.Match[str], today: date) -> tuple[date, date]:
    monday = week_start(today) - timedelta(weeks=2)
    return monday, monday + timedelta(days=6)


@rule(r"지지난\s*달")
def _month_before_last(m: re.Match[str], today: date) -> tuple[date, date]:
    first = add_months(today.replace(day=1), -2)
    return first, month_end(first.year, first.month)


@rule(rf"(?:past|last)\s+{NUM}\s+hours?|{numbered('n2')}\s*시간\s*(?:이내|동안|안)")
def _hours(m: re.Match[str], today: date) -> tuple[date, date]:
    hours = number(m["n"] or m["n2"])
    return today - timedelta(days=max(0, (hours - 1) // 24 + 1)), today


@rule(r"오늘|금일|today|tonight|this\s+morning")
def _today(m: re.Match[str], today: date) -> tuple[date, date]:
    return today, today


@rule(r"그저께|그제|엊그제|the\s+day\s+before\s+yesterday")
def _day_before_yesterday(m: re.Match[str], today: date) -> tuple[date, date]:
    day = today - timedelta(days=2)
    return day, day


@rule(r"어제|어저께|전일|yesterday")
def _yesterday(m: re.Match[str], today: date) -> tuple[date, date]:
    day = today - timedelta(days=1)
    return day, day


@rule(
    rf"{NUM}\s*(?P<unit>일|주|주일|개월|달|년)\s*전(?!까지|쟁|설|통|체|국|면|략|부|원|후|시|투)|{numbered('n2')}\s+(?P<unit2>days?|weeks?|months?|years?)\s+ago"
)  # noqa: E501
def _ago(m: re.Match[str], today: date) -> tuple[date, date]:
    return units_back(number(m["n"] or m["n2"]), unit_name(m["unit"] or m["unit2"]), today)


@rule(
    rf"(?:최근|지난|과거)\s*{NUM}\s*(?P<unit>일|주|주일|개월|달|년)(?:\s*(?:간|동안|사이))?|{numbered('n2')}\s*(?P<unit2>일|주|주일|개월|달|년)\s*(?:간|동안)"
)  # noqa: E501
def _ko_rolling(m: re.Match[str], today: date) -> tuple[date, date]:
    return rolling_range(number(m["n"] or m["n2"]), unit_name(m["unit"] or m["unit2"]), today)


@rule(
    rf"(?:past|last|previous|recent|trailing)\s+(?:{NUM}\s+)?(?P<unit>days?|weeks?|months?|years?)"
)  # noqa: E501
def _en_rolling(m: re.Match[str], today: date) -> tuple[date, date] | None:
    unit = unit_name(m["unit"])
    if m["n"] is None and m[0].lower().split()[0] in ("last", "previous") and unit != "day":
        return None  # "last week/month/year" is a calendar period (rules below)
    return rolling_range(number(m["n"]) if m["n"] else 1, unit, today)


@rule(
    r"(?:(?:최근|지난|과거)\s*)?(?:일주일|1\s*주일)(?:\s*(?:간|동안))?"
    r"|(?:최근|지난|과거)\s*한\s*주(?:\s*(?:간|동안))?|한\s*주\s*(?:간|동안)"
)
def _one_week(m: re.Match[str], today: date) -> tuple[date, date]:
    return today - timedelta(days=6), today


@rule(r"지난\s*주|저번\s*주|전주|last\s+week|previous\s+week")
def _last_week(m: re.Match[str], today: date) -> tuple[date, date]:
    monday = week_start(today) - timedelta(weeks=1)
    return monday, monday + timedelta(days=6)


@rule(r"이번\s*주|금주|this\s+week")
def _this_week(m: re.Match[str], today: date) -> tuple[date, date]:
    return week_start(today), today


@rule(
    r"(?P<rel>지난\s*달|저번\s*달|전월|이번\s*달|이달|금월)\s*"
    r"(?:(?P<part>초순|중순|하순|초|중|말)(?![가-힣])|(?P<part2>초순|중순|하순|초|말)(?=[에의부까쯤경은는]))"
)
def _relative_month_part(m: re.Match[str], today: date) -> tuple[date, date]:
    """ "지난달 말" (days 21–end of last month), "이번 달 초" (1–10 of this month)."""
    back = 0 if m["rel"].replace(" ", "") in ("이번달", "이달", "금월") else 1
    first = add_months(today.replace(day=1), -back)
    return part_of_month(first.year, first.month, m["part"] or m["part2"])


@rule(r"지난\s*달|저번\s*달|전월|지난\s*월|last\s+month|previous\s+month")
def _last_month(m: re.Match[str], today: date) -> tuple[date, date]:
    first = add_months(today.replace(day=1), -1)
    return first, month_end(first.year, first.month)


@rule(r"이번\s*달|이달|금월|당월|this\s+month")
def _this_month(m: re.Match[str], today: date) -> tuple[date, date]:
    return today.replace(day=1), today


@rule(r"this\s+year|year\s+to\s+date|ytd")
def _this_year(m: re.Match[str], today: date) -> tuple[date, date]:
    return date(today.year, 1, 1), today


@rule(r"last\s+year|previous\s+year")
def _last_year(m: re.Match[str], today: date) -> tuple[date, date]:
    return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)


@rule(
    r"(?P<rel>last|previous|this)\s+quarter|(?:q(?P<q>[1-4])|(?P<ord>first|second|third|fourth)\s+quarter)(?:\s*(?:of\s+)?"
    + YEAR_EN
    + r")?(?!\s+of\b)"
)  # noqa: E501
def _en_quarter(m: re.Match[str], today: date) -> tuple[date, date]:
    current = (today.month - 1) // 3 + 1
    if m["rel"]:
        back = 0 if m["rel"].lower() == "this" else 1
        year, q = divmod(today.year * 4 + current - 1 - back, 4)
        return quarter_span(year, q + 1)
    ordinals = {"first": 1, "second": 2, "third": 3, "fourth": 4}
    q = int(m["q"]) if m["q"] else ordinals[m["ord"].lower()]
    return _recent_quarter(q, int(m["y"]) if m["y"] else None, today)


# "first half of the article" is not a period: "of" must name a year (time_phrases has the rest).
@rule(r"(?:(?P<ord>first|second)\s+half|h(?P<h>[12]))(?:\s*(?:of\s+)?" + YEAR_EN + r")?(?!\s+of\b)")
def _en_half(m: re.Match[str], today: date) -> tuple[date, date]:
    second = (m["ord"] or "").lower() == "second" or m["h"] == "2"
    year = int(m["y"]) if m["y"] else None
    if year is None:
        year = today.year if half_span(today.year, second)[0] <= today else today.year - 1
    return half_span(year, second)


@rule(
    r"(?:(?P<rel>last|this)\s+)?(?P<season>spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?"
    + YEAR_EN
    + ")?"
)  # noqa: E501
def _en_season(m: re.Match[str], today: date) -> tuple[date, date]:
    start, end = _season_range(m, today)
    if (m["rel"] or "").lower() == "last" and end >= today:
        start, end = season_span(start.year - 1, start.month)
    return start, end


_EN_MONTH_FIRST = (
    rf"(?:{PART_EN}[\s-]+)?{MON}(?:\s+(?P<d>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?)?"
    rf"(?:,?\s+{YEAR_EN})?(?![a-z])"
)
_EN_DAY_FIRST = (
    rf"(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MON.replace('?P<mon>', '?P<mon2>')}"
    rf"(?:,?\s+{YEAR_EN.replace('?P<y>', '?P<y3>')})?"
)


def _en_part(text: str) -> str:
    """ "early", "mid" or "late" for the English words of a third of a month."""
    words = text.lower().split()
    if any(w in ("mid", "middle", "second") for w in words):
        return "mid"
    if any(w in ("late", "end", "last") for w in words):
        return "late"
    return "early"


@rule(f"{_EN_MONTH_FIRST}|{_EN_DAY_FIRST}")
def _en_month(m: re.Match[str], today: date) -> tuple[date, date] | Span | None:
    name = (m["mon"] or m["mon2"]).lower().rstrip(".")
    raw = m["mon"] or m["mon2"]
    day = int(m["d"] or m["d2"]) if (m["d"] or m["d2"]) else None
    year_text = m["y"] or m["y3"]
    if name in ("may", "march") and raw[0] == "m" and day is None and not year_text:
        return None  # the verbs "may" and "march", not the months
    if day is None and not year_text and re.match(r"\s+[A-Z][a-z]", m.string[m.end() :]):
        return None  # a person's first name: "June Alcott", "April Ryan", "August Wilson"
    if (
        name
        in ("mar", "jun", "jul", "dec", "oct", "sep", "sept", "jan", "feb", "apr", "aug", "nov")
        and raw.islower()
        and day is None
        and not year_text
    ):  # noqa: E501
        return None  # a lower-case abbreviation alone is too ambiguous
    month = MONTHS_EN[name]
    part = _en_part(m["part"]) if m["part"] else None
    try:
        if year_text:
            return month_span(int(year_text), month, day, part)
        start, end = most_recent(month, day, part, today)
    except ValueError:
        return None
    return Span(start, end, 0, 0, yearless=(month, day, part))


@rule(
    r"(?:in|of|during|for|from|year)\s+"
    + YEAR_EN
    + r"(?!\d)|(?<![\d-])"
    + YEAR_EN.replace("?P<y>", "?P<y2>")
    + r"(?![\d-])(?=\s*(?:년|$|[^\d년월]))"
)  # noqa: E501
def _en_year(m: re.Match[str], today: date) -> tuple[date, date]:
    year = int(m["y"] or m["y2"])
    return date(year, 1, 1), date(year, 12, 31)
