"""Whether a question is about the documents or about the world, word by word (docs/planner.md,
"Document time vs. world time").

A time expression filters the documents only when it scopes them: it is relative (지난주, 최근 2주,
어제, 올해, this quarter, a quarter or half without a year), or a publication cue names documents
(기사, 뉴스, 글, 문서, 보고서, 회의록, 게시물, 올라온, articles, posts, reports, …), or nothing but
the time is asked for ("2024년 3월 것", "between March 1 and March 15, 2024"). An absolute date
or year in a question about the world ("1989년 … 파견된 인물은?") stays in the search text.
"발표된/작성된/published" alone do not make a cue: albums, treaties and novels are published too;
they count with a document noun, or when nothing else is asked for.

Counts are explicit requests only: a number with a counter (개, 건, 편; 하나, 둘) followed by 만 or
a request verb ("3개만", "5건 보여줘"), or right after a document noun, 것, or an order word ("기사
5개", "가장 최근 3개", "상위 5개"); in English "top 5", "3 articles", "the 2 most recent". Never a
number inside a word ("한 건물", "누리봇 S2 개발", "아이폰 15 개봉기") nor a count of other things
("두 가지 전통", "15개 나라"). An order is a sort only when it orders documents: an order word
("최신순", "오래된 순", "시간순", "oldest first"), or a recency/age word in the same phrase as a
document noun ("가장 오래된 문서", "최신 보안 공지", "latest news"); "가장 오래된 아파트는?" is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from planrag.planner.analysis import Analysis, Token

Span = tuple[int, int]


def vocabulary(text: str) -> frozenset[str]:
    """A set of words written as one space-separated string."""
    return frozenset(text.split())


# Nouns naming documents: a time next to them dates the documents.
DOC_NOUNS_KO = vocabulary(
    "기사 뉴스 글 문서 보고서 회의록 의사록 게시물 게시글 공지 공지사항 보도 보도자료 소식 "
    "포스트 자료 리포트 메일 이메일 블로그 칼럼 사설 브리핑 발표자료 공문 메모 보고 속보 "
    "주간보고 월간보고 포스팅 게시판 피드 릴리스노트 배포노트 공시 "
    # a team's documents: "2025년 인사 규정" is the 2025 version of the document
    "규정 지침 매뉴얼 공고 안내문 계획서 제안서 기획서 계약서 명세서 백서 회의자료 품의서 보고자료"
)
# Of those, the ones that only name the document type: dropped from the search text of a
# question about documents ("반도체 기사 알려줘" searches 반도체).
GENERIC_DOC_NOUNS_KO = frozenset(
    ["기사", "뉴스", "글", "문서", "자료", "게시물", "게시글", "소식", "포스트", "포스팅"]
)
_PUBLISH_KO = frozenset({"올라오", "올리", "게시", "업로드"})
_EN_DOC = (
    r"news|articles?|posts?|reports?|documents?|docs|minutes|announcements?|advisories|"
    r"notices?|memos?|newsletters?|press\s+releases?|release\s+notes|blog\s+posts?|updates|"
    r"headlines|bulletins?|emails?|e-mails?"
)
_EN_DOC_WORD = re.compile(rf"\b(?:{_EN_DOC})\b", re.IGNORECASE)
_EN_PUBLISH = re.compile(r"\b(?:posted|uploaded)\b", re.IGNORECASE)
_EN_GENERIC_DOC = re.compile(
    r"\b(?:news|articles?|posts?|documents?|docs|items|headlines)\b", re.IGNORECASE
)

# A relative time: its dates depend on today. A year written out makes it absolute ("지난 2017년").
# A duration alone ("3년 동안 이어진 전쟁", "이틀 동안 열리는 축제") is not: it needs 최근/지난
# ("지난 3년 동안") or a publication cue.
_DEICTIC = re.compile(
    r"지난|저번|이번|금주|금월|당월|최근|과거|어제|어저께|오늘|금일|그저께|그제|엊그제|작년|올해|금년|"
    r"재작년|전년|내년|전월|전주|전일|요즘|이맘때|지지난|"
    r"(?:\d+\s*(?:일|주|주일|개월|달|년|시간)|하루|이틀|사흘|나흘|닷새|엿새|이레|열흘|보름|"
    r"(?:석|넉)\s*달)\s*(?:전|이내|내)|"
    r"\b(?:yesterday|today|tonight|this|last|past|previous|prior|ago|recent|recently|back|current|"
    r"ytd|fortnight|couple|trailing|now)\b|year\s+to\s+date",
    re.IGNORECASE,
)
# A period of "the most recent" year: a quarter, half or month without a year ("하반기", "10월",
# "3월 초", "11월 첫째 주"). A yearless day ("5월 18일", "March 1") names a date of the world.
_YEARLESS_PERIOD = re.compile(
    r"상반기|하반기|분기|\bq[1-4]\b|\bh[12]\b|\bhalf\b|\bquarter\b|\d{1,2}\s*월(?!\s*\d{1,2}\s*일)"
    r"|\b(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b(?!\s*\d)",
    re.IGNORECASE,
)
_FULL_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)|(?<!\d)\d{2}\s*년")


def relative(expression: str) -> bool:
    """Whether a time expression is relative to today (and so about the documents)."""
    if _FULL_YEAR.search(expression):
        return False
    return bool(_DEICTIC.search(expression) or _YEARLESS_PERIOD.search(expression))


# 기사 is also a player, a driver or a knight: "바둑 기사", "택시 기사", "기사 작위".
_KISA_PERSON_BEFORE = vocabulary("바둑 택시 버스 운전 트럭 화물 기관 정비 장기 프로 여류 기술 전기")
_KISA_PERSON_AFTER = vocabulary("작위 단 단장 도")


def _person(analysis: Analysis, i: int) -> bool:
    tokens = analysis.tokens
    if tokens[i].form != "기사":
        return False
    before = tokens[i - 1].form if i else ""
    after = tokens[i + 1].form if i + 1 < len(tokens) else ""
    return before in _KISA_PERSON_BEFORE or after in _KISA_PERSON_AFTER


def publication_cues(analysis: Analysis) -> list[Span]:
    """Where the question names documents or their publication (기사, 올라온, articles, posted)."""
    spans: list[Span] = []
    for i, t in enumerate(analysis.tokens):
        noun = t.tag.startswith("NN") and t.form in DOC_NOUNS_KO and not _person(analysis, i)
        if noun or (t.tag in ("VV", "NNG") and t.form in _PUBLISH_KO):
            spans.append((t.start, t.end))
    text = analysis.text
    spans += [m.span() for m in _EN_DOC_WORD.finditer(text)]
    spans += [m.span() for m in _EN_PUBLISH.finditer(text)]
    return sorted(set(spans))


def generic_doc_nouns(analysis: Analysis) -> list[Span]:
    """The words that only name the document type or its publication ("기사 중", "올라온",
    "news"): out of the search text of a question about documents."""
    spans: list[Span] = []
    tokens = analysis.tokens
    for i, t in enumerate(tokens):
        if t.tag.startswith("NN") and t.form in GENERIC_DOC_NOUNS_KO:
            j = i + 1
            if j < len(tokens) and tokens[j].form == "중" and tokens[j].tag == "NNB":
                j += 1  # "기사 중에서"
                while j < len(tokens) and tokens[j].tag.startswith("J"):
                    j += 1
            spans.append((t.start, tokens[j - 1].end))
        elif t.form in _PUBLISH_KO and t.tag in ("VV", "NNG"):
            j = i + 1
            while j < len(tokens) and tokens[j].tag in ("XSV", "EP", "ETM"):
                j += 1
            spans.append((t.start, tokens[j - 1].end))
    return spans + [m.span() for m in _EN_GENERIC_DOC.finditer(analysis.text)]


# ---------------------------------------------------------------- requests ("보여줘", "show me")

_REQUEST_STEMS = vocabulary(
    "보이 알리 찾 추천 정리 요약 뽑 고르 가져오 나열 보내 모으 검색 정렬 찾아보 알아보 골라주 소개"
)
_EN_REQUEST = re.compile(
    r"^\s*(?:(?:please|pls|can\s+you|could\s+you)\s+)?(?:show|tell|give|list|find|get|fetch|"
    r"bring|pull\s+up)\s+(?:me\s+)?|\bplease\b",
    re.IGNORECASE,
)


def request_spans(analysis: Analysis) -> list[Span]:
    """Request verbs with their endings ("보여줘", "요약해 주세요", "show me")."""
    spans: list[Span] = []
    tokens = analysis.tokens
    for i, t in enumerate(tokens):
        if t.form not in _REQUEST_STEMS or t.tag not in ("VV", "NNG", "XR"):
            continue
        j = i + 1
        while j < len(tokens) and tokens[j].tag in ("XSV", "EC", "VX", "EF", "EP", "ETN"):
            j += 1
        if j > i + 1 and any(tok.tag == "VX" and tok.form == "주" for tok in tokens[i + 1 : j]):
            spans.append((t.start, tokens[j - 1].end))
    if not analysis.korean or re.search(r"[A-Za-z]", analysis.text):
        spans += [m.span() for m in _EN_REQUEST.finditer(analysis.text) if m.group().strip()]
    return spans


# ---------------------------------------------------------------- order words

_ORDER_WORD_KO = {"역순": "newest", "내림차순": "newest", "오름차순": "oldest", "최신순": "newest",
                  "최근순": "newest", "날짜순": "oldest", "시간순": "oldest", "과거순": "oldest",
                  "등록순": "newest"}  # fmt: skip
_ORDER_BEFORE_SUN = {"최신": "newest", "최근": "newest", "날짜": "oldest", "시간": "oldest",
                     "등록": "newest", "작성": "oldest", "오래": "oldest",
                     "과거": "oldest"}  # fmt: skip
_RECENCY_KO = {"최신": "newest", "최근": "newest", "요즘": "newest", "오래": "oldest",
               "옛날": "oldest", "과거": "oldest", "예전": "oldest"}  # fmt: skip
_EN_ORDER = re.compile(
    r"\b(?P<new>newest|latest|most\s+recent|recent)\s+first\b|\b(?P<old>oldest|earliest)\s+first\b"
    r"|\b(?P<chrono>chronological(?:ly)?|in\s+date\s+order|by\s+date)\b",
    re.IGNORECASE,
)
_EN_RECENCY = re.compile(
    r"\b(?P<new>newest|latest|most\s+recent|recent)\b|\b(?P<old>oldest|earliest)\b", re.IGNORECASE
)


def _near_document(analysis: Analysis, i: int, reach: int = 5) -> bool:
    """A document noun (or 것/거, a publication verb) within `reach` tokens after token i, in the
    same phrase (no sentence end between)."""
    for t in analysis.tokens[i + 1 : i + 1 + reach]:
        if t.tag in ("SF", "EF"):
            return False
        if t.tag.startswith("NN") and (t.form in DOC_NOUNS_KO or t.form in ("것", "거")):
            return True
        if t.form in _PUBLISH_KO:
            return True
    return False


def find_order(analysis: Analysis, skip: Iterable[Span]) -> tuple[str, list[Span]]:
    """The order asked for ("relevance" when none) and where its words are."""
    skipped = list(skip)
    tokens = analysis.tokens
    for i, t in enumerate(tokens):
        if _inside(t, skipped):
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.form in _ORDER_WORD_KO:
            return _ORDER_WORD_KO[t.form], [(t.start, t.end)]
        if nxt is not None and nxt.form == "순" and nxt.tag.startswith("NN"):
            sort = _ORDER_BEFORE_SUN.get(t.form) or _recency_before(tokens, i)
            if sort:
                return sort, [(_phrase_start(tokens, i), nxt.end)]
        if t.form in _RECENCY_KO and (_near_document(analysis, i) or _counted_after(tokens, i)):
            start = tokens[i - 1].start if i and tokens[i - 1].form == "가장" else t.start
            end = _modifier_end(tokens, i)
            return _RECENCY_KO[t.form], [(start, end)]
    text = analysis.text
    if m := _EN_ORDER.search(text):
        return ("oldest" if m["old"] or m["chrono"] else "newest"), [m.span()]
    for m in _EN_RECENCY.finditer(text) if _request_like(text) else ():
        if any(s <= m.start() < e for s, e in skipped):
            continue
        after = text[m.end() : m.end() + 60]
        if _EN_DOC_WORD.match(after.lstrip()) or re.match(
            rf"\s+(?:\d+\s+|\w+\s+){{0,3}}(?:{_EN_DOC})\b", after, re.IGNORECASE
        ):
            return ("oldest" if m["old"] else "newest"), [m.span()]
        if re.match(r"\s*(?:one|\d+)\b", after) or re.search(
            r"\b(?:\d+|top)\s*$", text[: m.start()]
        ):
            return ("oldest" if m["old"] else "newest"), [m.span()]
    return "relevance", []


def _recency_before(tokens: list[Token], i: int) -> str | None:
    """ "오래된 순": the token before 순 is the ending of 오래되다."""
    for t in reversed(tokens[max(0, i - 2) : i + 1]):
        if t.form in _RECENCY_KO:
            return _RECENCY_KO[t.form]
    return None


def _phrase_start(tokens: list[Token], i: int) -> int:
    """Start of "오래된" when token i is its ending."""
    j = i
    while j > 0 and tokens[j].tag in ("XSV", "ETM", "XSA"):
        j -= 1
    return tokens[j - 1].start if j and tokens[j - 1].form == "가장" else tokens[j].start


def _modifier_end(tokens: list[Token], i: int) -> int:
    """The end of a recency word with its ending or particle ("오래된", "최근에", "최신의")."""
    j = i + 1
    while j < len(tokens) and tokens[j].tag in ("XSV", "XSA", "ETM", "JKB", "JKG", "JX"):
        j += 1
    return tokens[j - 1].end


def _counted_after(tokens: list[Token], i: int) -> bool:
    """ "최근 5개": a count right after the recency word."""
    rest = tokens[i + 1 : i + 3]
    return len(rest) == 2 and rest[0].tag in ("SN", "MM", "NR") and _is_counter(rest[1])


_EN_REQUEST_START = re.compile(
    r"^\s*(?:please\s+)?(?:show|give|list|find|get|fetch|bring|pull|what|which|any|top|only|"
    r"just|the|\d+|one|two|three|four|five|six|seven|eight|nine|ten|latest|newest|oldest|"
    r"earliest|most|recent)\b",
    re.IGNORECASE,
)


def _request_like(text: str) -> bool:
    """A short English request for documents ("show me the 3 latest posts", "top 5 articles"),
    not a sentence that mentions "two new journals" or "recent work" in passing."""
    return len(text.split()) <= 14 and bool(_EN_REQUEST_START.match(text))


def _inside(t: Token, spans: list[Span]) -> bool:
    return any(s <= t.start and t.end <= e for s, e in spans)


# ---------------------------------------------------------------- counts

_NATIVE = {
    "하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "넷": 4, "네": 4, "다섯": 5,
    "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "one": 1, "two": 2, "three": 3,
    "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_COUNTERS = frozenset({"개", "건", "편"})
_BEFORE_COUNT = frozenset({"상위", "최근", "최신", "순", "것", "거", "중", "만"})
_EN_NUM = r"(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten)"
_EN_COUNT = re.compile(
    rf"\b(?:top|only|just)\s+{_EN_NUM}\b(?=\s*(?:$|[?.!,]|(?:\w+\s+){{0,2}}(?:{_EN_DOC}|results?"
    rf"|hits|matches)\b|most|latest|newest|oldest|recent))"
    rf"|\b{_EN_NUM}\s+(?:most\s+recent|latest|newest|oldest|earliest|recent)\b"
    rf"|\b{_EN_NUM}\s+(?:\w+\s+)?(?:{_EN_DOC}|results?)\b",
    re.IGNORECASE,
)


def _is_counter(t: Token) -> bool:
    return t.tag == "NNB" and t.form in _COUNTERS


def _number(t: Token) -> int | None:
    if t.tag == "SN" and t.form.isdigit():
        return int(t.form)
    if t.tag in ("MM", "NR") and t.form in _NATIVE:
        return _NATIVE[t.form]
    return None


def find_count(
    analysis: Analysis, skip: Iterable[Span], cues: list[Span], ordered: bool
) -> tuple[int | None, list[Span]]:
    """The number of documents asked for, and where the words that said it are."""
    skipped = list(skip)
    tokens = analysis.tokens
    for i, t in enumerate(tokens):
        n = _number(t)
        if n is None or n < 1 or _inside(t, skipped):
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is not None and _is_counter(nxt) and nxt.start - t.end <= 1:
            end = nxt.end
            if _explicit(tokens, i, i + 1, cues, ordered):
                return min(n, 20), [(t.start, _with_only(tokens, i + 1, end))]
        elif t.tag == "NR" and t.form in ("하나", "둘", "셋", "넷") and _native_alone(tokens, i):
            return n, [(t.start, _with_only(tokens, i, t.end))]
    m = _EN_COUNT.search(analysis.text) if _request_like(analysis.text) else None
    if m and not any(s <= m.start() < e for s, e in skipped):
        raw = next(g for g in m.groups() if g)
        n = int(raw) if raw.isdigit() else _NATIVE[raw.lower()]
        if n >= 1:
            number_at = m.start() + m.group().lower().find(raw.lower())
            lead = m.group().lower().startswith(("top", "only", "just"))
            return min(n, 20), [(m.start() if lead else number_at, number_at + len(raw))]
    return None, []


def _with_only(tokens: list[Token], j: int, end: int) -> int:
    """The span's end including a following 만 ("3개만")."""
    if j + 1 < len(tokens) and tokens[j + 1].form == "만" and tokens[j + 1].tag == "JX":
        return tokens[j + 1].end
    return end


def _explicit(tokens: list[Token], i: int, j: int, cues: list[Span], ordered: bool) -> bool:
    """A count of documents: followed by 만 or a request, or right after a document noun, 것,
    an order word or 상위; or ending a question that names documents or an order."""
    after = tokens[j + 1 : j + 3]
    if after and after[0].form == "만" and after[0].tag == "JX":
        return True
    rest = [t for t in tokens[j + 1 :] if not t.tag.startswith("J")]
    if rest and rest[0].form in _REQUEST_STEMS:
        return True
    before = next((t for t in reversed(tokens[:i]) if not t.tag.startswith(("J", "S"))), None)
    if before is not None and (
        (before.tag.startswith("NN") and before.form in DOC_NOUNS_KO)
        or before.form in _BEFORE_COUNT
        or before.form in _RECENCY_KO
    ):
        return before.form not in ("중", "만") or bool(cues)
    ends = all(t.tag in ("SF", "SP", "SS", "SE", "SO", "SW") for t in tokens[j + 1 :])
    return ends and (bool(cues) or ordered)


def _native_alone(tokens: list[Token], i: int) -> bool:
    """ "것 하나", "하나만 보여줘": a native number standing for a count of documents."""
    before = tokens[i - 1] if i else None
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    if before is not None and before.form in ("것", "거") and before.tag == "NNB":
        return True
    if after is not None and after.form == "만" and after.tag == "JX":
        return before is None or (before.tag.startswith("NN") and before.form in DOC_NOUNS_KO)
    return False
