"""Korean and English time expressions → inclusive date ranges in Asia/Seoul, for a given `now`.

The calendar maths is ours (DESIGN.md "Time semantics"): weeks start Monday; "지난주/last week" is
the previous Monday–Sunday; "이번 주/this week" is Monday–today; a bare month, day, quarter, half or
season is the most recent one that started on or before today; "최근 N일/past N days" is the N days
ending today; 초/중순/말 are days 1–10, 11–20, 21–end; "X 이후/since X", "X 이전/before X", "A부터
B까지/between A and B" combine spans; a range ending in the future is clipped to today.
"최근/latest" without a number is a sort, not a time filter (the heuristic planner handles it).
`dateparser` is only a helper for absolute dates in forms these rules do not know.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

SEOUL = ZoneInfo("Asia/Seoul")


@dataclass(frozen=True)
class DateRange:
    """An inclusive range; either end may be open. `expression` is the text it came from."""

    start: date | None
    end: date | None
    expression: str

    def iso(self) -> tuple[str | None, str | None]:
        return (
            self.start.isoformat() if self.start else None,
            self.end.isoformat() if self.end else None,
        )


@dataclass(frozen=True)
class _Span:
    start: date
    end: date
    pos: int
    stop: int
    # (month, day, part) when the year was inferred, so a range can borrow its partner's year.
    yearless: tuple[int, int | None, str | None] | None = None


def local_today(now: datetime | None = None, tz: ZoneInfo = SEOUL) -> date:
    """Today in `tz`, Asia/Seoul by default (naive datetimes are taken to be in `tz`)."""
    if now is None:
        return datetime.now(tz).date()
    if now.tzinfo is None:
        return now.date()
    return now.astimezone(tz).date()


# ---------------------------------------------------------------- calendar helpers


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _part_of_month(year: int, month: int, part: str | None) -> tuple[date, date]:
    if part in ("초", "초순", "early"):
        return date(year, month, 1), date(year, month, 10)
    if part in ("중", "중순", "mid"):
        return date(year, month, 11), date(year, month, 20)
    if part in ("말", "하순", "late", "end"):
        return date(year, month, 21), month_end(year, month)
    return date(year, month, 1), month_end(year, month)


def _month_day(year: int, month: int, day: int | None, part: str | None) -> tuple[date, date]:
    if day is not None:
        one = date(year, month, day)
        return one, one
    return _part_of_month(year, month, part)


def _most_recent(month: int, day: int | None, part: str | None, today: date) -> tuple[date, date]:
    """The most recent such month/day/part that started on or before today."""
    start, end = _month_day(today.year, month, day, part)
    if start > today:
        start, end = _month_day(today.year - 1, month, day, part)
    return start, end


def _quarter(year: int, q: int) -> tuple[date, date]:
    return date(year, 3 * q - 2, 1), month_end(year, 3 * q)


def _half(year: int, second: bool) -> tuple[date, date]:
    return (
        (date(year, 7, 1), date(year, 12, 31)) if second else (date(year, 1, 1), date(year, 6, 30))
    )


SEASONS = {"봄": 3, "여름": 6, "가을": 9, "겨울": 12, "spring": 3, "summer": 6, "autumn": 9,
           "fall": 9, "winter": 12}  # fmt: skip


def _season(year: int, first_month: int) -> tuple[date, date]:
    start = date(year, first_month, 1)
    return start, month_end(*divmod_month(year, first_month + 2))


def divmod_month(year: int, month: int) -> tuple[int, int]:
    """(year, month) with month possibly past 12 normalised."""
    extra, m = divmod(month - 1, 12)
    return year + extra, m + 1


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


# ---------------------------------------------------------------- vocabulary

NATIVE_NUMBERS = {
    "한": 1, "하나": 1, "일": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "다섯": 5,
    "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "a": 1, "an": 1, "one": 1, "two": 2,
    "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "fourteen": 14, "thirty": 30,
}  # fmt: skip
_NUM = r"(?P<n>\d{1,3}|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|thirty)"  # noqa: E501

MONTHS_EN = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12,
    "dec": 12,
}  # fmt: skip
_MON = r"(?P<mon>january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"  # noqa: E501

_YEAR_KO = (
    # A two-digit year only where it cannot be a duration ("10년 넘게"): "23년도", "24년 3월".
    r"(?:(?P<y>\d{4})\s*년(?:도)?(?!대)|(?<!\d)(?P<yy>\d{2})\s*년(?:도|(?=\s*(?:\d{1,2}\s*월|상반기|"
    r"하반기|[1-4]\s*분기)))"
    r"|(?P<yrel>올해|금년|작년|지난\s*해|전년|재작년|내년))"
)
_PART_KO = r"(?P<part>초순|중순|하순|초|중|말)(?![가-힣])|(?P<part2>초순|중순|하순|초|말)(?=[에의부까쯤경은는])"  # noqa: E501
_YEAR_EN = r"(?P<y>(?:19|20)\d{2})"
_PART_EN = (
    r"(?P<part>early|mid|late|(?:the\s+)?(?:end|beginning|start|middle)\s+of|(?:in\s+)?the\s+"
    r"(?:first|second|last)\s+third\s+of)"
)


def _n(name: str) -> str:
    """The number pattern under another group name (one regex may not reuse a name)."""
    return _NUM.replace("?P<n>", f"?P<{name}>")


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NATIVE_NUMBERS[text.lower()]


def _year_of(m: re.Match[str], today: date) -> int | None:
    groups = m.groupdict()
    if groups.get("y"):
        return int(groups["y"])
    if groups.get("yy"):  # "24년" is 2024
        return 2000 + int(groups["yy"])
    rel = (groups.get("yrel") or "").replace(" ", "")
    return {
        "올해": today.year,
        "금년": today.year,
        "작년": today.year - 1,
        "지난해": today.year - 1,
        "전년": today.year - 1,
        "재작년": today.year - 2,
        "내년": today.year + 1,
    }.get(rel)


# ---------------------------------------------------------------- rules: text → span

Rule = Callable[[re.Match[str], date], tuple[date, date] | _Span | None]
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
    return _month_day(int(m["y"]), month, None, None) if 1 <= month <= 12 else None


@rule(
    rf"{_YEAR_KO}?\s*(?:지난\s*|저번\s*)?(?<!\d)(?P<m>\d{{1,2}})\s*월(?:\s*(?P<d>\d{{1,2}})\s*일|\s*(?:{_PART_KO}))?"
)  # noqa: E501
def _ko_month(m: re.Match[str], today: date) -> tuple[date, date] | _Span | None:
    month = int(m["m"])
    day = int(m["d"]) if m["d"] else None
    part = m["part"] or m["part2"]
    if not 1 <= month <= 12:
        return None
    year = _year_of(m, today)
    try:
        if year is not None:
            return _month_day(year, month, day, part)
        start, end = _most_recent(month, day, part, today)
    except ValueError:
        return None
    return _Span(start, end, 0, 0, yearless=(month, day, part))


@rule(rf"{_YEAR_KO}\s*(?P<half>상반기|하반기)|(?P<bare>상반기|하반기)")
def _ko_half(m: re.Match[str], today: date) -> tuple[date, date]:
    second = (m["half"] or m["bare"]) == "하반기"
    year = _year_of(m, today)
    if year is None:
        year = today.year if _half(today.year, second)[0] <= today else today.year - 1
    return _half(year, second)


@rule(rf"{_YEAR_KO}?\s*(?P<q>[1-4])\s*분기|(?P<rel>지난|이번|전|저번|직전)\s*분기")
def _ko_quarter(m: re.Match[str], today: date) -> tuple[date, date]:
    current = (today.month - 1) // 3 + 1
    if m["rel"]:
        back = 0 if m["rel"] == "이번" else 1
        year, q = divmod(today.year * 4 + current - 1 - back, 4)
        return _quarter(year, q + 1)
    return _recent_quarter(int(m["q"]), _year_of(m, today), today)


def _recent_quarter(q: int, year: int | None, today: date) -> tuple[date, date]:
    """Quarter q of `year`, or the most recent quarter q that started on or before today."""
    if year is None:
        year = today.year if _quarter(today.year, q)[0] <= today else today.year - 1
    return _quarter(year, q)


@rule(rf"{_YEAR_KO}?\s*(?P<season>봄|여름|가을|겨울)(?![가-힣]{{2}})")
def _ko_season(m: re.Match[str], today: date) -> tuple[date, date]:
    return _season_range(m, today)


def _season_range(m: re.Match[str], today: date) -> tuple[date, date]:
    first = SEASONS[m["season"].lower()]
    year = _year_of(m, today)
    if year is None:
        year = today.year if date(today.year, first, 1) <= today else today.year - 1
        if first == 12 and today.month <= 2:
            year = today.year - 1
    return _season(year, first)


@rule(_YEAR_KO + r"(?!\s*(?:\d{1,2}\s*월|[1-4]\s*분기|상반기|하반기|봄|여름|가을|겨울))")
def _ko_year(m: re.Match[str], today: date) -> tuple[date, date] | None:
    year = _year_of(m, today)
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
    monday = _monday(today)
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
    saturday = _monday(today) + timedelta(days=5)
    if m["rel"].lower() in ("지난", "저번", "last"):
        saturday -= timedelta(weeks=1)
    return saturday, saturday + timedelta(days=1)


@rule(r"지지난\s*주")
def _week_before_last(m: re.Match[str], today: date) -> tuple[date, date]:
    monday = _monday(today) - timedelta(weeks=2)
    return monday, monday + timedelta(days=6)


@rule(r"지지난\s*달")
def _month_before_last(m: re.Match[str], today: date) -> tuple[date, date]:
    first = add_months(today.replace(day=1), -2)
    return first, month_end(first.year, first.month)


@rule(rf"(?:past|last)\s+{_NUM}\s+hours?|{_n('n2')}\s*시간\s*(?:이내|동안|안)")
def _hours(m: re.Match[str], today: date) -> tuple[date, date]:
    hours = _number(m["n"] or m["n2"])
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
    rf"{_NUM}\s*(?P<unit>일|주|주일|개월|달|년)\s*전(?!까지|쟁|설|통|체|국|면|략|부|원|후|시|투)|{_n('n2')}\s+(?P<unit2>days?|weeks?|months?|years?)\s+ago"
)  # noqa: E501
def _ago(m: re.Match[str], today: date) -> tuple[date, date]:
    n = _number(m["n"] or m["n2"])
    unit = _unit(m["unit"] or m["unit2"])
    if unit == "day":
        day = today - timedelta(days=n)
        return day, day
    if unit == "week":
        monday = _monday(today) - timedelta(weeks=n)
        return monday, monday + timedelta(days=6)
    if unit == "month":
        first = add_months(today.replace(day=1), -n)
        return first, month_end(first.year, first.month)
    return date(today.year - n, 1, 1), date(today.year - n, 12, 31)


def _unit(text: str) -> str:
    text = text.lower().rstrip("s")
    return {"일": "day", "주": "week", "주일": "week", "개월": "month", "달": "month",
            "년": "year"}.get(text, text)  # fmt: skip


def _rolling_range(n: int, unit: str, today: date) -> tuple[date, date]:
    """The N days/weeks/months/years ending today."""
    if unit == "day":
        return today - timedelta(days=n - 1), today
    if unit == "week":
        return today - timedelta(days=7 * n - 1), today
    if unit == "month":
        return add_months(today, -n) + timedelta(days=1), today
    return add_months(today, -12 * n) + timedelta(days=1), today


@rule(
    rf"(?:최근|지난|과거)\s*{_NUM}\s*(?P<unit>일|주|주일|개월|달|년)(?:\s*(?:간|동안|사이))?|{_n('n2')}\s*(?P<unit2>일|주|주일|개월|달|년)\s*(?:간|동안)"
)  # noqa: E501
def _ko_rolling(m: re.Match[str], today: date) -> tuple[date, date]:
    return _rolling_range(_number(m["n"] or m["n2"]), _unit(m["unit"] or m["unit2"]), today)


@rule(
    rf"(?:past|last|previous|recent|trailing)\s+(?:{_NUM}\s+)?(?P<unit>days?|weeks?|months?|years?)"
)  # noqa: E501
def _en_rolling(m: re.Match[str], today: date) -> tuple[date, date] | None:
    unit = _unit(m["unit"])
    if m["n"] is None and m[0].lower().split()[0] in ("last", "previous") and unit != "day":
        return None  # "last week/month/year" is a calendar period (rules below)
    return _rolling_range(_number(m["n"]) if m["n"] else 1, unit, today)


@rule(
    r"(?:(?:최근|지난|과거)\s*)?(?:일주일|1\s*주일)(?:\s*(?:간|동안))?"
    r"|(?:최근|지난|과거)\s*한\s*주(?:\s*(?:간|동안))?|한\s*주\s*(?:간|동안)"
)
def _one_week(m: re.Match[str], today: date) -> tuple[date, date]:
    return today - timedelta(days=6), today


@rule(r"지난\s*주|저번\s*주|전주|last\s+week|previous\s+week")
def _last_week(m: re.Match[str], today: date) -> tuple[date, date]:
    monday = _monday(today) - timedelta(weeks=1)
    return monday, monday + timedelta(days=6)


@rule(r"이번\s*주|금주|this\s+week")
def _this_week(m: re.Match[str], today: date) -> tuple[date, date]:
    return _monday(today), today


@rule(
    r"(?P<rel>지난\s*달|저번\s*달|전월|이번\s*달|이달|금월)\s*"
    r"(?:(?P<part>초순|중순|하순|초|중|말)(?![가-힣])|(?P<part2>초순|중순|하순|초|말)(?=[에의부까쯤경은는]))"
)
def _relative_month_part(m: re.Match[str], today: date) -> tuple[date, date]:
    """ "지난달 말" (days 21–end of last month), "이번 달 초" (1–10 of this month)."""
    back = 0 if m["rel"].replace(" ", "") in ("이번달", "이달", "금월") else 1
    first = add_months(today.replace(day=1), -back)
    return _part_of_month(first.year, first.month, m["part"] or m["part2"])


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
    + _YEAR_EN
    + r")?(?!\s+of\b)"
)  # noqa: E501
def _en_quarter(m: re.Match[str], today: date) -> tuple[date, date]:
    current = (today.month - 1) // 3 + 1
    if m["rel"]:
        back = 0 if m["rel"].lower() == "this" else 1
        year, q = divmod(today.year * 4 + current - 1 - back, 4)
        return _quarter(year, q + 1)
    ordinals = {"first": 1, "second": 2, "third": 3, "fourth": 4}
    q = int(m["q"]) if m["q"] else ordinals[m["ord"].lower()]
    return _recent_quarter(q, int(m["y"]) if m["y"] else None, today)


# "first half of the article" is not a period: "of" must name a year (time_phrases has the rest).
@rule(
    r"(?:(?P<ord>first|second)\s+half|h(?P<h>[12]))(?:\s*(?:of\s+)?" + _YEAR_EN + r")?(?!\s+of\b)"
)
def _en_half(m: re.Match[str], today: date) -> tuple[date, date]:
    second = (m["ord"] or "").lower() == "second" or m["h"] == "2"
    year = int(m["y"]) if m["y"] else None
    if year is None:
        year = today.year if _half(today.year, second)[0] <= today else today.year - 1
    return _half(year, second)


@rule(
    r"(?:(?P<rel>last|this)\s+)?(?P<season>spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?"
    + _YEAR_EN
    + ")?"
)  # noqa: E501
def _en_season(m: re.Match[str], today: date) -> tuple[date, date]:
    start, end = _season_range(m, today)
    if (m["rel"] or "").lower() == "last" and end >= today:
        start, end = _season(start.year - 1, start.month)
    return start, end


_EN_MONTH_FIRST = (
    rf"(?:{_PART_EN}[\s-]+)?{_MON}(?:\s+(?P<d>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?)?"
    rf"(?:,?\s+{_YEAR_EN})?(?![a-z])"
)
_EN_DAY_FIRST = (
    rf"(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON.replace('?P<mon>', '?P<mon2>')}"
    rf"(?:,?\s+{_YEAR_EN.replace('?P<y>', '?P<y3>')})?"
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
def _en_month(m: re.Match[str], today: date) -> tuple[date, date] | _Span | None:
    name = (m["mon"] or m["mon2"]).lower().rstrip(".")
    raw = m["mon"] or m["mon2"]
    day = int(m["d"] or m["d2"]) if (m["d"] or m["d2"]) else None
    year_text = m["y"] or m["y3"]
    if name in ("may", "march") and raw[0] == "m" and day is None and not year_text:
        return None  # the verbs "may" and "march", not the months
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
            return _month_day(int(year_text), month, day, part)
        start, end = _most_recent(month, day, part, today)
    except ValueError:
        return None
    return _Span(start, end, 0, 0, yearless=(month, day, part))


@rule(
    r"(?:in|of|during|for|from|year)\s+"
    + _YEAR_EN
    + r"(?!\d)|(?<![\d-])"
    + _YEAR_EN.replace("?P<y>", "?P<y2>")
    + r"(?![\d-])(?=\s*(?:년|$|[^\d년월]))"
)  # noqa: E501
def _en_year(m: re.Match[str], today: date) -> tuple[date, date]:
    year = int(m["y"] or m["y2"])
    return date(year, 1, 1), date(year, 12, 31)


# ---------------------------------------------------------------- combining spans

_RANGE_JOIN = re.compile(
    r"^\s*(?:부터|에서|서부터|~|∼|–|—|-|to|through|thru|until|till)\s*(?:the\s+)?$",
    re.IGNORECASE,
)
# Two periods joined by "and/와/과/랑/하고/및/or/, …" mean both: the range covering them (one
# range per plan; "3월과 5월" covers April too). Juxtaposed ("어제 오늘") only when they touch.
_UNION_JOIN = re.compile(
    r"^\s*(?:와|과|랑|이랑|하고|및|그리고|또는|이나|나|,|&|/|and|or|plus)\s*(?:the\s+)?$",
    re.IGNORECASE,
)
_SINCE_AFTER = re.compile(r"^\s*(?:이후|부터|以後|onwards?|and\s+later|or\s+later)", re.I)
_SINCE_BEFORE = re.compile(r"(?:since|starting|from\s+after)\s*$", re.I)
_AFTER_BEFORE = re.compile(r"after\s*$", re.I)
_UNTIL_AFTER = re.compile(r"^\s*(?:까지|전까지|이전까지)", re.I)
_BEFORE_AFTER = re.compile(r"^\s*(?:이전|以前|전에|or\s+earlier|and\s+earlier)", re.I)
_UNTIL_BEFORE = re.compile(r"(?:until|till|through|up\s+to|by)\s*$", re.I)
_BEFORE_BEFORE = re.compile(r"(?:before|prior\s+to|earlier\s+than)\s*$", re.I)


def _find_spans(text: str, today: date) -> list[_Span]:
    found: list[_Span] = []
    for pattern, fn in RULES:
        for m in pattern.finditer(text):
            if not m[0].strip():
                continue
            result = fn(m, today)
            if result is None:
                continue
            if isinstance(result, _Span):
                found.append(replace(result, pos=m.start(), stop=m.end()))
            else:
                found.append(_Span(result[0], result[1], m.start(), m.end()))
    # Longest first, then earliest; keep non-overlapping spans.
    found.sort(key=lambda s: (-(s.stop - s.pos), s.pos))
    chosen: list[_Span] = []
    for span in found:
        if all(span.stop <= c.pos or span.pos >= c.stop for c in chosen):
            chosen.append(span)
    return sorted(chosen, key=lambda s: s.pos)


def _borrow_year(span: _Span, year: int, limit: date) -> _Span:
    """A yearless start takes its partner's year (the year before if that would pass the end)."""
    if span.yearless is None:
        return span
    month, day, part = span.yearless
    start, end = _month_day(year, month, day, part)
    if start > limit:
        start, end = _month_day(year - 1, month, day, part)
    return replace(span, start=start, end=end)


def resolve(text: str, now: datetime | None = None, tz: ZoneInfo = SEOUL) -> DateRange | None:
    """The date range a question's time words mean, or None when it has none."""
    today = local_today(now, tz)
    spans = _find_spans(text, today)
    if not spans:
        return None
    first = spans[0]
    if len(spans) >= 2:
        second, between = spans[1], text[first.stop : spans[1].pos]
        expression = text[first.pos : second.stop]
        if _RANGE_JOIN.match(between):
            first, second = _same_year(first, second)
            return _clip(first.start, second.end, expression, today)
        if _UNION_JOIN.match(between) or _touching(first, second, between):
            first, second = _same_year(first, second)
            start, end = min(first.start, second.start), max(first.end, second.end)
            return _clip(start, end, expression, today)
    before, after = text[: first.pos], text[first.stop :]
    expression = text[first.pos : first.stop]
    tail = _SINCE_AFTER.match(after) or _UNTIL_AFTER.match(after) or _BEFORE_AFTER.match(after)
    if tail:
        expression += tail[0]
    lead = (
        _SINCE_BEFORE.search(before)
        or _AFTER_BEFORE.search(before)
        or _UNTIL_BEFORE.search(before)
        or _BEFORE_BEFORE.search(before)
    )
    if lead:  # the expression must resolve the same way on its own (the LLM planner re-reads it)
        expression = lead[0] + expression
    if _SINCE_AFTER.match(after) or _SINCE_BEFORE.search(before):
        return _clip(first.start, today, expression, today)
    if _AFTER_BEFORE.search(before):
        return _clip(first.end + timedelta(days=1), today, expression, today)
    if _UNTIL_AFTER.match(after) or _UNTIL_BEFORE.search(before):
        return _clip(None, first.end, expression, today)
    if _BEFORE_AFTER.match(after) or _BEFORE_BEFORE.search(before):
        return _clip(None, first.start - timedelta(days=1), expression, today)
    return _clip(first.start, first.end, expression, today)


def _same_year(first: _Span, second: _Span) -> tuple[_Span, _Span]:
    """A yearless start borrows the end's year; a yearless end the start's ("2024년 1월~3월")."""
    if second.yearless is None or first.yearless is not None:
        first = _borrow_year(first, second.start.year, second.end)
    else:
        second = _borrow_year(second, first.start.year, date.max)
        if second.end < first.start:
            second = _borrow_year(second, first.start.year + 1, date.max)
    return first, second


def _touching(first: _Span, second: _Span, between: str) -> bool:
    """Side by side with nothing between ("어제 오늘"), and no gap between the two periods."""
    return (
        not between.strip()
        and second.start <= first.end + timedelta(days=1)
        and first.start <= second.end + timedelta(days=1)
    )


def _clip(start: date | None, end: date | None, expression: str, today: date) -> DateRange:
    if end is not None and end > today and (start is None or start <= today):
        end = today
    if start is not None and end is not None and start > end:  # "2028년부터": open-ended
        end = None
    return DateRange(start, end, expression.strip())


def parse_absolute(
    expression: str, now: datetime | None = None, tz: ZoneInfo = SEOUL
) -> DateRange | None:
    """A single absolute date in a form the rules do not know, via `dateparser` (a helper only:
    it misses most Korean relative phrases). Requires a digit, so vague words never match."""
    if not re.search(r"\d", expression):
        return None
    import dateparser

    base = datetime.combine(local_today(now, tz), datetime.min.time())
    parsed = dateparser.parse(
        expression,
        languages=["ko", "en"],
        settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past", "STRICT_PARSING": True},
    )
    if parsed is None:
        return None
    return DateRange(parsed.date(), parsed.date(), expression.strip())


# More phrasings (native Korean counts, year-relative halves/quarters, ordinal weeks of a month…)
# register their rules on import; kept in their own module to keep this one readable.
from planrag.planner import holidays, time_phrases  # noqa: E402, F401
