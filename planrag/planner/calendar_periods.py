"""Calendar arithmetic for time expressions: months, their parts (초/중순/말), quarters, halves,
seasons, weeks starting Monday, and rolling "last N days/weeks/months/years" ranges. Pure date
maths, no parsing (`time_rules` reads the words, `time_range` combines the spans)."""

from __future__ import annotations

import calendar
from datetime import date, timedelta


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def part_of_month(year: int, month: int, part: str | None) -> tuple[date, date]:
    if part in ("초", "초순", "early"):
        return date(year, month, 1), date(year, month, 10)
    if part in ("중", "중순", "mid"):
        return date(year, month, 11), date(year, month, 20)
    if part in ("말", "하순", "late", "end"):
        return date(year, month, 21), month_end(year, month)
    return date(year, month, 1), month_end(year, month)


def month_span(year: int, month: int, day: int | None, part: str | None) -> tuple[date, date]:
    if day is not None:
        one = date(year, month, day)
        return one, one
    return part_of_month(year, month, part)


def most_recent(month: int, day: int | None, part: str | None, today: date) -> tuple[date, date]:
    """The most recent such month/day/part that started on or before today."""
    start, end = month_span(today.year, month, day, part)
    if start > today:
        start, end = month_span(today.year - 1, month, day, part)
    return start, end


def quarter_span(year: int, q: int) -> tuple[date, date]:
    return date(year, 3 * q - 2, 1), month_end(year, 3 * q)


def half_span(year: int, second: bool) -> tuple[date, date]:
    return (
        (date(year, 7, 1), date(year, 12, 31)) if second else (date(year, 1, 1), date(year, 6, 30))
    )


SEASONS = {"봄": 3, "여름": 6, "가을": 9, "겨울": 12, "spring": 3, "summer": 6, "autumn": 9,
           "fall": 9, "winter": 12}  # fmt: skip


def season_span(year: int, first_month: int) -> tuple[date, date]:
    start = date(year, first_month, 1)
    return start, month_end(*divmod_month(year, first_month + 2))


def divmod_month(year: int, month: int) -> tuple[int, int]:
    """(year, month) with month possibly past 12 normalised."""
    extra, m = divmod(month - 1, 12)
    return year + extra, m + 1


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


# ---------------------------------------------------------------- vocabulary


def unit_name(text: str) -> str:
    text = text.lower().rstrip("s")
    return {"일": "day", "주": "week", "주일": "week", "개월": "month", "달": "month",
            "년": "year"}.get(text, text)  # fmt: skip


def rolling_range(n: int, unit: str, today: date) -> tuple[date, date]:
    """The N days/weeks/months/years ending today."""
    if unit == "day":
        return today - timedelta(days=n - 1), today
    if unit == "week":
        return today - timedelta(days=7 * n - 1), today
    if unit == "month":
        return add_months(today, -n) + timedelta(days=1), today
    return add_months(today, -12 * n) + timedelta(days=1), today


def units_back(n: int, unit: str, today: date) -> tuple[date, date]:
    """The day, Monday–Sunday week, month or year n units before today's ("3일 전", "two weeks
    ago")."""
    if unit == "day":
        day = today - timedelta(days=n)
        return day, day
    if unit == "week":
        start = week_start(today) - timedelta(weeks=n)
        return start, start + timedelta(days=6)
    if unit == "month":
        first = add_months(today.replace(day=1), -n)
        return first, month_end(first.year, first.month)
    return date(today.year - n, 1, 1), date(today.year - n, 12, 31)
