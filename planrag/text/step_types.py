"""The type of answer one step of a multi-step plan expects, in the graph extractor's types
(`text/named_entities.py`: PERSON, ORGANIZATION, PLACE, PRODUCT, DATE) plus NUMBER.

A step's query is a noun phrase ("한빛로보틱스에 투자한 벤처캐피털", "누리테크 대표") or a question
("한결대학교의 총장은 누구인가요?"). Its type comes, first hit wins, from
1. a question word with its noun: "어느 대학", "무슨 회사", "which university", "what city";
2. a question word alone: 누구/who → PERSON, 언제/when/what year → DATE, 어디/where → PLACE or
   ORGANIZATION, 몇/얼마/how many → NUMBER;
3. the head noun — the last noun of the phrase, or the topic of the question ("개교 연도는?"):
   an entity class (벤처캐피털, 대학교, 고객사 → ORGANIZATION; 대표, 팀장, 사람 → PERSON; 도시 →
   PLACE; "the state where …" → PLACE);
4. the asked attribute (`text/answer_types.py`: "본사는?" → PLACE, "직원 수는?" → NUMBER).
Nothing narrower: "" (any name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planrag.text.answer_types import answer_type
from planrag.text.korean import get_kiwi

PERSON, ORG, PLACE, PRODUCT, DATE, NUMBER = (
    "PERSON",
    "ORGANIZATION",
    "PLACE",
    "PRODUCT",
    "DATE",
    "NUMBER",
)


@dataclass(frozen=True)
class StepType:
    """The type a step's answer should have: `kind` ("" any), and the graph types that fit it
    (어디: a place or an organisation)."""

    kind: str
    accepts: tuple[str, ...] = ()

    def fits(self, entity_type: str) -> bool:
        return not self.kind or entity_type in self.accepts


ANY = StepType("")
_TYPES = {
    PERSON: StepType(PERSON, (PERSON,)),
    ORG: StepType(ORG, (ORG,)),
    PLACE: StepType(PLACE, (PLACE, ORG)),
    PRODUCT: StepType(PRODUCT, (PRODUCT,)),
    DATE: StepType(DATE, (DATE,)),
    NUMBER: StepType(NUMBER, (NUMBER,)),
}
_SITE = StepType(ORG, (ORG, PLACE))  # a factory or a centre: a named site of an organisation

# Korean head nouns by how they end (longest first wins by the order of the check).
_KO_HEADS: tuple[tuple[tuple[str, ...], StepType], ...] = (
    (("사람", "인물", "창업자", "설립자", "책임자", "교수", "연구원", "담당자", "직원"),
     _TYPES[PERSON]),
    (("대표", "대표이사", "사장", "회장", "팀장", "소장", "총장", "본부장", "센터장", "공장장",
      "지사장", "이사장", "원장", "CEO", "CTO", "CFO"), _TYPES[PERSON]),
    (("공장", "센터", "지사", "창고", "본점", "지점", "연구단지"), _SITE),
    (("대학교", "대학", "학교", "학과", "회사", "기업", "업체", "캐피털", "벤처스", "투자사",
      "투자회사", "은행", "팀", "부서", "본부", "연구소", "기관", "고객사", "파트너", "그룹",
      "단체", "브랜드", "재단", "협회", "학회", "자회사", "모회사"), _TYPES[ORG]),
    (("도시", "나라", "국가", "지역", "고향", "위치", "소재지", "본사", "동네"), _TYPES[PLACE]),
    (("제품", "로봇", "모델", "장비"), _TYPES[PRODUCT]),
    (("연도", "년도", "날짜", "시기", "해", "날"), _TYPES[DATE]),
    (("수", "규모", "가격", "금액", "면적", "연면적", "중량", "무게", "인원"), _TYPES[NUMBER]),
)  # fmt: skip
_EN_HEADS: tuple[tuple[tuple[str, ...], StepType], ...] = (
    (("state", "country", "city", "town", "village", "county", "province", "region", "island",
      "river", "lake", "mountain", "capital", "continent", "place", "district"),
     StepType(PLACE, (PLACE,))),
    (("university", "college", "school", "company", "firm", "band", "group", "team", "league",
      "network", "channel", "label", "club", "organization", "organisation", "party",
      "newspaper", "magazine", "airline", "studio", "conservatory", "academy", "institute",
      "museum", "hospital", "church"), _TYPES[ORG]),
    (("man", "woman", "person", "actor", "actress", "singer", "director", "author", "player",
      "writer", "artist", "musician", "politician", "president", "founder", "composer",
      "producer", "poet", "novelist", "coach", "member", "ceo", "officer", "performer",
      "creator", "wife", "husband", "son", "daughter", "father", "mother", "brother", "sister"),
     _TYPES[PERSON]),
    (("year", "date", "decade", "century"), _TYPES[DATE]),
)  # fmt: skip

_KO_WHICH = re.compile(r"(?:어느|무슨|어떤|어떠한)\s*([가-힣A-Za-z]+)")
_EN_WHICH = re.compile(r"\b(?:which|what)\s+((?:[a-z]+\s+){0,2}?)([a-z]+)\b", re.I)
_KO_WORDS: tuple[tuple[re.Pattern[str], StepType], ...] = (
    (re.compile(r"누구|누가|누군지|성함"), _TYPES[PERSON]),
    (re.compile(r"언제|몇\s*년|어느\s*해|며칠|몇\s*월"), _TYPES[DATE]),
    (re.compile(r"어디"), _TYPES[PLACE]),
    (re.compile(r"몇|얼마"), _TYPES[NUMBER]),
)
_EN_WORDS: tuple[tuple[re.Pattern[str], StepType], ...] = (
    (re.compile(r"^\W*(?:who|whom|whose)\b|\b(?:by|was|is) who\b", re.I), _TYPES[PERSON]),
    (re.compile(r"\bwhen\b|\bwhat year\b", re.I), _TYPES[DATE]),
    (re.compile(r"^\W*where\b|\b(?:is|was|are|were) where\b", re.I), _TYPES[PLACE]),
    (re.compile(r"\bhow (?:many|much|long|old|far|tall|big)\b", re.I), _TYPES[NUMBER]),
)
_EN_RELATIVE = re.compile(r"\s(?:where|which|who|whom|that|whose|in which|of)\s", re.I)
_HEAD_TAGS = ("NNG", "NNP", "SL")
_ATTRIBUTE = {"person": PERSON, "date": DATE, "place": PLACE, "number": NUMBER}


def expected_type(query: str) -> StepType:
    """The type of answer `query` asks for (see the module docstring); ANY when unsaid."""
    text = " ".join(query.split()).rstrip("?.! ")
    latin = text.isascii()
    which = _which(text, latin)
    if which is not None:
        return which
    for pattern, kind in _EN_WORDS if latin else _KO_WORDS:
        if pattern.search(text):
            return kind
    head = head_noun(text)
    if head:
        typed = _class_of(head, latin)
        if typed is not None:
            return typed
    attribute = _ATTRIBUTE.get(answer_type(text))
    return _TYPES[attribute] if attribute else ANY


def head_noun(query: str) -> str | None:
    """The last content noun of the query, with the nouns glued to it ("…졸업한 대학교" →
    대학교, "투자한 벤처캐피털" → 벤처캐피털; "the state where X died" → state)."""
    lowered = query.strip().rstrip("?")
    if lowered.isascii():
        relative = _EN_RELATIVE.search(f" {lowered} ")
        words = (lowered[: relative.start()] if relative else lowered).split()
        return words[-1].strip(",.'\"") if words else None
    tokens = [t for t in get_kiwi().tokenize(lowered) if t.tag in _HEAD_TAGS]
    if not tokens:
        return None
    start, end = tokens[-1].start, tokens[-1].start + tokens[-1].len
    for token in reversed(tokens[:-1]):
        if token.start + token.len != start:
            break
        start = token.start
    return lowered[start:end]


def _which(text: str, latin: bool) -> StepType | None:
    """ "어느 대학", "which university", "in what city": the class of the noun asked about."""
    if latin:
        for match in _EN_WHICH.finditer(text):
            typed = _class_of(match.group(2), latin=True)
            if typed is not None:
                return typed
        return None
    for match in _KO_WHICH.finditer(text):
        noun = re.sub(r"(?:에서|에게|으로|이나|에|을|를|은|는|이|가|의|로)$", "", match.group(1))
        typed = _class_of(noun, latin=False)
        if typed is not None:
            return typed
    return None


def _class_of(noun: str, latin: bool) -> StepType | None:
    if latin:
        word = noun.casefold().removesuffix("s") if noun.casefold() != "ceos" else "ceo"
        for words, kind in _EN_HEADS:
            if word in words or noun.casefold() in words:
                return kind
        return None
    for endings, kind in _KO_HEADS:
        if any(noun.endswith(e) for e in endings):
            return kind
    return None
