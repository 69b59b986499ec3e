"""The search text of a heuristic plan: the question without its time, sort and count words, and
without what those words leave dangling.

Removing "최근 3개월 동안" from "최근 3개월 동안의 인사 규정 변경" leaves "의 인사 규정 변경": the
particle belonged to the removed phrase. Which syllables are particles only Kiwi can tell, and only
in context ("의" alone is a noun to it; in "동안의" it is JKG), so the question is analysed whole
and particles (J*) that start right where a removed phrase ends go with it ("9월에는" → "",
"세 건을" → ""). In English, a preposition or article just before a removed phrase goes too
("news from last month" → "news").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

from planrag.planner.analysis import Analysis, Token, analyse

MASK = "\0"
_HANGUL = re.compile(r"[가-힣]")
_EN_DANGLING = re.compile(
    r"(?:\b(?:in|on|at|from|during|since|over|within|for|of|by|between|around|the|about)\s*)+$",
    re.IGNORECASE,
)
_EN_LEADING = re.compile(r"^(?:(?:on|about|regarding|from|of|in|for)\s+)+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"(?<=\0)['’]s\b")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([?!.,])")


def mask(text: str, start: int, end: int) -> str:
    """`text` with [start, end) blanked out by MASK characters (offsets stay valid)."""
    return text[:start] + MASK * (end - start) + text[end:]


def search_text(question: str, masked: str, analysis: Analysis | None = None) -> str:
    """The question without its masked phrases, the particles glued to their ends and the
    English prepositions just before them; whitespace collapsed. `analysis` is the question's
    Kiwi analysis when the caller has it (Kiwi then does not run again)."""
    drop = [c == MASK for c in masked]
    for m in _POSSESSIVE.finditer(masked):  # "yesterday's articles" → "articles"
        drop[m.start() : m.end()] = [True] * (m.end() - m.start())
    ends = [i for i in range(1, len(masked)) if drop[i - 1] and not drop[i]]
    if any(_HANGUL.match(question[i]) for i in ends):
        tokens = (analysis or analyse(question)).tokens
        _drop_glued_particles(tokens, drop, set(ends))
    kept: list[str] = []
    piece: list[str] = []
    for char, dropped in zip(question, drop, strict=True):
        if dropped:
            if piece:
                kept.append(_EN_DANGLING.sub("", "".join(piece)))
                piece = []
            kept.append(" ")
        else:
            piece.append(char)
    kept.append("".join(piece))
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", " ".join("".join(kept).split())).strip()
    if not _EN_LEADING.match(question):  # "latest news on AI" → "AI", not "on AI"
        text = _EN_LEADING.sub("", text)
    return text


def _drop_glued_particles(tokens: list[Token], drop: list[bool], ends: set[int]) -> None:
    for token in tokens:
        if token.start in ends and token.tag.startswith("J"):
            for i in range(token.start, token.end):
                drop[i] = True
            ends.add(token.end)  # a particle after a particle: "9월에는"


# Words that ask for documents rather than name a topic ("반도체 기사" is about 반도체; "어제 나온
# 기사 알려줘" names none). Shared with the extractive answer's relevance measure.
GENERIC_WORDS = (
    "기사 글 문서 자료 뉴스 소식 내용 관련 정보 목록 리스트 결과 요약 정리 설명 소개 질문 답변 "
    "것 거 무엇 뭐 며칠 얼마 언제 어디 누구 전부 모두 다 좀 가능 여부 "  # 가능: "can"
    "article articles post posts document documents doc docs news item items story stories "
    "report reports information info summary summarize tell show give list explain what which "
    "who whom when where why how many much does did can could would should will about please "
    "everything "
    "all any published written posted came out new"
)


def names_a_topic(query: str, mentioned: list[str]) -> bool:
    """Whether the search text holds a content word besides generic request words and the
    filter values it names (authors, domains, knowledge bases)."""
    from planrag.text.tokenizer import tokenizer_for  # Kiwi: loaded once, when needed

    text = query
    for value in sorted(mentioned, key=len, reverse=True):
        text = re.sub(re.escape(value), " ", text, flags=re.IGNORECASE)
    tokenizer = tokenizer_for()
    generic = generic_terms(tokenizer)
    return any(token not in generic for token in tokenizer.tokenize(text))


@lru_cache(maxsize=64)
def generic_terms(tokenizer: Tokenizer) -> frozenset[str]:
    """GENERIC_WORDS as the tokenizer's terms (each word alone and as written: Kiwi reads a
    word differently in and out of context). Computed once per tokenizer."""
    words = GENERIC_WORDS.split()
    return frozenset({*words, *(t for word in words for t in tokenizer.tokenize(word))})


class Tokenizer(Protocol):
    def tokenize(self, text: str) -> list[str]: ...


# Morphemes that ask for documents or say how, not what about (with GENERIC_WORDS).
_GENERIC_MORPHEMES = frozenset(
    [
        "보이",
        "알리",
        "찾",
        "추천",
        "정리",
        "요약",
        "뽑",
        "고르",
        "가져오",
        "나열",
        "보내",
        "모으",
        "검색",
        "정렬",
        "주",
        "올라오",
        "올리",
        "게시",
        "업로드",
        "작성",
        "발표",
        "나오",
        "쓰",
        "되",
        "하",
        "있",
        "이",
        "전체",
        "전부",
        "모두",
        "것",
        "거",
        "중",
        "순",
        "최신",
        "최근",
        "가장",
        "관련",
        "새",
        "새로",
        "목록",
        "리스트",
        "between",
        "and",
        "or",
        "any",
        "anything",
        "something",
        "to",
        "from",
        "in",
        "on",
        "of",
        "at",
        "by",
        "for",
        "me",
        "the",
        "a",
        "an",
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "there",
    ]
)
_CONTENT_TAGS = ("NNG", "NNP", "NR", "SL", "SH", "XR", "VV", "VA")


def has_topic(analysis: Analysis, removed: list[tuple[int, int]]) -> bool:
    """Whether a content word is left outside the removed spans (time, order, count, cue,
    request, filter values): the question names a topic."""
    generic = _generic_forms()
    for t in analysis.tokens:
        if any(s <= t.start and t.end <= e for s, e in removed):
            continue
        short = t.tag == "SL" and len(t.form) < 2  # the "s" of "yesterday's"
        if t.tag.startswith(_CONTENT_TAGS) and not short and t.form.casefold() not in generic:
            return True
    return False


@lru_cache(maxsize=1)
def _generic_forms() -> frozenset[str]:
    return frozenset({*(w.casefold() for w in GENERIC_WORDS.split()), *_GENERIC_MORPHEMES})
