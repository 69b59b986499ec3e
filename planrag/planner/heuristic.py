"""The heuristic planner: deterministic rules, no LLM, well under 2 ms a question.

mode (`direct` for greetings and thanks), sort and limit ("2개만", "top 3", "가장 최근", "오래된
순"), time (our calendar module), authors and domains grounded in the knowledge bases' real facet
values, quoted phrases → `keyword`, otherwise the configured default strategy (`hybrid`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from planrag.core.settings import PlannerSettings
from planrag.planner import query_text, time_range
from planrag.planner.direct import is_direct
from planrag.planner.schema import Filters, GraphPlan, SearchPlan, Sort, TimeFilter
from planrag.planner.scope import PlanScope
from planrag.text.entities import is_relational, question_pattern

_NEWEST = re.compile(
    # Time words ("최근 3일") are removed before this runs: any "최근" left asks for recent first.
    r"최신\s*순|최신|최근|새로\s*나온|요즘|역순|내림차순|"
    r"\bnewest\b|\blatest\b|\bmost\s+recent\b|\brecent(?:ly)?\b|\bnew\s+first\b",
    re.IGNORECASE,
)
_OLDEST = re.compile(
    r"오래된|(?:과거|옛날|예전)\s*(?:것|기사|글|뉴스|자료|문서)?\s*(?:부터|순)|시간\s*순|날짜\s*순"
    r"|오름차순|\boldest\b|\bearliest\b|\bchronological",
    re.IGNORECASE,
)
_KO_COUNT = re.compile(r"(?<![\d.])(\d{1,3})\s*(?:개만|건만|개의|건의|개(?!월)|건|편|가지)")
_KO_NATIVE = re.compile(
    r"(?<![가-힣])(하나|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s*(?:개(?!월)|건|편|가지)"
    r"|(?<![가-힣])(하나|둘|셋|넷)(?:만|\s|$)"
)
_EN_COUNT = re.compile(
    r"\btop[\s-]*(\d{1,3})\b|\b(?:first|last|latest|newest|oldest|only|just)\s+(\d{1,3})\b"
    r"|\b(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:most\s+recent|latest|"
    r"newest|oldest|recent|articles?|posts?|documents?|docs|results?|news|items?|stories|papers|"
    r"reports?|passages?|examples?)\b|\b(?:just|only)\s+(one)\b",
    re.IGNORECASE,
)
_NATIVE = {
    "하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "넷": 4, "네": 4, "다섯": 5,
    "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "one": 1, "two": 2, "three": 3,
    "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_QUOTED = re.compile(r"[\"“”「」『』]([^\"“”「」『』]{2,200})[\"“”「」『』]")


def detect_mode(question: str) -> str:
    return "direct" if is_direct(question) else "rag"


def detect_sort(text: str) -> Sort:
    return find_sort(text)[0]


def find_sort(text: str) -> tuple[Sort, tuple[int, int] | None]:
    """The order asked for, and where the words that said it are."""
    for sort, pattern in (("oldest", _OLDEST), ("newest", _NEWEST)):
        m = pattern.search(text)
        if m:
            return sort, m.span()  # type: ignore[return-value]
    return "relevance", None


def detect_limit(text: str) -> tuple[int | None, str]:
    """The number of results asked for, and the text without the words that said it."""
    n, span = find_limit(text)
    return (n, text) if span is None else (n, text[: span[0]] + " " + text[span[1] :])


def find_limit(text: str) -> tuple[int | None, tuple[int, int] | None]:
    """The number of results asked for, and where the words that said it are."""
    for pattern in (_KO_COUNT, _KO_NATIVE, _EN_COUNT):
        m = pattern.search(text)
        if m:
            raw = next(g for g in m.groups() if g)
            n = int(raw) if raw.isdigit() else _NATIVE[raw.lower()]
            if n >= 1:
                return min(n, 20), m.span()
    return None, None


@dataclass
class Reading:
    """What the words of a question fix, and the search text left once they are taken out."""

    time: TimeFilter | None
    sort: Sort
    limit: int | None
    query: str
    reasons: list[str]


def read_question(text: str, now: datetime, tz: ZoneInfo) -> Reading:
    """Time, sort and count words, and the search text without them (nor what they leave
    dangling: "최근 3개월 동안의 인사 규정" searches "인사 규정")."""
    reasons: list[str] = []
    masked = text
    time = None
    found = time_range.resolve(text, now, tz)
    if found is not None:
        start, end = found.iso()
        time = TimeFilter.of(start, end, found.expression)
        at = text.find(found.expression)
        masked = query_text.mask(masked, at, at + len(found.expression))
        reasons.append(f"time '{found.expression}'")
    sort, sort_span = find_sort(masked)  # before the count words go: "3 most recent posts"
    limit, limit_span = find_limit(masked)
    for span in (sort_span, limit_span):
        if span is not None:
            masked = query_text.mask(masked, *span)
    if limit:
        reasons.append(f"limit {limit}")
    if sort != "relevance":
        reasons.append(f"sort {sort}")
    return Reading(time, sort, limit, query_text.search_text(text, masked), reasons)


def _mentions(question: str, values: list[str]) -> list[str]:
    """The values the question names. Korean attaches particles ("연합뉴스가"), so a substring
    counts; a value ending in a Latin letter or digit must end a word ("Kim" is not in "Kimchi")."""
    folded = question.casefold()
    found = []
    for value in values:
        v = value.casefold()
        if len(v) < 2 or v not in folded:
            continue
        if v[-1].isascii() and v[-1].isalnum():
            pattern = rf"(?<![a-z0-9]){re.escape(v)}(?![a-z0-9])"
            if not re.search(pattern, folded):
                continue
        found.append(value)
    return found


class HeuristicPlanner:
    def __init__(self, settings: PlannerSettings) -> None:
        self._settings = settings
        self._tz = ZoneInfo(settings.timezone)

    def plan(self, question: str, scope: PlanScope) -> SearchPlan:
        text = question.strip()
        if scope.doc_id is None and detect_mode(text) == "direct":
            why = "greeting, thanks or a question about the assistant"
            return SearchPlan(mode="direct", knowledge_bases=[], rationale=why)
        words = read_question(text, scope.now, self._tz)
        time, sort, limit, reasons = words.time, words.sort, words.limit, words.reasons
        strategy = self._settings.strategy
        if _QUOTED.search(text):
            strategy = "keyword"
            reasons.append("quoted phrase → keyword")
        kbs = self._choose_kbs(text, scope)
        filters = Filters(
            time=time,
            authors=_mentions(text, scope.authors()),
            domains=[d for d in _mentions(text, scope.domains()) if d not in kbs],
            doc_ids=[scope.doc_id] if scope.doc_id else [],
        )
        if filters.authors:
            reasons.append(f"authors {filters.authors}")
        if filters.domains:
            reasons.append(f"domains {filters.domains}")
        top_k = max(self._settings.top_k, 3 * limit) if limit else self._settings.top_k
        query = words.query
        listing = self._lists(words, filters, text, scope)
        graph = self._graph(text, kbs, scope, reasons)
        if listing:
            first = "oldest" if sort == "oldest" else "newest"
            reasons.append(f"no topic beyond the filters → list the documents, {first} first")
        return SearchPlan(
            mode="document" if scope.doc_id else "rag",
            strategy=strategy,  # type: ignore[arg-type]
            knowledge_bases=kbs,
            query=query if query and query != text else None,
            top_k=min(top_k, 50),
            graph=graph,
            filters=filters,
            sort=sort,
            limit=limit,
            listing=listing,
            rationale="; ".join(reasons) or "default retrieval",
        )

    @staticmethod
    def _graph(question: str, kbs: list[str], scope: PlanScope, reasons: list[str]) -> GraphPlan:
        """Graph search on for relational or multi-hop questions when a chosen KB has a graph;
        3 hops for chains ("A의 B의 C"), else 2."""
        chosen = [kb for kb in scope.knowledge_bases if not kbs or kb.name in kbs]
        if not any(kb.has_graph for kb in chosen) or not is_relational(question):
            return GraphPlan()
        hops = 3 if question_pattern(question) == "A의 B의 C" else 2
        reasons.append(f"relational question → graph search, {hops} hops")
        return GraphPlan(enabled=True, hops=hops)

    @staticmethod
    def _lists(words: Reading, filters: Filters, question: str, scope: PlanScope) -> bool:
        """List documents by date instead of searching: a period, author or order is asked for
        and no topic ("어제 나온 기사 알려줘", "지난주 글 보여줘", "최근 기사 5개")."""
        if scope.doc_id or _QUOTED.search(question):
            return False
        if not (filters.time or filters.authors or filters.domains or words.sort != "relevance"):
            return False
        named = [*filters.authors, *filters.domains, *_mentions(question, scope.names())]
        return not query_text.names_a_topic(words.query, named)

    @staticmethod
    def _choose_kbs(question: str, scope: PlanScope) -> list[str]:
        """The requested KBs; otherwise those the question names; otherwise every readable one."""
        names = scope.names()
        if scope.requested:
            return names
        named = _mentions(question, names)
        return named or names
