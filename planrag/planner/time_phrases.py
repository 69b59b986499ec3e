"""More ways people say a period, as rules of the calendar module (`time_rules.rule`):

- Korean native day counts: 하루 1, 이틀 2, 사흘 3, 나흘 4, 닷새 5, 엿새 6, 이레 7, 여드레 8,
  아흐레 9, 열흘 10, 보름 15 days; 석 달 / 넉 달 (3 / 4 months), 반년 (6 months). "최근 사흘",
  "사흘간", "사흘 동안" are rolling windows ending today; "사흘 전" is that day.
- English halves and quarters of a named or relative year: "the first half of last year",
  "the last quarter of 2022" (Q4), "Q3 of this year", "last year's second half", "2023 Q3".
- English periods counted back: "the week/month/year before last", "a couple of weeks ago",
  "two weeks back", "a fortnight ago", "the past couple of months".
- Ordinal weeks of a month: "11월 첫째 주", "둘째 주", "2주차", "마지막 주", "지난달 셋째 주",
  "the second week of March", "the last week of last month".

Week of a month (KS X ISO 8601, how Korean calendars number 주차): weeks run Monday–Sunday and a
week belongs to the month that holds its Thursday, so week k of a month is the Monday–Sunday week
containing the month's k-th Thursday, and its last week the one containing its last Thursday. A
week may start in the month before or end in the month after (2025-11 week 1 is Nov 3–9; Nov 1–2
belong to the last week of October). Without a year the month is the most recent one whose week
started on or before today.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from planrag.planner.calendar_periods import (
    add_months,
    half_span,
    month_end,
    quarter_span,
    rolling_range,
    units_back,
    week_start,
)
from planrag.planner.time_rules import rule
from planrag.planner.time_vocabulary import MONTHS_EN

# ---------------------------------------------------------------- Korean native counts

NATIVE_DAYS = {
    "하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "여드레": 8,
    "아흐레": 9, "열흘": 10, "보름": 15,
}  # fmt: skip
_DAYS = "(?P<days>" + "|".join(sorted(NATIVE_DAYS, key=len, reverse=True)) + ")"
_NATIVE_MONTHS = {"석": 3, "넉": 4, "반": 6}  # 석 달, 넉 달, 반년
_WITHIN = r"(?:\s*(?:간|동안|사이|새|이내|내(?!내)))"


@rule(
    rf"(?:최근|지난|과거)\s*{_DAYS}{_WITHIN}?"
    rf"|(?<![가-힣]){_DAYS.replace('?P<days>', '?P<days2>')}{_WITHIN}"
)
def _native_days_rolling(m: re.Match[str], today: date) -> tuple[date, date]:
    return rolling_range(NATIVE_DAYS[m["days"] or m["days2"]], "day", today)


@rule(rf"(?<![가-힣]){_DAYS}\s*전(?:(?![가-힣])|(?=에|의|쯤|께|부터|이후|과|와|랑|하고|및))")
def _native_days_ago(m: re.Match[str], today: date) -> tuple[date, date]:
    day = today - timedelta(days=NATIVE_DAYS[m["days"]])
    return day, day


@rule(
    r"(?:최근|지난|과거)\s*(?P<n>석\s*달|넉\s*달|반\s*년)(?:\s*(?:간|동안|사이|새))?"
    r"|(?<![가-힣])(?P<n2>석\s*달|넉\s*달|반\s*년)\s*(?:간|동안|사이|새)"
)
def _native_months_rolling(m: re.Match[str], today: date) -> tuple[date, date]:
    return rolling_range(_NATIVE_MONTHS[(m["n"] or m["n2"])[0]], "month", today)


@rule(r"(?<![가-힣])(?P<n>석|넉)\s*달\s*전(?!까지)")
def _native_months_ago(m: re.Match[str], today: date) -> tuple[date, date]:
    first = add_months(today.replace(day=1), -_NATIVE_MONTHS[m["n"]])
    return first, month_end(first.year, first.month)


@rule(r"(?<!\d)(?P<y>(?:1[5-9]|20)\d0)\s*년대|(?<![\d'])(?P<en>(?:1[5-9]|20)\d0)s(?![a-z])")
def _decade(m: re.Match[str], today: date) -> tuple[date, date]:
    """ "1960년대", "the 1990s": the ten years."""
    first = int(m["y"] or m["en"])
    return date(first, 1, 1), date(first + 9, 12, 31)


# ---------------------------------------------------------------- English halves / quarters

_YEAR_REF = (
    r"(?P<yref>(?:the\s+)?(?:last|previous|prior|past)\s+year|(?:the\s+)?year\s+before\s+last"
    r"|this\s+year|(?:the\s+)?current\s+year|the\s+year|next\s+year|(?:19|20)\d{2})(?!\d)"
)
_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "last": -1, "final": -1, "latter": -1, "back": -1, "front": 1, "fifth": 5, "5th": 5,
}  # fmt: skip
_ORD = r"(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th|last|final|latter|back|front)"
_PERIOD = (
    rf"(?:{_ORD}\s+(?P<kind>half|quarter|six\s+months|three\s+months)|q(?P<q>[1-4])|h(?P<h>[12]))"
)


def _year_ref(text: str, today: date) -> int:
    text = " ".join(text.lower().split()).removeprefix("the ")
    if text.isdigit():
        return int(text)
    if text == "year before last":
        return today.year - 2
    if text.startswith(("last", "previous", "prior", "past")):
        return today.year - 1
    if text == "next year":
        return today.year + 1
    return today.year


def _year_period(
    year: int, ordinal: str | None, kind: str | None, q: str | None, h: str | None
) -> tuple[date, date]:
    if q:
        return quarter_span(year, int(q))
    if h:
        return half_span(year, h == "2")
    n = _ORDINALS[(ordinal or "first").lower()]
    if (kind or "").startswith(("half", "six")):
        return half_span(year, n != 1)
    return quarter_span(year, 4 if n == -1 else n)  # a quarter, or "the first three months"


_PERIOD2 = (
    _PERIOD.replace("?P<ord>", "?P<ord2>")
    .replace("?P<kind>", "?P<kind2>")
    .replace("?P<q>", "?P<q2>")
    .replace("?P<h>", "?P<h2>")
)


@rule(
    rf"(?:the\s+)?{_PERIOD}\s+(?:of\s+|in\s+)?{_YEAR_REF}"
    rf"|{_YEAR_REF.replace('?P<yref>', '?P<yref2>')}'s\s+{_PERIOD2}"
    r"|(?<!\d)(?P<y4>(?:19|20)\d{2})\s*[-/]?\s*(?:q(?P<q4>[1-4])|h(?P<h4>[12]))(?![a-z0-9])"
)
def _en_year_period(m: re.Match[str], today: date) -> tuple[date, date]:
    """ "the first half of last year", "last year's Q4", "2023 Q3"."""
    if m["y4"]:
        return _year_period(int(m["y4"]), None, None, m["q4"], m["h4"])
    if m["yref2"]:
        year = _year_ref(m["yref2"], today)
        return _year_period(year, m["ord2"], m["kind2"], m["q2"], m["h2"])
    return _year_period(_year_ref(m["yref"], today), m["ord"], m["kind"], m["q"], m["h"])


# ---------------------------------------------------------------- English periods counted back


@rule(r"(?:the\s+)?(?P<unit>week|month|year)\s+before\s+last")
def _en_before_last(m: re.Match[str], today: date) -> tuple[date, date]:
    unit = m["unit"].lower()
    if unit == "week":
        monday = week_start(today) - timedelta(weeks=2)
        return monday, monday + timedelta(days=6)
    if unit == "month":
        first = add_months(today.replace(day=1), -2)
        return first, month_end(first.year, first.month)
    return date(today.year - 2, 1, 1), date(today.year - 2, 12, 31)


@rule(
    r"(?P<count>(?:a\s+)?couple(?:\s+of)?)\s+(?P<unit>days?|weeks?|months?|years?)\s+(?:ago|back)"
    r"|(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?P<unit2>days?|weeks?|months?|years?)\s+back(?![a-z])"
    r"|(?P<fortnight>a\s+fortnight)\s+ago"
)
def _en_counted_back(m: re.Match[str], today: date) -> tuple[date, date]:
    if m["fortnight"]:
        monday = week_start(today) - timedelta(weeks=2)
        return monday, monday + timedelta(days=6)
    n = 2 if m["count"] else int(m["n"]) if m["n"].isdigit() else _EN_WORDS[m["n"].lower()]
    unit = (m["unit"] or m["unit2"]).lower().rstrip("s")
    return units_back(n, unit, today)


_EN_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip


@rule(
    r"(?:past|last|previous|recent|trailing)\s+(?:a\s+)?couple(?:\s+of)?\s+"
    r"(?P<unit>days|weeks|months|years)"
    r"|(?:past|last|previous)\s+(?P<fortnight>fortnight)"
)
def _en_rolling_couple(m: re.Match[str], today: date) -> tuple[date, date]:
    if m["fortnight"]:
        return rolling_range(14, "day", today)
    return rolling_range(2, m["unit"].lower().rstrip("s"), today)


# ---------------------------------------------------------------- ordinal weeks of a month

_KO_WEEK_ORD = {
    "첫": 1, "첫째": 1, "첫번째": 1, "1번째": 1, "1째": 1, "둘째": 2, "두번째": 2, "2번째": 2,
    "2째": 2, "셋째": 3, "세번째": 3, "3번째": 3, "3째": 3, "넷째": 4, "네번째": 4, "4번째": 4,
    "4째": 4, "다섯째": 5, "다섯번째": 5, "5번째": 5, "5째": 5, "마지막": -1,
}  # fmt: skip


def week_of_month(year: int, month: int, k: int) -> tuple[date, date] | None:
    """Week k (1–5, or −1 for the last) of a month: the Monday–Sunday week holding the month's
    k-th Thursday (KS X ISO 8601). None when the month has no k-th Thursday."""
    first = date(year, month, 1)
    thursday = first + timedelta(days=(3 - first.weekday()) % 7)
    thursdays = []
    while thursday.month == month:
        thursdays.append(thursday)
        thursday += timedelta(weeks=1)
    if k == -1:
        k = len(thursdays)
    if not 1 <= k <= len(thursdays):
        return None
    monday = week_start(thursdays[k - 1])
    return monday, monday + timedelta(days=6)


def _recent_week(month: int, k: int, today: date) -> tuple[date, date] | None:
    """Week k of the most recent such month whose week started on or before today."""
    for year in (today.year, today.year - 1):
        found = week_of_month(year, month, k)
        if found is not None and found[0] <= today:
            return found
    return None


_KO_YEAR = r"(?:(?P<y>\d{4})\s*년(?:도)?|(?P<yrel>올해|금년|작년|지난\s*해|재작년))"
_KO_ORD = (
    r"(?P<ord>첫\s*번\s*째|첫\s*째|첫|[1-5]\s*번\s*째|[1-5]\s*째|둘\s*째|두\s*번\s*째|셋\s*째"
    r"|세\s*번\s*째|넷\s*째|네\s*번\s*째|다섯\s*번?\s*째|마지막)\s*주(?:차)?"
    r"|(?P<num>[1-5])\s*주\s*차"
)


@rule(
    rf"(?:{_KO_YEAR}\s*)?(?:(?P<m>\d{{1,2}})\s*월|(?P<rel>이번\s*달|이달|금월|지난\s*달|저번\s*달|전월))"
    rf"\s*(?:의\s*)?(?:{_KO_ORD})"
)
def _ko_week_of_month(m: re.Match[str], today: date) -> tuple[date, date] | None:
    k = int(m["num"]) if m["num"] else _KO_WEEK_ORD[re.sub(r"\s", "", m["ord"])]
    if m["rel"]:
        back = 0 if re.sub(r"\s", "", m["rel"]) in ("이번달", "이달", "금월") else 1
        first = add_months(today.replace(day=1), -back)
        return week_of_month(first.year, first.month, k)
    month = int(m["m"])
    if not 1 <= month <= 12:
        return None
    year = _ko_year(m, today)
    return week_of_month(year, month, k) if year else _recent_week(month, k, today)


def _ko_year(m: re.Match[str], today: date) -> int | None:
    if m["y"]:
        return int(m["y"])
    rel = re.sub(r"\s", "", m["yrel"] or "")
    return {"올해": today.year, "금년": today.year, "작년": today.year - 1,
            "지난해": today.year - 1, "재작년": today.year - 2}.get(rel)  # fmt: skip


_EN_MONTH_NAMES = "|".join(sorted(MONTHS_EN, key=len, reverse=True))


@rule(
    r"(?:the\s+)?(?P<ord>first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last|final)\s+week\s+"
    rf"(?:of|in)\s+(?:(?P<mon>{_EN_MONTH_NAMES})\.?(?:,?\s+(?P<y>(?:19|20)\d{{2}}))?(?![a-z])"
    r"|(?P<rel>this|last|previous|the)\s+month)"
)
def _en_week_of_month(m: re.Match[str], today: date) -> tuple[date, date] | None:
    k = _ORDINALS[m["ord"].lower()]
    if m["rel"]:
        back = 1 if m["rel"].lower() in ("last", "previous") else 0
        first = add_months(today.replace(day=1), -back)
        return week_of_month(first.year, first.month, k)
    month = MONTHS_EN[m["mon"].lower()]
    if m["y"]:
        return week_of_month(int(m["y"]), month, k)
    return _recent_week(month, k, today)
