"""Typed relations of one sentence from Korean and English patterns (no LLM).

The sentence is read as a *skeleton*: every typed name (`planrag.text.named_entities`) replaced
by `<i>`, its particles kept ("한빛로보틱스의 대표이사는 김도윤이다" → "<0>의 대표이사는 <1>이다").
Each pattern is a regular expression over the skeleton with groups `h` (head) and `t` (tail),
the relation type, and the entity types each end may have. A pair no pattern types, in a
sentence that names few things, is `related_to` (co-occurrence), dates excepted.

The vocabulary: CEO_OF, CTO_OF, HEAD_OF, FOUNDED, FOUNDED_IN, EMPLOYED_BY, REPORTS_TO,
GRADUATED_FROM, INVESTED_IN, AFFILIATED_WITH, LOCATED_IN, HEADQUARTERED_IN, PRODUCES,
RELEASED_ON, ACQUIRED, PARTNER_OF, PART_OF, MEMBER_OF, RESEARCHES.
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import dataclass

from planrag.text.named_entities import (
    CONCEPT,
    DATE,
    MAYBE_PERSON,
    ORG,
    PERSON,
    PLACE,
    PRODUCT,
    Named,
)

RELATION_TYPES = (
    *("CEO_OF", "CTO_OF", "HEAD_OF", "FOUNDED", "FOUNDED_IN", "EMPLOYED_BY", "REPORTS_TO"),
    *("GRADUATED_FROM", "INVESTED_IN", "AFFILIATED_WITH", "LOCATED_IN", "HEADQUARTERED_IN"),
    *("PRODUCES", "RELEASED_ON", "ACQUIRED", "PARTNER_OF", "PART_OF", "MEMBER_OF", "RESEARCHES"),
)
MAX_COOCCURRING = 5  # a sentence naming more things links only typed pairs

H, T = r"<(?P<h>\d+)>", r"<(?P<t>\d+)>"
_TOP = r"(?:은|는|이|가|께서)"  # topic or subject particle
_TITLE = r"(?: [가-힣A-Z]{1,8}?)?"  # "김도윤 대표는": a title between the name and its particle
SUBJ = rf"{H}{_TITLE}{_TOP}"
_ANY = r"[^.]*?"  # anything up to the end of the sentence, lazily (other names too)
_GAP = r"[^<>.]*?"  # words, no other name
CEO = r"(?:대표이사|공동대표|대표|CEO|최고경영자|사장|회장)"
CTO = r"(?:최고기술책임자|CTO|기술총괄|기술이사)"
HEAD = r"(?:총장|소장|연구소장|팀장|본부장|센터장|원장|학장|이사장|부장|실장|위원장|단장|책임자)"
_COPULA = r"(?:이다|였다|이었다|이며|이고|이자|로|으로|다|이|가|은|는|,|$| )"

ANY_NAMED = frozenset({PERSON, ORG, PRODUCT, PLACE, "", CONCEPT})
_P, _O, _PR, _PL, _D = {PERSON, MAYBE_PERSON, ""}, {ORG, ""}, {PRODUCT, ""}, {PLACE, ""}, {DATE}
_PO = {PERSON, MAYBE_PERSON, ORG, ""}


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[str]
    type: str
    head: frozenset[str]
    tail: frozenset[str]


def _p(regex: str, type_: str, head: Set[str], tail: Set[str]) -> Pattern:
    return Pattern(re.compile(regex), type_, frozenset(head), frozenset(tail))


def _role(role: str, type_: str, tail: set[str]) -> list[Pattern]:
    """Role relations, person → organisation: "X의 R은 Y이다", "Y는 X의 R이다", "X R Y", "Y X R"."""
    return [
        _p(rf"{T}의 (?:[가-힣]+ )?{role}(?:\([A-Za-z]+\))?{_TOP} {H}{_COPULA}", type_, _P, tail),
        _p(rf"{SUBJ} {T}의 (?:[가-힣]+ )?{role}", type_, _P, tail),
        _p(rf"{T}(?:의)? {role} {H}", type_, _P, tail),
        _p(rf"{T}{role} {H}", type_, _P, tail),
        _p(rf"{SUBJ} {T} {role}(?:이다|였다|이며|로|으로)", type_, _P, tail),
    ]


_PARTNERING = r"(?:파트너십|제휴|협약|업무협약|MOU|공급 ?계약|계약|협력|합작)"
_SITE = r"(?:공장|지사|사무소|법인|연구소|센터|지점)"
_MAKING = r"(?:생산|제조|만든|만들|출시|개발했|개발한다|개발하|판매)"
_EN_DEAL = r"(?:agreement|partnership|deal|contract)"
_EN_MAKES = r"(?:makes|made|produces|produced|manufactures|manufactured|develops|developed)"
_EN_BE = r"(?:is|was|has been|became|serves as|served as)"
_EN_CEO = r"(?:CEO|chief executive(?: officer)?|president|managing director|chairman)"
_EN_CTO = r"(?:CTO|chief technology officer)"
_EN_HEAD = r"(?:head|director|manager|leader|dean|principal)"

PATTERNS: tuple[Pattern, ...] = (
    *_role(CEO, "CEO_OF", _O),
    *_role(CTO, "CTO_OF", _O),
    *_role(HEAD, "HEAD_OF", _O | _PL),
    _p(rf"{T}장{_TOP} {H}{_COPULA}", "HEAD_OF", _P, _O),  # "정비본부장은 조현우이다"
    _p(
        rf"{T}{_TOP} {H}(?: [가-힣A-Z]{{1,8}})?(?:이|가) (?:이끈다|이끌고|이끌며)",
        "HEAD_OF",
        _P,
        _O,
    ),
    _p(rf"{SUBJ}{_ANY}{T}(?:을|를) 이끈다", "HEAD_OF", _P, _O),
    # founding
    _p(rf"{T}의 (?:공동)?(?:창업자|설립자|창립자){_TOP} {H}", "FOUNDED", _PO, _O),
    _p(
        rf"{SUBJ}{_ANY}{T}(?:을|를) (?:<\d+>(?:에)? )?(?:공동 ?)?(?:설립|창업|창립)",
        "FOUNDED",
        _PO,
        _O,
    ),
    _p(rf"{SUBJ} {T}의 (?:공동)?(?:창업자|설립자|창립자)", "FOUNDED", _PO, _O),
    _p(rf"{T}{_TOP} {H}(?:이|가) (?:설립|창업|창립)한", "FOUNDED", _PO, _O),
    _p(rf"{T}(?:을|를) (?:설립|창업|창립)한 (?:[가-힣]+ )?{H}", "FOUNDED", _PO, _O),
    _p(
        rf"{SUBJ}{_GAP}{T}(?:에|에는)? {_ANY}(?:설립|창립|창업|개교|개원|출범|문을 열)",
        "FOUNDED_IN",
        _O,
        _D,
    ),
    _p(
        rf"{T}(?:에)? (?:[가-힣]+ )?(?:설립|창립|창업|개교)(?:된|한) {_GAP}{H}",
        "FOUNDED_IN",
        _O,
        _D,
    ),
    # work and study
    _p(rf"{SUBJ}{_ANY}{T}에서 {_GAP}(?:일했|일한다|일하|근무|재직|일하고)", "EMPLOYED_BY", _P, _O),
    _p(rf"{SUBJ}{_ANY}{T}에 (?:[^<>.]*? )?(?:합류|입사|영입)", "EMPLOYED_BY", _P, _O),
    _p(rf"{T}에 (?:합류|입사)한 (?:[가-힣]+ )?{H}", "EMPLOYED_BY", _P, _O),
    _p(rf"{T}에서 (?:일하는|근무하는|일한) (?:[가-힣]+ )?{H}", "EMPLOYED_BY", _P, _O),
    _p(rf"{SUBJ}{_ANY}{T}(?: [가-힣A-Z]{{1,8}})?에게 (?:직접 )?보고", "REPORTS_TO", _P, _P),
    _p(rf"{T}(?: [가-힣A-Z]{{1,8}})?에게 보고하는 (?:[가-힣]+ )?{H}", "REPORTS_TO", _P, _P),
    _p(rf"{SUBJ}{_ANY}{T}(?:을|를) (?:[^<>.]*? )?졸업", "GRADUATED_FROM", _P, _O),
    _p(rf"{T}(?:을|를) 졸업한 (?:[가-힣]+ )?{H}", "GRADUATED_FROM", _P, _O),
    _p(rf"{SUBJ} {T} (?:출신|졸업생)", "GRADUATED_FROM", _P, _O),
    _p(
        rf"{SUBJ} {T}(?:의)? (?:교수|연구원|연구교수|객원교수|겸임교수|자문위원)",
        "AFFILIATED_WITH",
        _P,
        _O,
    ),
    _p(rf"{T}(?:의)? (?:교수|연구원) {H}", "AFFILIATED_WITH", _P, _O),
    _p(rf"{SUBJ} {T}의 (?:자회사|계열사|관계사)", "AFFILIATED_WITH", _O, _O),
    # membership and structure
    _p(rf"{H}{_TITLE}{_TOP} (?:<\d+> )?{T} 소속", "MEMBER_OF", _P, _O),
    _p(rf"{T} 소속(?:의)? (?:[가-힣]+ )?{H}", "MEMBER_OF", _P, _O),
    _p(rf"{H}{_TOP} {T} 소속", "PART_OF", _O, _O),
    _p(rf"{SUBJ} {T}의 (?:회원|회원사|회원국|멤버|일원)", "MEMBER_OF", _PO, _O),
    _p(rf"{T} (?:부설|산하|소속)(?:의)? {H}", "PART_OF", _O, _O),
    _p(rf"{SUBJ} {T} (?:부설|산하)", "PART_OF", _O, _O),
    _p(rf"{T}의 {H}(?:은|는|이|가|에는) ", "PART_OF", {ORG}, {ORG}),
    _p(rf"{T} (?:아래|밑|산하)에는 {_GAP}(?:<\d+>, ?)*{H}", "PART_OF", _O, _O),
    # investment, acquisition, partnership
    _p(rf"{SUBJ}{_ANY}{T}에 {_GAP}투자(?:했|한다|하였|하고|를 했|해)", "INVESTED_IN", _PO, _O),
    _p(rf"{T}에 {_GAP}투자(?:한|했던) {_GAP}{H}", "INVESTED_IN", _PO, _O),
    _p(rf"{T}에 {_ANY}{H}(?:이|가|도) (?:[^<>.]*? )?투자(?:했|하였|한다)", "INVESTED_IN", _PO, _O),
    _p(
        rf"{T}{_TOP} {_GAP}{H}(?:으로부터|로부터|에서) {_GAP}투자(?:를|금을)? {_GAP}(?:유치|받)",
        "INVESTED_IN",
        _PO,
        _O,
    ),
    _p(
        rf"{SUBJ}{_ANY}{T}(?:을|를) (?:[^<>.]*? )?인수(?:했|한다|하였|하기로)",
        "ACQUIRED",
        _O,
        _O | _PR,
    ),
    _p(rf"{T}(?:을|를) 인수한 {H}", "ACQUIRED", _O, _O | _PR),
    _p(rf"{T}{_TOP} {_GAP}{H}에 인수", "ACQUIRED", _O, _O | _PR),
    _p(
        rf"{SUBJ}{_ANY}{T}(?:와|과) (?:[^<>.]*? )?{_PARTNERING}",
        "PARTNER_OF",
        _O,
        _O,
    ),
    _p(
        rf"{H}(?:와|과) {T}{_TOP} {_ANY}(?:파트너십|제휴|협약|MOU|계약|협력|합작|파트너)",
        "PARTNER_OF",
        _O,
        _O,
    ),
    # places
    _p(rf"{SUBJ}{_ANY}{T}에 본사(?:를|가)", "HEADQUARTERED_IN", _O, _PL),
    _p(rf"{T}에 본사를 둔 {_GAP}{H}", "HEADQUARTERED_IN", _O, _PL),
    _p(rf"{H}의 본사(?:는|가) {T}에", "HEADQUARTERED_IN", _O, _PL),
    _p(
        rf"{SUBJ}{_GAP}{T}에 (?:있는|있다|위치한|위치하고|위치해|자리한|자리잡은)",
        "LOCATED_IN",
        _O | _PL,
        _PL,
    ),
    _p(rf"{T}에 (?:있는|위치한|자리한) (?:[가-힣]+ )?{H}", "LOCATED_IN", _O | _PL, _PL),
    _p(
        rf"{SUBJ}{_ANY}{T}에 (?:[^<>.]*? )?{_SITE}(?:을|를|이|가|도) (?:두|열|세|설립|운영|있)",
        "LOCATED_IN",
        _O,
        _PL,
    ),
    # products
    _p(
        rf"{SUBJ}{_ANY}{T}(?: 시리즈| 제품| 브랜드)?(?:을|를|도) (?:[^<>.]*? )?{_MAKING}",
        "PRODUCES",
        _O,
        _PR,
    ),
    _p(rf"{T}{_TOP} {H}(?:이|가) {_ANY}(?:출시|개발|생산|제조|만든|판매)", "PRODUCES", _O, _PR),
    _p(
        rf"{H}(?:이|가) (?:[^<>.]*? )?(?:출시한|개발한|만든|생산하는|제조하는|판매하는) {_GAP}{T}",
        "PRODUCES",
        _O,
        _PR,
    ),
    _p(rf"{H}의 (?:대표 |주력 |첫 )?제품(?:은|는|인) (?:[^<>.]*? )?{T}", "PRODUCES", _O, _PR),
    _p(rf"{SUBJ}{_GAP}{T}(?:에|에는)? {_GAP}출시(?:되|됐|했|된|한)", "RELEASED_ON", _PR, _D),
    _p(rf"{T}(?:에)? 출시(?:된|한) {_GAP}{H}", "RELEASED_ON", _PR, _D),
    _p(rf"{H}{_TOP} {_ANY}{T}에 출시한", "RELEASED_ON", _PR, _D),
    # English
    _p(rf"{H}, (?:the |its )?(?:{_EN_CEO}) of {T}", "CEO_OF", _P, _O),
    _p(rf"{H} {_EN_BE} (?:the |its )?(?:{_EN_CEO}) (?:of|at) {T}", "CEO_OF", _P, _O),
    _p(rf"{T}'s? (?:{_EN_CEO}) (?:is |was )?{H}", "CEO_OF", _P, _O),
    _p(rf"(?:{_EN_CEO}) of {T},? {H}", "CEO_OF", _P, _O),
    _p(rf"{H},? (?:the |its )?(?:{_EN_CTO}) (?:of|at) {T}", "CTO_OF", _P, _O),
    _p(rf"{H} {_EN_BE} (?:the |its )?(?:{_EN_CTO}) (?:of|at) {T}", "CTO_OF", _P, _O),
    _p(rf"{T}'s? (?:{_EN_CTO}) (?:is |was )?{H}", "CTO_OF", _P, _O),
    _p(rf"{H},? (?:the |its )?{_EN_HEAD} of {T}", "HEAD_OF", _P, _O | _PL),
    _p(rf"{T}'s? {_EN_HEAD} (?:is |was )?{H}", "HEAD_OF", _P, _O | _PL),
    _p(rf"{H} (?:co-)?founded {T}", "FOUNDED", _PO, _O),
    _p(rf"{T} (?:was|were) (?:co-)?founded by {H}", "FOUNDED", _PO, _O),
    _p(rf"{H} (?:was|were) (?:founded|established) (?:in|on) {T}", "FOUNDED_IN", _O, _D),
    _p(rf"{H} graduated from {T}", "GRADUATED_FROM", _P, _O),
    _p(rf"{H} (?:works|worked|is working) (?:at|for) {T}", "EMPLOYED_BY", _P, _O),
    _p(rf"{H} joined {T}", "EMPLOYED_BY", _P, _O),
    _p(rf"{H} reports to {T}", "REPORTS_TO", _P, _P),
    _p(rf"{H} invested [^<>.]*?in {T}", "INVESTED_IN", _PO, _O),
    _p(
        rf"{H}(?:,| is| was)? (?:a [a-z ]+ )?(?:company |firm )?headquartered in {T}",
        "HEADQUARTERED_IN",
        _O,
        _PL,
    ),
    _p(rf"{H} acquired {T}", "ACQUIRED", _O, _O | _PR),
    _p(
        rf"{H} (?:signed|formed|entered into|announced) [^<>.]*?{_EN_DEAL} with {T}",
        "PARTNER_OF",
        _O,
        _O,
    ),
    _p(
        rf"{H} {_EN_MAKES} (?:the )?{T}",
        "PRODUCES",
        _O,
        _PR,
    ),
    _p(rf"{H} (?:was|were) (?:released|launched) (?:in|on) {T}", "RELEASED_ON", _PR, _D),
    _p(rf"{H} (?:is|was) (?:located )?in {T}", "LOCATED_IN", _O | _PL, _PL),
    _p(rf"{H} (?:researches|studies) {T}", "RESEARCHES", _PO, ANY_NAMED),
)
# "X는 A와 B를 연구한다": the objects are concepts (not names).
RESEARCH = re.compile(
    rf"{SUBJ} (?P<obj>[^<>.]+?)(?:을|를) (?:주로 )?연구(?:한다|하고|하며|했다|하는|해)"
)
_LIST = re.compile(r"(?:과|와|및|,)\s+|\s+및\s+")


@dataclass(frozen=True)
class Found:
    head: int  # index into the sentence's names
    tail: int
    type: str


def skeleton(sentence: str, names: list[Named], offset: int = 0) -> str:
    """The sentence with each name replaced by `<i>`."""
    parts, last = [], 0
    for i, named in enumerate(names):
        parts.append(sentence[last : named.start - offset])
        parts.append(f"<{i}>")
        last = named.end - offset
    parts.append(sentence[last:])
    return re.sub(r"\s+", " ", "".join(parts))


_LIST_LINK = r"(?:, ?|(?:와|과|및) )"


def siblings(skel: str, index: int) -> list[int]:
    """The names listed with name `index` ("<1>, <2>, <3>", "<1>와 <2>")."""
    found = [index]
    for step in (-1, 1):
        current = index
        while True:
            pattern = (
                rf"<(\d+)>{_LIST_LINK}<{current}>"
                if step < 0
                else rf"<{current}>{_LIST_LINK}<(\d+)>"
            )
            match = re.search(pattern, skel)
            if not match:
                break
            current = int(match.group(1))
            found.append(current)
    return found


def typed_relations(skel: str, names: list[Named]) -> list[Found]:
    """The typed relations a sentence's skeleton states, first pattern first, once per pair;
    a listed name shares its list's relation ("<1>, <2>와 <3>은 <4>에 투자했다")."""
    found: dict[tuple[int, int], Found] = {}
    for rel in _typed_pairs(skel, names):
        for h in siblings(skel, rel.head):
            for t in siblings(skel, rel.tail):
                same = (
                    names[h].type == names[rel.head].type and names[t].type == names[rel.tail].type
                )
                if h != t and same and (h, t) not in found and (t, h) not in found:
                    found[(h, t)] = Found(h, t, rel.type)
    return list(found.values())


def _typed_pairs(skel: str, names: list[Named]) -> list[Found]:
    found: dict[tuple[int, int], Found] = {}
    for pattern in PATTERNS:
        for match in _all_matches(pattern.regex, skel):
            h, t = int(match.group("h")), int(match.group("t"))
            if h == t or h >= len(names) or t >= len(names):
                continue
            if names[h].type not in pattern.head or names[t].type not in pattern.tail:
                continue
            if (h, t) not in found and (t, h) not in found:
                found[(h, t)] = Found(h, t, pattern.type)
    return list(found.values())


def _all_matches(regex: re.Pattern[str], skel: str) -> list[re.Match[str]]:
    """Matches starting at every name marker (so a later subject gets its own chance)."""
    out, seen = [], set()
    for start in [0, *(m.start() for m in re.finditer(r"<\d+>", skel))]:
        match = regex.search(skel, start)
        if match and match.span() not in seen:
            seen.add(match.span())
            out.append(match)
    return out


def research_objects(skel: str) -> list[tuple[int, list[str]]]:
    """(head index, concept names) of "X는 A와 B를 연구한다"."""
    out = []
    for match in RESEARCH.finditer(skel):
        objects = [o.strip() for o in _LIST.split(match.group("obj")) if o.strip()]
        objects = [re.sub(r"^(?:주로|특히|새로운|다양한)\s+", "", o) for o in objects]
        out.append((int(match.group("h")), [o for o in objects if 2 <= len(o) <= 40]))
    return out
