"""Follow-up questions: the standalone question a plan is made from, given the turns before it.

Chat users ask elliptically: "그럼 작년에는?", "그 중 두 번째 문서 요약해줘", "and who founded it?".
Without an LLM these rules carry the previous turn forward:

- **a changed time, same topic** — the new question is little more than a time expression
  ("그럼 작년에는?", "what about last month?"): the previous question's topic with the new time;
- **an ordinal reference** to the previous answer's sources ("두 번째 문서", "the second one",
  "마지막 글"): that document, in document mode;
- **a pronoun or demonstrative** for the previous subject ("it", "그 회사", "거기"): replaced by
  the previous question's main entity;
- **knowledge bases** the previous plan searched, when the new question names none.

With an LLM, `Condenser` asks it for the standalone question (structured output) and falls back to
the rules, flagged, when it fails. History is trimmed to a character budget, oldest turns first.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from planrag.planner import query_text, time_range
from planrag.planner.calendar_periods import add_months
from planrag.planner.references import resolve_reference, with_particle
from planrag.planner.schema import FollowUp
from planrag.planner.time_range import DateRange
from planrag.text.entities import extract_entities, strip_particles

__all__ = ["FollowUp", "Turn", "resolve", "trim_history"]


class Source(BaseModel):
    """A document an earlier answer used, in the order it was shown."""

    doc_id: str
    title: str = ""


class Turn(BaseModel):
    """What one earlier turn leaves for the next: its question, the standalone question its plan
    was made from, the knowledge bases it searched, its time range and its sources."""

    question: str = Field(max_length=4000)
    standalone: str | None = Field(default=None, max_length=4000)
    knowledge_bases: list[str] = Field(default_factory=list)
    time_expression: str | None = None
    sources: list[Source] = Field(default_factory=list)
    answer: str | None = Field(default=None, max_length=20000)

    @property
    def asked(self) -> str:
        return self.standalone or self.question


# Words that open a follow-up and carry no content of their own.
_OPENERS = re.compile(
    r"^\s*(?:그럼|그러면|그렇다면|그리고|그럼요|그러니까|그래서|또|혹시|and|so|then|what about|"
    r"how about|and what about|ok(?:ay)?,?|also)\b[\s,]*",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"(?:요약해 ?줘|요약해 ?주세요|정리해 ?줘|설명해 ?줘|알려 ?줘|알려주세요|보여 ?줘|어땠어|어때|"
    r"어떤가요|어떻게 돼|요약|정리|자세히|설명|다시|더|에는|에선|에서는|은요|는요|것은|거는|경우는|"
    r"경우엔|때는|건|요|은|는|의|[?.!,]|\b(?:what about|how about|the same|same|show me|tell me|"
    r"please|summarize|summarise|summary|explain|more|details?|again|and|then|for|in|during|of|"
    r"too|it|that)\b)",
    re.IGNORECASE,
)

_KO_ORDINALS = {
    "첫": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "다섯": 5, "여섯": 6,
    "일곱": 7, "여덟": 8, "아홉": 9, "열": 10,
}  # fmt: skip
_EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_KO_ORDINAL = re.compile(
    r"(?P<word>첫|두|둘|세|셋|네|넷|다섯|여섯|일곱|여덟|아홉|열|\d{1,2})\s*번\s*째"
    r"(?:\s*(?:문서|글|자료|기사|결과|것|거|항목|파일|출처))?"
)
_KO_LAST = re.compile(r"마지막\s*(?:문서|글|자료|기사|결과|것|거|항목|파일|출처)")
_EN_ORDINAL = re.compile(
    r"\b(?:the\s+)?(?P<word>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"last|\d{1,2}(?:st|nd|rd|th))\s+(?:one|document|doc|result|article|source|post|file|item)\b",
    re.IGNORECASE,
)
_EN_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|that one|this one|he|she|him|her)\b", re.I)
_KO_DEMONSTRATIVE = re.compile(
    r"(?:그|이|해당)\s*(?:회사|사람|인물|기업|기관|단체|제품|곳|분|팀|나라|도시|프로젝트)|"
    r"거기|그곳|그녀|그는|그가|그의|그를"
)


# "연합뉴스 것만 보여줘", "only the ones from Reuters": the same question, narrowed.
_NARROWING = re.compile(
    r"^\s*(?P<what>\S.{0,40}?)\s*(?:것|거|기사|글|뉴스|자료|문서)(?:들)?\s*만(?:\s|$|[?.!,])"
    r"|^\s*(?:only|just)\s+(?:the\s+)?(?:ones?|articles?|posts?|news)\s+(?P<what2>(?:from|by)\s+.{1,40}?)"
    r"\s*[?.!]*$",
    re.IGNORECASE,
)


def trim_history(history: list[Turn], budget_chars: int) -> list[Turn]:
    """The most recent turns whose text fits `budget_chars` (oldest dropped first)."""
    kept: list[Turn] = []
    used = 0
    for turn in reversed(history):
        size = len(turn.question) + len(turn.standalone or "") + len(turn.answer or "")
        if kept and used + size > budget_chars:
            break
        kept.append(turn)
        used += size
    return list(reversed(kept))


def resolve(question: str, history: list[Turn], now: datetime, tz: ZoneInfo) -> FollowUp:
    """The standalone question by the rules (no LLM). Without history, the question itself."""
    if not history:
        return FollowUp(question=question, standalone=question)
    previous = history[-1]
    result = FollowUp(question=question, standalone=question, source="rules")
    if previous.knowledge_bases:  # used when the request names none itself
        result.knowledge_bases = list(previous.knowledge_bases)
        result.carried.append("knowledge_bases")
    pointed = _ordinal_source(question, previous)
    if pointed is not None:
        result.doc_id = pointed.doc_id
        result.carried.append("document")
        label = f"'{pointed.title}'" if pointed.title else "그 문서"
        result.standalone = _replace_ordinal(question, label)
        return result
    shifted = _time_shift(question, previous, now, tz) or _step_back(question, previous, now, tz)
    if shifted is not None:
        result.standalone = shifted
        result.carried += ["topic", "time"]
        return result
    replaced = resolve_reference(question, previous.asked, previous.answer)
    entity = _main_entity(previous)
    pronoun = _EN_PRONOUN.search(question) or _KO_DEMONSTRATIVE.search(question)
    if replaced is None and entity and pronoun:  # a pronoun for the previous subject
        replaced = with_particle(question, pronoun.start(), pronoun.end(), entity)
    if replaced is not None and replaced != question:
        result.standalone = _OPENERS.sub("", replaced).strip() or replaced
        result.carried.append("entity")
        return result
    if m := _NARROWING.match(_OPENERS.sub("", question)):  # "연합뉴스 것만 보여줘"
        what = (m["what"] or m["what2"]).strip()
        result.standalone = f"{what} {previous.asked}" if m["what"] else f"{previous.asked} {what}"
        result.carried += ["topic", "time"]
        return result
    if _is_bare(question, now, tz):  # "그럼 요약해줘": the same topic again
        result.standalone = f"{previous.asked} {_OPENERS.sub('', question).strip()}".strip()
        result.carried.append("topic")
    return result


def _ordinal_source(question: str, previous: Turn) -> Source | None:
    if not previous.sources:
        return None
    index: int | None = None
    if match := _KO_ORDINAL.search(question):
        word = match.group("word")
        index = int(word) if word.isdigit() else _KO_ORDINALS[word]
    elif _KO_LAST.search(question):
        index = len(previous.sources)
    elif match := _EN_ORDINAL.search(question):
        word = match.group("word").lower()
        if word == "last":
            index = len(previous.sources)
        else:
            index = int(word[:-2]) if word[0].isdigit() else _EN_ORDINALS[word]
    if index is None or not 1 <= index <= len(previous.sources):
        return None
    return previous.sources[index - 1]


def _replace_ordinal(question: str, label: str) -> str:
    for pattern in (_KO_ORDINAL, _KO_LAST, _EN_ORDINAL):
        if pattern.search(question):
            text = pattern.sub(label, question, count=1)
            return re.sub(
                r"^\s*(?:그\s*중(?:에서)?|그중(?:에서)?|of those,?|from those,?)\s*", "", text
            )
    return question


def _time_shift(question: str, previous: Turn, now: datetime, tz: ZoneInfo) -> str | None:
    """ "그럼 작년에는?" → the previous topic with the new time expression."""
    found = time_range.resolve(question, now, tz)
    if found is None or not _is_bare(question, now, tz):
        return None
    topic, before = _without_time(previous.asked, now, tz)
    if not topic:
        return None
    return f"{_with_year(found.expression, before)} {topic}"


def _without_time(text: str, now: datetime, tz: ZoneInfo) -> tuple[str, DateRange | None]:
    """The search text of `text` without any time expression (a filter or not), and its range."""
    found = time_range.resolve(text, now, tz)
    if found is None:
        return text.strip(), None
    at = text.find(found.expression)
    masked = query_text.mask(text, at, at + len(found.expression))
    return query_text.search_text(text, masked).strip(), found


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_PART_OF_YEAR = re.compile(
    r"상반기|하반기|분기|\d{1,2}\s*월|[1-4]Q|Q[1-4]|half|quarter|january|february|march|april|"
    r"may|june|july|august|september|october|november|december",
    re.IGNORECASE,
)


def _with_year(expression: str, previous: DateRange | None) -> str:
    """A part of a year with no year of its own ("하반기" after "2023년 상반기") takes the year
    of the previous turn's explicit range."""
    expr = getattr(previous, "expression", None) or ""
    year = _YEAR.search(expr)
    if year is None or _YEAR.search(expression) or not _PART_OF_YEAR.search(expression):
        return expression
    if re.search(r"[가-힣]", expression):
        return f"{year.group()}년 {expression}"
    return f"{expression} {year.group()}"


_STEP = re.compile(
    r"(?P<unit>week|month|year|quarter)\s+(?P<dir>before|after)|(?P<dir2>previous|next|following)\s+"
    r"(?P<unit2>week|month|year|quarter)|(?P<one>one|period)\s+(?P<dir3>before|after)"
    r"|그\s*(?P<ko_dir>전|다음|이전|뒤)\s*(?P<ko>주|달|해|년|분기|것|거)?|(?P<ko_dir2>전|다음)\s*(?P<ko2>주|달|년도|해|분기)",
    re.IGNORECASE,
)
_KO_UNITS = {
    "주": "week",
    "달": "month",
    "해": "year",
    "년": "year",
    "년도": "year",
    "분기": "quarter",
}


def _step_back(question: str, previous: Turn, now: datetime, tz: ZoneInfo) -> str | None:
    """ "and the week before?", "그 다음 주는?", "what about the one before that?" → the previous
    topic, one week (month, year; or one period of its own length) before or after its time."""
    match = _STEP.search(question)
    topic, found = _without_time(previous.asked, now, tz)
    if match is None or found is None or found.start is None or found.end is None or not topic:
        return None
    word = match["dir"] or match["dir2"] or match["dir3"] or match["ko_dir"] or match["ko_dir2"]
    forward = word.lower() in ("after", "next", "following", "다음", "뒤")
    unit = (match["unit"] or match["unit2"] or "").lower() or _KO_UNITS.get(
        match["ko"] or match["ko2"] or "", ""
    )
    start, end = _shifted(found.start, found.end, unit, 1 if forward else -1)
    today = time_range.local_today(now, tz)
    return (
        f"{_spoken(start, end, today) or f'{start.isoformat()}부터 {end.isoformat()}까지'} {topic}"
    )


def _shifted(start: date, end: date, unit: str, step: int) -> tuple[date, date]:
    """The period one `unit` (or one period of the same length) before (step −1) or after."""
    if unit == "week":
        return start + timedelta(days=7 * step), end + timedelta(days=7 * step)
    if unit in ("month", "quarter"):
        months = 3 if unit == "quarter" else 1
        first = add_months(start.replace(day=1), step * months)
        last = add_months(first, months - 1)
        return first, last.replace(day=monthrange(last.year, last.month)[1])
    if unit == "year":
        return start.replace(year=start.year + step), end.replace(year=end.year + step)
    if not unit:  # "the one before that": a period of the same kind
        return _shifted(start, end, _calendar_unit(start, end), step)
    length = (end - start).days + 1
    return start + timedelta(days=length * step), end + timedelta(days=length * step)


def _calendar_unit(start: date, end: date) -> str:
    """ "week", "month", "quarter" or "year" when [start, end] is one; "days" otherwise."""
    if start.weekday() == 0 and (end - start).days == 6:
        return "week"
    if start.day == 1 and end.day == monthrange(end.year, end.month)[1]:
        months = (end.year - start.year) * 12 + end.month - start.month + 1
        return {1: "month", 3: "quarter", 12: "year"}.get(months, "days")
    return "days"


def _spoken(start: date, end: date, today: date) -> str | None:
    """A calendar week, month or year said relative to today ("2주 전", "3개월 전", "이번 주"),
    so that the follow-up's time reads as one about the documents, as the earlier turn's did."""
    monday = today - timedelta(days=today.weekday())
    if start.weekday() == 0 and (end - start).days == 6:
        weeks = (monday - start).days // 7
        return "이번 주" if weeks == 0 else f"{weeks}주 전" if weeks > 0 else None
    if start.day == 1 and end == start.replace(day=monthrange(start.year, start.month)[1]):
        months = (today.year - start.year) * 12 + today.month - start.month
        return "이번 달" if months == 0 else f"{months}개월 전" if months > 0 else None
    if (start.month, start.day, end.month, end.day) == (1, 1, 12, 31) and start.year == end.year:
        years = today.year - start.year
        return "올해" if years == 0 else f"{years}년 전" if years > 0 else None
    return None


def _is_bare(question: str, now: datetime, tz: ZoneInfo) -> bool:
    """True when nothing but openers, time/sort/count words and filler is left."""
    left, _ = _without_time(_OPENERS.sub("", question), now, tz)
    left = _FILLER.sub(" ", left)
    return not re.sub(r"[\s\W]+", "", left)


def _main_entity(previous: Turn) -> str | None:
    """The previous question's longest entity, widened to its whole word ("카카오" in
    "카카오뱅크" is "카카오뱅크"), particles stripped."""
    text = previous.asked
    found = extract_entities(text)
    if not found:
        return None
    entity = max(found, key=len)
    for word in text.split():
        if entity in word and word != entity:
            return strip_particles(word.strip("?!.,\"'"))
    return entity
