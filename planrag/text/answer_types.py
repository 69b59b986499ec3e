"""What a question asks for, and where a sentence holds something of that kind.

- `answer_type(question)`: from the question word (누구/who → person, 언제/when → date,
  어디/where → place, 몇/얼마/how many → number, 무엇/what → thing), and without one from the
  asked attribute ("대표는?" asks for a person, "가격은?" for a number, "본사는?" for a place).
- `typed_spans(sentence, kind)`: the sentence's spans of that kind — dates and numbers with
  their units by pattern, people, places and organisations from Kiwi's proper nouns and
  capitalised Latin names (`text/entities.py`), a Korean personal name also from its shape (a
  family name and one or two syllables next to a title: Kiwi tags "한지훈" a common noun).
- `model_codes(text)`: model numbers and codes ("S2", "X-100", "GPT-4", "3.0"): a question about
  누리봇 S2 is not answered by a sentence about S3.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Literal

from kiwipiepy import Token

from planrag.text.code_spans import code_pattern, glued_codes
from planrag.text.entities import find_mentions
from planrag.text.korean import get_kiwi
from planrag.text.named_entities import PERSON, korean_names

AnswerType = Literal["person", "date", "place", "number", "thing"]


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


_KO_TYPES: list[tuple[AnswerType, re.Pattern[str]]] = [
    ("person", re.compile(r"누구|누가|누군지|어느 분|성함|이름이 뭐")),
    # 며칠 is a day of the month only after 몇 월 or before 에/부터/까지/날 ("몇 월 며칠에",
    # "며칠까지"); otherwise a number of days ("연차 휴가는 며칠인가요?", "며칠 걸리나요?").
    (
        "date",
        re.compile(
            r"언제|몇\s*년도|몇\s*년에|몇\s*월|며칠\s*(?:에|부터|까지|날)|어느\s*해|날짜|연도|시기|년도"
        ),
    ),
    ("place", re.compile(r"어디|어느\s*(?:곳|나라|도시|지역|회사|기관|대학|학교|기업)|위치")),
    ("number", re.compile(r"몇|며칠|얼마|규모|비율|퍼센트|액수")),
    ("thing", re.compile(r"무엇|뭐|무슨|어떤|어떠한|어느")),
]
# English: the wh-word, or "what/which" and the noun it asks about ("which actor" → a person,
# "in what city" → a place, "what is the population" → a number); a "who" that opens a relative
# clause ("the man who …") asks nothing, so the head noun's question comes first.
_EN_PEOPLE = (
    r"actor|actress|singer|songwriter|rapper|musician|composer|drummer|guitarist|poet|author|"
    r"writer|novelist|director|producer|player|comedian|athlete|footballer|coach|politician|"
    r"president|king|queen|emperor|person|man|woman|artist|painter|model|host|presenter|"
    r"scientist|architect|designer|chef|wrestler|boxer|fighter|journalist|member|founder"
)
_EN_PLACES = (
    r"city|country|state|town|village|county|province|region|island|continent|place|"
    r"river|lake|mountain|district|neighbou?rhood|borough|capital"
)
_EN_NUMBERS = r"population|number|percentage|age|height|length|area|capacity|amount|total|score"
_EN_TYPES: list[tuple[AnswerType, re.Pattern[str]]] = [
    (
        "date",
        re.compile(r"\b(?:what|which|in what) (?:year|date|month|day|decade|century)\b", re.I),
    ),
    (
        "number",
        re.compile(rf"\b(?:what|which) (?:is|was|were|are) the (?:\w+ )?(?:{_EN_NUMBERS})\b", re.I),
    ),
    ("person", re.compile(rf"\b(?:what|which) (?:\w+ ){{0,3}}(?:{_EN_PEOPLE})s?\b", re.I)),
    ("place", re.compile(rf"\b(?:what|which) (?:\w+ ){{0,2}}(?:{_EN_PLACES})\b", re.I)),
    (
        "number",
        re.compile(
            r"\bhow (?:many|much|long|old|far|big|tall|large)\b|\bwhat percent"
            r"|\b(?:what|which) (?:score|rating|price|salary|amount|number)\b",
            re.I,
        ),
    ),
    ("person", re.compile(r"^\W*(?:who|whom|whose)\b|\b(?:by|was|is) who\b", re.I)),
    ("date", re.compile(r"\bwhen\b", re.I)),
    ("place", re.compile(r"\bwhere\b", re.I)),
]
# The asked attribute when no question word names the type ("S2의 가격은?").
_KO_ATTRIBUTES: list[tuple[AnswerType, re.Pattern[str]]] = [
    (
        "person",
        re.compile(r"(?:대표|대표이사|CEO|CTO|사장|회장|총장|소장|팀장|본부장|책임자|총괄|창업자)"),
    ),
    ("date", re.compile(r"(?:설립일|창립일|출시일|개교|설립 연도|출시 시기)")),
    ("place", re.compile(r"(?:본사|위치|소재지|공장|지사|고향|출신지|출생지)")),
    (
        "number",
        re.compile(
            r"(?:가격|중량|무게|매출|금액|시간|기간|직원\s*수|인원|가동률|비율|대수|건수|번호|점수)"
        ),
    ),
]

_YEAR = r"(?:1[5-9]\d\d|20\d\d)"
_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept?\.?|Oct\.?|Nov\.?|Dec\.?)"
)
_DATE = re.compile(
    rf"{_YEAR}\s*년(?:\s*\d{{1,2}}\s*월)?(?:\s*\d{{1,2}}\s*일)?(?:\s*(?:상|하)반기)?"
    r"|\d{1,2}\s*월\s*\d{1,2}\s*일|\d{1,2}\s*월(?=[\s에의은는부까])"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}|\d{{4}}\.\s?\d{{1,2}}\.(?:\s?\d{{1,2}}\.?)?"
    rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+{_YEAR}|\d{{1,2}}\s+{_MONTHS}\s+{_YEAR}"
    rf"|{_MONTHS}\s+{_YEAR}|\b{_YEAR}s?\b"
    # a time of day, with the day it falls on: "전날 오후 6시까지", "9시 30분", "6 p.m.", "18:00"
    r"|(?:(?:전날|당일|다음\s*날|익일|매일)\s*)?(?:(?:오전|오후|새벽|아침|저녁|밤)\s*)?"
    r"\d{1,2}\s*시(?!간|즌|리즈)(?:\s*\d{1,2}\s*분|\s*반)?"
    r"|\b\d{1,2}(?::\d{2})?\s*(?:a\.m\.|p\.m\.|am\b|pm\b)|\b(?:[01]?\d|2[0-3]):[0-5]\d\b"
    # a day that recurs: "매주 화요일", "매월 첫째 월요일", "매월 25일", "토요일"
    r"|(?:(?:매주|격주|매월|매달)\s*)?(?:(?:첫째|둘째|셋째|넷째|마지막)\s*(?:주\s*)?)?"
    r"[월화수목금토일](?:·[월화수목금토일])*요일"
    r"|(?:매월|매달)\s*(?:\d{1,2}\s*일|말일|초|말)"
)
# When something recurs or follows a span of service answers "언제" too: "근속 5년마다", "입사
# 1년 후", "3개월마다" (the date pattern has no such spans, so a number inside keeps its amount).
_PERIOD = re.compile(
    r"(?:(?:근속|입사|재직|가입|계약)\s*)?\d+\s*(?:년|개월|달|주|일)\s*(?:마다|후|뒤|이\s*지나면)"
    # a deadline counted from an event answers "언제까지": "3년 이내", "7일 안에", "3일 전까지"
    r"|\d+\s*(?:년|개월|달|주|주일|일|시간)\s*(?:이내|안에|내에|전까지|전에)"
)
_KO_UNITS = (
    r"만|억|천|조|명|원|달러|개|대|건|곳|배|세|살|시간|분|초|일|주|개월|년|층|위|회|차|호|kg|g|t|"
    r"km|m|cm|mm|GB|MB|TB|W|kW|MW|kWh|%|퍼센트|점|권|편|종"
)
# "9 million US dollars", "2.5 billion euros": an English amount's scale and currency.
_EN_SCALE = r"(?:\s+(?:thousand|million|billion|trillion))?"
_EN_CURRENCY = (
    r"(?:\s+(?:(?:US|U\.S\.|Hong Kong|Singapore|Canadian|Australian)\s+)?"
    r"(?:dollars?|euros?|pounds?|yen|won|yuan))?"
)
_NUMBER = re.compile(
    rf"\d[\d,]*(?:\.\d+)?{_EN_SCALE}{_EN_CURRENCY}(?:\s*(?:{_KO_UNITS})(?![A-Za-z]))*"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|billion)\b(?:[\s-]+\w+)?",
    re.I,
)
_MODEL_CODE = re.compile(
    r"(?<![A-Za-z0-9])(?:" + code_pattern(r"[-\s]?") + r"|\d{1,2}\.\d{1,2}(?:\.\d+)?)"
    r"(?![A-Za-z0-9])(?!\.\d)"
)
# Common Korean family names (one syllable; the two-syllable ones are matched apart).
_FAMILY = set(
    "김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민진나지엄채원천"
    "방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용예경봉"
)
_FAMILY2 = ("남궁", "황보", "제갈", "선우", "독고", "서문")
_TITLE_AFTER = re.compile(
    r"\s*(?:대표|대표이사|교수|팀장|본부장|사장|회장|총장|소장|센터장|이사|연구원|수석연구원|"
    r"수석|CTO|CEO|박사|씨|님|책임자)"
)
_HANGUL_WORD = re.compile(r"[가-힣]{2,4}")


_SUMMARY = re.compile(
    r"요약|정리해|간추려|개요|summari[sz]e|summary|overview|\bsum up\b|tl;?dr", re.IGNORECASE
)


def is_summary_request(question: str) -> bool:
    """Whether the question asks for a summary ("인사 규정 요약해줘") rather than a fact."""
    return bool(_SUMMARY.search(question))


# "What kind of musicians …" asks for a kind, not for a musician.
_EN_KIND_OF = re.compile(
    r"\b(?:what|which) (?:kinds?|types?|sorts?|genres?|class(?:es)?) of\b", re.I
)


def answer_type(question: str) -> AnswerType:
    """The kind of answer a question asks for ("thing" when nothing narrower is named)."""
    if _EN_KIND_OF.search(question):
        return "thing"
    for kind, pattern in _KO_TYPES + _EN_TYPES:
        if pattern.search(question):
            return kind
    # Several attributes: the last one named is asked ("한지훈 대표 고향은?" asks for a place;
    # "대표" says who 한지훈 is).
    named = [(m.end(), kind) for kind, p in _KO_ATTRIBUTES for m in p.finditer(question)]
    return max(named)[1] if named else "thing"


# "What did the safety audit find?": a wh-question with "did/does/do" that ends in its verb.
_EN_ASKED_VERB = re.compile(
    r"^\W*(?:what|which|who|whom|where|when|how)\b[^?]*?\b(?:did|does|do)\b[^?]*?\b([a-z]{3,})\s*\?\s*$",
    re.I,
)


_EN_BEFORE_NOUN = frozenset(
    ("in", "on", "at", "of", "for", "with", "to", "from", "by", "into", "about", "the", "a", "an",
     "its", "his", "her", "their", "this", "that")
)  # fmt: skip


def asked_verb(question: str) -> str | None:
    """The verb an English wh-question with "did/does/do" ends in, its predicate: "find" in
    "What did the safety audit find?", "attend" in "Which university did she attend?" (None
    when it ends in anything else: "… play football in college?" ends in a noun's place). A
    Korean question's predicate is its last verbal noun's verb ("누구에게 보고하나요?" →
    보고하다)."""
    if _has_hangul(question):
        return _korean_predicate(question)
    found = _EN_ASKED_VERB.match(question)
    if not found or not found.group(1).islower():
        return None
    before = question[: found.start(1)].split()[-1:]
    return None if before and before[0].lower() in _EN_BEFORE_NOUN else found.group(1)


def _korean_predicate(question: str) -> str | None:
    """The verbal noun a question ends in, made a verb with 하다 ("보고하나요", "투자했나요",
    "총괄했나요"): what the answer's sentence does too. None when the question ends in another
    verb (받다, 있다). A verbal noun modifying a noun is asked when that noun is what is asked
    ("개정을 주도한 사람은 누구인가?"), not when it only leads to another ("시리즈 C를 주도한
    은행의 본점은 어디에 있나요?" asks where, not who led)."""
    tokens = get_kiwi().tokenize(question)
    for i, (here, after) in enumerate(zip(tokens, tokens[1:], strict=False)):
        if here.tag != "NNG" or after.tag != "XSV" or here.start + here.len != after.start:
            continue
        rest = [t for t in tokens[i + 2 :] if t.tag != "EP"]  # 었 of 투자했나요
        if rest and _ends_question(rest):
            return f"{here.form}하다"  # alone, Kiwi reads "보고" as 보 + 고
    return None


def _ends_question(rest: list[Token]) -> bool:
    """Whether the ending after a verb ends the question ("…했나요", "…했니?"), asks it inside
    another ("…했는지 알려줘") or modifies the noun asked about ("주도한 사람은"), rather than
    tying the verb to a clause or to a noun of another noun ("주도한 은행의 본점")."""
    ending = rest[0]
    if ending.tag == "EF":
        return True
    if ending.tag == "ETM":
        after = next((t for t in rest[1:] if not t.tag.startswith("N")), None)
        return after is not None and after.tag != "JKG"
    if ending.tag != "EC":
        return False
    return ending.form.endswith("지") or all(t.tag.startswith("S") for t in rest[1:])


def asked_by_word(question: str) -> bool:
    """Whether the question's answer type comes from its question word (누구, 언제, which actor
    …), not only from the attribute it names ("가격은?", "위치는?"): then the type is clear."""
    if _EN_KIND_OF.search(question):
        return False
    return any(p.search(question) for kind, p in _KO_TYPES + _EN_TYPES if kind != "thing")


def model_codes(text: str) -> set[str]:
    """Model numbers and codes in `text`, normalised ("S 2", "s2" → "S2"). Letters a space
    parts from the number are a code only in capitals ("S 2", "KF 21") or in Korean text ("s
    3"): in English prose they are a word ("a 2014 film", "at the 1995 ceremony", "The 1990s")."""
    hangul = _has_hangul(text)
    codes = {
        re.sub(r"[-\s]", "", m.group(0)).upper()
        for m in _MODEL_CODE.finditer(text)
        if hangul or not _spaced_word(m.group(0))
    }
    lettered = {f"{_LETTERED[m.group(1).casefold()]}-{m.group(2)}" for m in _LETTER.finditer(text)}
    return codes | lettered


# A letter naming one of a series: a funding round ("시리즈 B" is not "Series C"), a type, a class.
_LETTERED = {
    "시리즈": "SERIES", "series": "SERIES", "타입": "TYPE", "type": "TYPE", "클래스": "CLASS"
}  # fmt: skip
_LETTER = re.compile(r"(시리즈|[Ss]eries|타입|[Tt]ype|클래스)\s?([A-Z])(?![A-Za-z0-9])")


def _spaced_word(code: str) -> bool:
    letters, _, rest = code.partition(" ")
    return bool(rest) and letters.isalpha() and not letters.isupper()


def typed_spans(sentence: str, kind: AnswerType) -> list[Span]:
    """The spans of `sentence` that could answer a question of `kind` ("thing": noun phrases
    ending the sentence's copula or proper nouns)."""
    if kind == "date":
        return sorted(_matches(_DATE, sentence) + _matches(_PERIOD, sentence), key=_start)
    if kind == "number":
        dates = _matches(_DATE, sentence) + [Span(*c, "") for c in glued_codes(sentence)]
        return [
            s
            for s in _matches(_NUMBER, sentence)
            if any(c.isdigit() for c in s.text) or s.text[0].isalpha()
            if not any(d.start <= s.start < d.end for d in dates)  # "11" of "2024년 11월", "DK-2"
        ]
    if kind == "person":
        return _people(sentence)
    names = [Span(m.start, m.end, m.name) for m in find_mentions(sentence)]
    if kind == "place":
        return names + _suffixed_places(sentence)
    return names + _copula_complements(sentence)


def name_parts(text: str) -> frozenset[str]:
    """The words of the Latin people's full names a text gives ("Priya Nair" → Priya, Nair),
    by which its other sentences may name them again ("Priya will present the roadmap.")."""
    return frozenset(
        word
        for span in _people(text)
        if not _has_hangul(span.text) and _full_name(span.text)
        for word in span.text.split()
        if len(word) > 1 and word[0].isupper()
    )


def named_again(sentence: str, parts: AbstractSet[str]) -> list[Span]:
    """The words of `sentence` that are parts of a full name given elsewhere (`name_parts`)."""
    if not parts:
        return []
    return [
        Span(m.start(), m.end(), m.group(0))
        for m in re.finditer(r"\b[A-Z][a-z]+\b", sentence)
        if m.group(0) in parts
    ]


def _start(span: Span) -> int:
    return span.start


def _matches(pattern: re.Pattern[str], text: str) -> list[Span]:
    return [
        Span(m.start(), m.end(), m.group(0).strip())
        for m in pattern.finditer(text)
        if m.group(0).strip()
    ]


def _people(sentence: str) -> list[Span]:
    """Names of people: Latin names, Kiwi's proper nouns shaped like a Korean name, any Korean
    word shaped like one next to a title ("한지훈이다", "최민호 수석연구원"), and the persons
    `named_entities` reads from whole words (a name Kiwi splits into pieces)."""
    spans = [
        Span(m.start, m.end, m.name)
        for m in find_mentions(sentence)
        if (_name_shaped(m.name) if _has_hangul(m.name) else _full_name(m.name))
    ]
    for token in get_kiwi().tokenize(sentence):
        form = token.form
        if token.tag in ("NNP", "NNG") and _name_shaped(form):
            end = token.start + token.len
            follows = sentence[end:]
            copula = follows.startswith(("이다", "이며", "이고", "이었", "였", "이가", "이다."))
            if token.tag == "NNP" or _TITLE_AFTER.match(follows) or copula:
                spans.append(Span(token.start, end, form))
    if _has_hangul(sentence):  # a name Kiwi splits ("이수민" → 이/MM 수/NNB 민/NNG) before a title
        spans += [Span(n.start, n.end, n.name) for n in korean_names(sentence) if n.type == PERSON]
    spans.extend(_role_holders(get_kiwi().tokenize(sentence)))
    spans.sort(key=lambda s: s.start)
    return [s for i, s in enumerate(spans) if not any(o.text == s.text for o in spans[:i])]


# Titles a person holds ("…의 대표는 X이다"); a unit's head is the unit's noun + 장 (지사장,
# 센터장, 공장장, 연구소장: see `_role`).
_ROLE_TEXT = "대표 대표이사 사장 회장 총장 소장 팀장 본부장 책임자 창업자 교수 이사 CEO CTO CFO"
_ROLES = frozenset(_ROLE_TEXT.split())
_NAME_TAGS = ("NNP", "NNG", "SL")


def _role(form: str) -> bool:
    return form in _ROLES or (form.endswith("장") and form[:-1] in _PLACE_HEADS)


def _role_holders(tokens: list[Token]) -> list[Span]:
    """The name a role is equated with ("싱가포르 지사의 지사장은 림웨이밍이다" → 림웨이밍): a
    person, whatever its shape (림 is no common family name). Kiwi may glue the copula's 이 to
    a name it does not know ("오세영이다" → 오세영이 + 이다): it is left out."""
    spans = []
    for i in range(len(tokens) - 3):
        role, particle, name, copula = tokens[i : i + 4]
        if not (
            role.tag == "NNG"
            and _role(role.form)
            and particle.tag in ("JX", "JKS")
            and name.tag in _NAME_TAGS
            and copula.tag == "VCP"
            and not _role(name.form)
        ):
            continue
        end = name.start + name.len
        if copula.len == 0 and name.form.endswith("이") and len(name.form) > 2:
            end -= 1  # "오세영이" + a copula of no length: the name is 오세영
        spans.append(Span(name.start, end, name.form[: end - name.start]))
    return spans


_ORGANISATION_TEXT = """inc corp corporation company co ltd llc group logistics robotics
    university college
    school institute bank capital ventures partners holdings systems technologies technology
    labs laboratory foundation association agency ministry department council club team fc
    airlines airways motors electronics records studios pictures press times news church
    hospital museum library center centre party army navy league"""
_ORGANISATION_WORDS = frozenset(_ORGANISATION_TEXT.split())


# Words of a region's or a place's name ("Southeast Asia", "Kansas City", "Jeju Island"), none
# of them a surname too (West, Park, Lake, Bay and Street are).
_REGION_TEXT = """northeast northwest southeast southwest northern southern eastern western
    asia europe africa america americas oceania arctic antarctica pacific atlantic
    city county province island islands mountains valley ocean gulf kingdom republic"""
_NOT_A_PERSON = _ORGANISATION_WORDS | frozenset(_REGION_TEXT.split())


def _full_name(name: str) -> bool:
    """A Latin person's name: two or more capitalised words, none an organisation's or a
    region's ("Southeast Asia")."""
    words = name.split()
    return len(words) >= 2 and not any(
        word.casefold().strip(".,") in _NOT_A_PERSON or any(c.isdigit() for c in word)
        for word in words
    )  # "NuriBot S2" is a product


def _has_hangul(text: str) -> bool:
    return any("가" <= c <= "힣" for c in text)


def _name_shaped(word: str) -> bool:
    if not _HANGUL_WORD.fullmatch(word):
        return False
    if word.startswith(_FAMILY2):
        return len(word) in (3, 4)
    return len(word) == 3 and word[0] in _FAMILY and word[-1] not in "시군"  # 나주시: a city


# Nouns that end the name of a place or an organisation ("한결대학교", "이천 공장", "대한물류"):
# Kiwi does not always tag the name before them a proper noun ("한결" is read as an adverb).
_PLACE_HEAD_TEXT = """대학교 대학 학교 은행 센터 연구소 공장 본사 지사 회사 그룹 재단 병원
    시 도 구 군 동 읍 면
    벤처스 캐피털 물류 전자 건설 증권 기관 부 청 처 원 팀 본부"""
_PLACE_HEADS = frozenset(_PLACE_HEAD_TEXT.split())
_NAME_PART_TAGS = ("NNG", "NNP", "MAG", "SL", "SN", "XPN", "NR")


def _glued_head(token: Token) -> bool:
    """A noun Kiwi reads whole that ends in a place or organisation noun of two syllables or
    more, after a name of two or more ("대한물류", "한결대학교"; not "물류", not "본사")."""
    return (
        token.tag in ("NNG", "NNP")
        and bool(_HANGUL_WORD.fullmatch(token.form) or len(token.form) > 4)
        and any(
            len(head) >= 2 and len(token.form) >= len(head) + 2 and token.form.endswith(head)
            for head in _PLACE_HEADS
        )
    )


def _suffixed_places(sentence: str) -> list[Span]:
    """Runs of glued Kiwi tokens ending in a place or organisation noun, with a name before it."""
    tokens = get_kiwi().tokenize(sentence)
    spans: list[Span] = []
    for i, token in enumerate(tokens):
        if _glued_head(token):  # "대한물류", one noun to Kiwi: a name ending in its kind
            spans.append(Span(token.start, token.start + token.len, token.form))
            continue
        if token.form not in _PLACE_HEADS or token.tag not in ("NNG", "NNP", "NNB", "XSN"):
            continue
        j = i
        while (
            j > 0
            and tokens[j - 1].tag in _NAME_PART_TAGS
            and tokens[j - 1].start + tokens[j - 1].len == tokens[j].start
        ):
            j -= 1
        if j < i:
            start, end = tokens[j].start, token.start + token.len
            spans.append(Span(start, end, sentence[start:end]))
    return spans


# Heads of an organisation's name, out of _PLACE_HEADS: who can invest, lead or sign.
_AGENT_HEAD_TEXT = """대학교 대학 은행 연구소 회사 그룹 재단 병원
    벤처스 캐피털 물류 전자 건설 증권 기관"""
_AGENT_HEADS = tuple(_AGENT_HEAD_TEXT.split())
# "누가" before a verb asks who did something, and a company or a bank does things too ("시리즈 C
# 투자는 누가 주도했어?" → "한국산업은행이 주도했다"); "누가 대표야?" asks for a person.
_AGENT_QUESTION = re.compile(r"누가.*?(?:했|하나|합니까|하였|한다|할까|하는지|하니)")


def asks_for_agent(question: str) -> bool:
    """Whether a Korean 누가-question asks who did something (an organisation may answer)."""
    return bool(_AGENT_QUESTION.search(question))


def agents(sentence: str) -> list[Span]:
    """Organisations named in the sentence ("한국산업은행이", "동해캐피털"): a proper noun ending
    in an organisation's head or marked as the subject, or a name glued to such a head."""
    tokens = get_kiwi().tokenize(sentence)
    spans = [s for s in _suffixed_places(sentence) if s.text.endswith(_AGENT_HEADS)]
    for token, after in zip(tokens, [*tokens[1:], None], strict=True):
        subject = after is not None and after.tag == "JKS"
        named = token.tag == "NNP" and (token.form.endswith(_AGENT_HEADS) or subject)
        if named and not _name_shaped(token.form):  # a person's name is a person
            spans.append(Span(token.start, token.start + token.len, token.form))
    spans.sort(key=lambda s: (s.start, -s.end))
    # a span inside an earlier one ("캐피털" of "동해캐피털") is that one
    return [
        s
        for i, s in enumerate(spans)
        if not any(o.start <= s.start and s.end <= o.end for o in spans[:i])
    ]


def _copula_complements(sentence: str) -> list[Span]:
    """The noun run before a copula ("…의 대표 제품은 누리WMS이다" → "누리WMS")."""
    tokens = get_kiwi().tokenize(sentence)
    spans: list[Span] = []
    for i, token in enumerate(tokens):
        if token.tag != "VCP":
            continue
        j = i
        while j > 0 and tokens[j - 1].tag in ("NNG", "NNP", "SL", "SN", "NNB", "XSN"):
            j -= 1
        if j < i:
            start, end = tokens[j].start, tokens[i - 1].start + tokens[i - 1].len
            spans.append(Span(start, end, sentence[start:end]))
    return spans
