"""Korean and English time expressions → inclusive date ranges in Asia/Seoul, for a given `now`.

The calendar maths is ours (DESIGN.md "Time semantics"): weeks start Monday; "지난주/last week" is
the previous Monday–Sunday; "이번 주/this week" is Monday–today; a bare month, day, quarter, half or
season is the most recent one that started on or before today; "최근 N일/past N days" is the N days
ending today; 초/중순/말 are days 1–10, 11–20, 21–end; "X 이후/since X", "X 이전/before X", "A부터
B까지/between A and B" combine spans; a range ending in the future is clipped to today.
"최근/latest" without a number is a sort, not a time filter (the heuristic planner handles it).
`dateparser` is only a helper for absolute dates in forms these rules do not know.
The words are read by the rules of `time_rules` (with `holidays` and `time_phrases`), over the
vocabulary of `time_vocabulary` and the date maths of `calendar_periods`; this module combines
the spans they find.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from planrag.planner.calendar_periods import month_span
from planrag.planner.time_rules import RULES, Span

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


def local_today(now: datetime | None = None, tz: ZoneInfo = SEOUL) -> date:
    """Today in `tz`, Asia/Seoul by default (naive datetimes are taken to be in `tz`)."""
    if now is None:
        return datetime.now(tz).date()
    if now.tzinfo is None:
        return now.date()
    return now.astimezone(tz).date()


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


def _find_spans(text: str, today: date) -> list[Span]:
    found: list[Span] = []
    for pattern, fn in RULES:
        for m in pattern.finditer(text):
            if not m[0].strip():
                continue
            result = fn(m, today)
            if result is None:
                continue
            if isinstance(result, Span):
                found.append(replace(result, pos=m.start(), stop=m.end()))
            else:
                found.append(Span(result[0], result[1], m.start(), m.end()))
    # Longest first, then earliest; keep non-overlapping spans.
    found.sort(key=lambda s: (-(s.stop - s.pos), s.pos))
    chosen: list[Span] = []
    for span in found:
        if all(span.stop <= c.pos or span.pos >= c.stop for c in chosen):
            chosen.append(span)
    return sorted(chosen, key=lambda s: s.pos)


def _borrow_year(span: Span, year: int, limit: date) -> Span:
    """A yearless start takes its partner's year (the year before if that would pass the end)."""
    if span.yearless is None:
        return span
    month, day, part = span.yearless
    start, end = month_span(year, month, day, part)
    if start > limit:
        start, end = month_span(year - 1, month, day, part)
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


def _same_year(first: Span, second: Span) -> tuple[Span, Span]:
    """A yearless start borrows the end's year; a yearless end the start's ("2024년 1월~3월")."""
    if second.yearless is None or first.yearless is not None:
        first = _borrow_year(first, second.start.year, second.end)
    else:
        second = _borrow_year(second, first.start.year, date.max)
        if second.end < first.start:
            second = _borrow_year(second, first.start.year + 1, date.max)
    return first, second


def _touching(first: Span, second: Span, between: str) -> bool:
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
