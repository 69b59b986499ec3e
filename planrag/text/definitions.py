"""The sentence that says what an entity is (spec 004's entity `description`), and the type its
head noun implies.

A defining sentence has the entity as its subject and a noun as its predicate:
- Korean (read with Kiwi): the sentence opens with the entity's name (a bracketed other name may
  follow) and a topic or subject particle (은/는/이/가), and a clause ends on a copula after a
  noun — "한빛로보틱스는 … 로봇을 만드는 회사이다", "누리테크는 … 기업이며 …" — or on a noun
  with 로 before a comma ("푸른벤처스는 2012년에 설립된 벤처캐피털로, …"). The noun (compounds
  joined: 벤처+캐피털) is the head.
- English: "X is a/an/the …", "X (…), was one of the …"; the head is the first word of the
  predicate found among the type words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planrag.text.entities import HANGUL
from planrag.text.korean import get_kiwi, split_sentences

ORGANIZATION, PERSON, PRODUCT, PLACE, EVENT = (
    "ORGANIZATION",
    "PERSON",
    "PRODUCT",
    "PLACE",
    "EVENT",
)
_HEAD_WORDS = {
    ORGANIZATION: (
        "회사 기업 법인 스타트업 은행 대학교 대학 연구소 연구원 재단 협회 단체 기관 벤처캐피털 "
        "캐피털 투자사 제조사 그룹 공사 위원회 학교 병원 부서 팀 본부 센터 "
        "company firm startup corporation bank university college institute foundation "
        "association agency organization organisation manufacturer group school hospital"
    ),
    PERSON: (
        "사람 인물 대표 교수 엔지니어 창업자 직원 연구자 과학자 애널리스트 배우 감독 작가 선수 "
        "person man woman engineer professor founder actor actress director writer author "
        "singer player politician scientist"
    ),
    PRODUCT: (
        "제품 로봇 서비스 플랫폼 소프트웨어 모델 장비 차량 시스템 솔루션 "
        "product robot service platform software model device vehicle system"
    ),
    PLACE: "도시 지역 나라 국가 마을 섬 city region country town village island state",
    EVENT: "행사 대회 전시회 박람회 회의 축제 event conference fair festival competition",
}
HEAD_TYPES = {w: t for t, words in _HEAD_WORDS.items() for w in words.split()}
_SUBJECT = {("은", "JX"), ("는", "JX"), ("이", "JKS"), ("가", "JKS")}
_NOUN = ("NNG", "NNP", "SL", "NR")
_EN_COPULA = re.compile(
    r"^\s*(?:\([^()]*\)\s*)?,?\s*(?:is|was|are|were)\s+(?:one\s+of\s+)?(?:a|an|the)\s+(.+)$",
    re.IGNORECASE,
)
_EN_STOP = re.compile(r"\b(?:that|which|who|whose|where|when|with|in|of|for|from|by)\b|[,.;:]")


@dataclass(frozen=True)
class Definition:
    sentence: str
    head: str  # the predicate's noun: "회사", "벤처캐피털", "company"
    type: str | None  # the type the head implies (None: no type word)


def sentences(text: str) -> list[str]:
    return [text[s:e].strip() for s, e in split_sentences(text) if text[s:e].strip()]


def definition(names: list[str], text: str) -> Definition | None:
    """The first sentence of `text` that defines the entity called any of `names`."""
    for sentence in sentences(text):
        for name in names:
            if not name or not sentence.startswith(name):
                continue
            head = (
                _korean_head(sentence, len(name))
                if HANGUL.search(sentence)
                else _english_head(sentence[len(name) :])
            )
            if head:
                return Definition(sentence, head, HEAD_TYPES.get(head.casefold()))
    return None


def first_mention(names: list[str], text: str) -> str | None:
    """The first sentence of `text` that writes one of `names`."""
    return next((s for s in sentences(text) if any(n and n in s for n in names)), None)


def _korean_head(sentence: str, name_end: int) -> str | None:
    tokens = get_kiwi().tokenize(sentence)
    if not any(t.start + t.len == name_end for t in tokens):
        return None  # the name is part of a longer word ("한빛" of "한빛로보틱스")
    after = [t for t in tokens if t.start >= name_end]
    if after and after[0].tag == "SSO":  # "누리테크(Nuritech)는"
        closing = next((i for i, t in enumerate(after) if t.tag == "SSC"), None)
        after = after[closing + 1 :] if closing is not None else []
    if not after or (after[0].form, after[0].tag) not in _SUBJECT:
        return None
    for i, token in enumerate(after[1:], start=1):
        copula = token.tag == "VCP"
        with_comma = (
            token.tag == "JKB"
            and token.form in ("로", "으로")
            and i + 1 < len(after)
            and after[i + 1].form == ","
        )
        if copula or with_comma:
            head = _noun_before(after[:i], token.start)
            if head:
                return head
            if copula:
                return None
    return None


def _noun_before(tokens: list, end: int) -> str | None:
    """The compound noun written right before `end` (its parts adjacent: 벤처+캐피털)."""
    parts: list[str] = []
    for token in reversed(tokens):
        if token.tag not in _NOUN or token.start + token.len != end:
            break
        parts.insert(0, token.form)
        end = token.start
    return "".join(parts) or None


def _english_head(rest: str) -> str | None:
    match = _EN_COPULA.match(rest)
    if not match:
        return None
    phrase = _EN_STOP.split(match.group(1), maxsplit=1)[0]
    words = [w.casefold() for w in re.findall(r"[A-Za-z]+", phrase)]
    typed = [w for w in words if w in HEAD_TYPES]
    return typed[-1] if typed else (words[-1] if words else None)
