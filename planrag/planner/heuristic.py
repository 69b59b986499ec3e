"""The heuristic planner: deterministic rules, no LLM, well under 2 ms a question.

mode (`direct` for greetings and thanks), sort and limit ("2개만", "top 3", "가장 최근", "오래된
순"), time (our calendar module), authors and domains grounded in the knowledge bases' real facet
values, and the configured default strategy (`hybrid`; a quoted phrase too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from planrag.core.settings import PlannerSettings
from planrag.planner import document_scope, query_text, time_range
from planrag.planner.analysis import Analysis, analyse
from planrag.planner.direct import is_direct
from planrag.planner.schema import (
    MAX_SEARCH_CHARS,
    Filters,
    GraphPlan,
    SearchPlan,
    Sort,
    TimeFilter,
)
from planrag.planner.scope import PlanScope
from planrag.text.entities import is_relational, question_pattern

_HANGUL = re.compile(r"[가-힣]")
_QUOTED = re.compile(r"[\"“”「」『』]([^\"“”「」『』]{2,200})[\"“”「」『』]")


def detect_mode(question: str) -> str:
    return "direct" if is_direct(question) else "rag"


@dataclass
class Reading:
    """What the words of a question fix, and the search text left once they are taken out."""

    time: TimeFilter | None
    sort: Sort
    limit: int | None
    query: str
    reasons: list[str]
    topic: bool = True  # a content word is left besides time, order, count, cue and request
    world: TimeFilter | None = None  # a date of the world, kept in the text (a soft signal)


def read_question(
    text: str,
    now: datetime,
    tz: ZoneInfo,
    analysis: Analysis | None = None,
    values: list[str] | None = None,
) -> Reading:
    """Time, sort and count words, each only when it is about the documents
    (document_scope.py), and the search text without what became a filter or a command (nor
    what those leave dangling: "최근 3개월 동안의 인사 규정" searches "인사 규정"). `values` are
    filter values the question names (authors, domains): out of the search text of a question
    about documents."""
    words = analysis or analyse(text)
    reasons: list[str] = []
    cues = document_scope.publication_cues(words)
    requests = document_scope.request_spans(words)
    named = _spans_of(text, values or [])
    time, time_span, world = _time(text, now, tz, words, cues + requests + named, reasons)
    skip = [time_span] if time_span else []
    sort, sort_spans = document_scope.find_order(words, skip)
    limit, limit_spans = document_scope.find_count(words, skip, cues, sort != "relevance")
    removed = [*skip, *sort_spans, *limit_spans]
    if limit:
        reasons.append(f"limit {limit} (asked for)")
    if sort != "relevance":
        reasons.append(f"sort {sort} (an order of documents)")
    if cues and (time or sort != "relevance" or limit or requests or named):
        removed += requests + named + document_scope.generic_doc_nouns(words)
    topic = query_text.has_topic(words, [*removed, *cues, *requests, *named])
    masked = text
    for span in removed:
        masked = query_text.mask(masked, *span)
    query = query_text.search_text(text, masked, words) if removed else text
    return Reading(time, sort, limit, query, reasons, topic, world)  # type: ignore[arg-type]


def _time(
    text: str,
    now: datetime,
    tz: ZoneInfo,
    words: Analysis,
    other: list[tuple[int, int]],
    reasons: list[str],
) -> tuple[TimeFilter | None, tuple[int, int] | None, TimeFilter | None]:
    """The time filter and where its words are, when the time expression scopes documents;
    else, for an absolute date about the world, that date (a soft signal, no filter)."""
    found = time_range.resolve(text, now, tz)
    if found is None:
        return None, None, None
    at = text.find(found.expression)
    span = (at, at + len(found.expression))
    cues = document_scope.publication_cues(words)
    relative = document_scope.relative(found.expression)
    if relative and (cues or _deictic_here(text, span)):
        why = "relative to today"
    elif cues:
        why = f"documents named ('{text[cues[0][0] : cues[0][1]]}')"
    elif not query_text.has_topic(words, [span, *other]):
        why = "nothing but the time is asked for"
    else:
        reasons.append(f"'{found.expression}' dates the world, not the documents: kept in the text")
        start, end = found.iso()
        world = None if relative else TimeFilter.of(start, end, found.expression)
        return None, None, world
    start, end = found.iso()
    reasons.append(f"time '{found.expression}' ({why})")
    return TimeFilter.of(start, end, found.expression), span, None


def _deictic_here(text: str, span: tuple[int, int]) -> bool:
    """Whether relative words say "recently" here: not "today's libraries" (nowadays), not a
    month before a number ("March 631"), not "today" in a long English passage. "this week's
    incidents", "last month's report" name a period, as "이번 주 보안 사고" does."""
    after = text[span[1] : span[1] + 4]
    nowadays = text[span[0] : span[1]].strip().lower() in ("today", "tonight")
    if (nowadays and after.startswith(("'s", "’s"))) or re.match(r"\s*\d", after):
        return False
    return not (not _HANGUL.search(text) and len(text.split()) > 14)


def _spans_of(text: str, values: list[str]) -> list[tuple[int, int]]:
    folded = text.casefold()
    spans = []
    for value in values:
        at = folded.find(value.casefold())
        if at >= 0:
            spans.append((at, at + len(value)))
    return spans


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
        kbs = self._choose_kbs(text, scope)
        authors = _mentions(text, scope.authors())
        domains = [d for d in _mentions(text, scope.domains()) if d not in kbs]
        named = [*authors, *domains, *_mentions(text, scope.names())]
        words = read_question(text, scope.now, self._tz, analyse(text), named)
        time, sort, limit, reasons = words.time, words.sort, words.limit, words.reasons
        # A quoted phrase keeps the default strategy: it is mostly a title ("Which "Roseanne"
        # star is in Scream 2?"), and keyword-only search lost to hybrid on 10 of the 14 quoted
        # questions of HotpotQA-200 and publichealthqa, won 1 (docs/benchmarks.md, "Issue 23").
        strategy = self._settings.strategy
        filters = Filters(
            time=time,
            authors=authors,
            domains=domains,
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
            # the search reads at most the first 2,000 characters (a long question is allowed
            # when PLANRAG_ASK__MAX_QUESTION_CHARS is raised)
            query=query[:MAX_SEARCH_CHARS] if query and query != text else None,
            top_k=min(top_k, 50),
            graph=graph,
            filters=filters,
            world_time=words.world,
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
        return not words.topic

    @staticmethod
    def _choose_kbs(question: str, scope: PlanScope) -> list[str]:
        """The requested KBs; otherwise those the question names; otherwise every readable one."""
        names = scope.names()
        if scope.requested:
            return names
        named = _mentions(question, names)
        return named or names
