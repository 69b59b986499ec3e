"""What "그 사람", "그 회사", "거기", "he", "she" refer to in a follow-up: an earlier turn's names
sorted by kind (person, organisation, place), and the noun put in with its particle agreeing
(한빛로보틱스는, not 한빛로보틱스은).

Kinds come first from the typed names of `planrag.text.named_entities` (the graph extractor's
rules: a gazetteer of places, organisation endings, a surname with a title, English endings),
so "대전 유성구" is a place and "누리봇 S2" a product (no referent), not a person. Names it leaves
untyped are sorted by form: a person is a Korean surname and a given name ("김도윤", from
`is_person_name`) or one before or after a title ("박서연 자율주행팀장"), or two or three
capitalised Latin words without a company word ("Maria Tan"); an organisation ends like one
(…로보틱스, …전자, …대학교, … Inc); a word ending in 시/도/구/군/읍/면 after a place, or before
"에/에서/로", is a place ("대전광역시 유성구에"); another proper noun is an organisation, unsure.

Where each reference looks: a person in the previous answer first (the question asked about a
company; its answer named the person); "거기/그곳/there" a place, then an organisation, of the
previous answer before those of the previous question (the answer said where); "그 회사" an
organisation of the previous question first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from planrag.text.named_entities import (
    MAYBE_PERSON,
    ORG,
    PERSON,
    PLACE,
    is_person_name,
    typed_names,
)

Kind = Literal["person", "organisation", "place"]

_SURNAMES = frozenset(
    "김이박최정강조윤장임한오서신권황안송류유전홍고문양손배백허남심노하곽성차주우구민진나지엄채원천방"
    "공현함변염여추도소석선설마길연위표명기반라왕금옥육인맹제모탁국어은편용"
)
_ORG_END = re.compile(
    r"(?:로보틱스|전자|벤처스|대학교|대학|은행|회사|그룹|재단|연구소|연구원|공사|협회|물류|테크|뱅크|"
    r"증권|보험|건설|제약|바이오|통신|항공|자동차|중공업|화학|엔터테인먼트|랩스?|시스템즈?|코리아|"
    r"홀딩스|파트너스|캐피탈|인베스트먼트|미디어|소프트|게임즈|모터스|에너지|병원|학교|정부|부|청|원)$"
    r"|\b(?:inc|corp|corporation|ltd|llc|co|company|group|logistics|robotics|university|bank|"
    r"labs?|systems|technologies|motors|airlines|foundation|institute|ventures|capital|partners|"
    r"holdings|electronics|media|games|energy)\.?$",
    re.IGNORECASE,
)
_PLACE_END = re.compile(r"(?:시|도|군|구|동|읍|면|국|주|섬|산|강|항|역|공항|센터|창고|공장)$")
_LATIN_PERSON = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2})\b")


@dataclass(frozen=True)
class Referent:
    name: str
    kind: Kind
    sure: bool = True  # said by its form (a surname, a company word), not a default


MAX_TEXT_CHARS = 3000  # names are looked for in the first 3,000 characters of a turn


def referents(text: str) -> list[Referent]:
    """The names in `text` with their kind, in order of appearance."""
    from planrag.text.korean import get_kiwi  # loaded once per process

    text = text[:MAX_TEXT_CHARS]
    found: list[tuple[int, Referent]] = []
    said: list[tuple[int, int]] = []  # spans the typed names settle (kinds and non-referents)
    before: tuple[str, int] = ("", -1)  # the type and end of the name before
    for named in typed_names(text):
        kind = _NE_KINDS.get(named.type)
        if named.type in (MAYBE_PERSON, ""):
            after_place = before[0] == PLACE and not text[before[1] : named.start].strip()
            kind = _untyped_place(text, named.name, named.end, after_place)
        if kind is not None or named.type not in (MAYBE_PERSON, ""):  # else left to the rules
            if kind is not None and not named.surname:
                found.append((named.start, Referent(named.name, kind)))
            said.append((named.start, named.end))
        before = (PLACE if kind == "place" else named.type, named.end)

    def free(position: int) -> bool:
        return not any(start <= position < end for start, end in said)

    if re.search(r"[가-힣]", text):
        tokens = get_kiwi().tokenize(text)
        for i, token in enumerate(tokens):
            if not free(token.start):
                continue
            if token.tag == "NNP" or (token.tag == "NNG" and _company_word(token.form)):
                name = _whole_word(text, tokens, i)
                kind, sure = _kind(name)
                found.append((token.start, Referent(name, kind, sure)))
            elif token.tag == "NNG" and _titled_name(text, tokens, i):  # "박서연 팀장"
                found.append((token.start, Referent(token.form, "person")))
    for m in _LATIN_PERSON.finditer(text):
        name = m.group(1)
        latin: Kind = "organisation" if _ORG_END.search(name) else "person"
        first = name.split()[0].lower()
        if free(m.start()) and first not in ("the", "in", "its", "this", "that", "what", "who"):
            found.append((m.start(), Referent(name, latin)))
    seen: dict[str, Referent] = {}
    for _, ref in sorted(found, key=lambda item: item[0]):
        seen.setdefault(ref.name, ref)
    return list(seen.values())


_NE_KINDS: dict[str, Kind] = {PERSON: "person", ORG: "organisation", PLACE: "place"}
_ADMIN_END = re.compile(r"[가-힣]{2,}(?:시|도|구|군|읍|면)$")
_LOCATIVE = re.compile(r"(?:에서|에|으로|로)(?!게)")


def _untyped_place(text: str, name: str, end: int, after_place: bool) -> Kind | None:
    """A name the typed names left open ("유성구" after "대전광역시", Kiwi reading it as 유성 + 구)
    that is a place by its ending and its neighbours: after a place, or before "에/에서/로"."""
    if not _ADMIN_END.fullmatch(name):
        return None
    return "place" if after_place or _LOCATIVE.match(text, end) else None


_TITLES = re.compile(
    r"(?:대표|대표이사|사장|회장|부장|과장|차장|이사|교수|박사|씨|님|연구원|수석|책임|선임|CTO|CEO|CFO|"
    r"COO|매니저|엔지니어|선수|감독|배우|작가|의원|장관|대통령|기자|변호사|의사)$|장$",
    re.IGNORECASE,
)


def _titled_name(text: str, tokens: list[Any], i: int) -> bool:
    """A whole word Kiwi did not know as a name, before or after a title ("박서연 자율주행팀장",
    "인사팀장 배수진")."""
    token = tokens[i]
    end = token.start + token.len
    named = re.fullmatch(r"[가-힣]{2,3}", token.form) and token.form[0] in _SURNAMES
    if not named or (token.start > 0 and not text[token.start - 1].isspace()):
        return False
    if end < len(text) and not text[end].isspace():
        return False
    j = i + 1
    while j < len(tokens) and tokens[j].tag.startswith("NN"):
        j += 1
    after = tokens[j - 1].form if j > i + 1 else ""
    before = tokens[i - 1].form if i and tokens[i - 1].tag.startswith("NN") else ""
    return bool(_TITLES.search(after) or _TITLES.search(before))


def _whole_word(text: str, tokens: list[Any], i: int) -> str:
    """The compound a proper noun is part of ("카카오" in "카카오뱅크의" → 카카오뱅크): the nouns
    and Latin letters glued to it, without particles or endings."""
    first = last = i
    glued = ("NN", "SL", "SN", "XSN")
    while first > 0 and tokens[first - 1].tag.startswith(glued) and _touch(tokens, first - 1):
        first -= 1
    while (
        last + 1 < len(tokens) and tokens[last + 1].tag.startswith(glued) and _touch(tokens, last)
    ):
        last += 1
    return text[tokens[first].start : tokens[last].start + tokens[last].len]


def _touch(tokens: list[Any], j: int) -> bool:
    """Whether token j ends where token j + 1 starts (no space between)."""
    return tokens[j].start + tokens[j].len == tokens[j + 1].start


def _company_word(form: str) -> bool:
    """A noun ending like a company, longer than the ending ("한빛로보틱스", not "회사")."""
    m = _ORG_END.search(form)
    return m is not None and m.start() > 0


def _kind(name: str) -> tuple[Kind, bool]:
    """The kind of a Korean proper noun the typed names left open, and whether its form says so."""
    if _company_word(name):
        return "organisation", True
    if is_person_name(name):
        return "person", True
    return ("place", True) if _PLACE_END.search(name) else ("organisation", False)


Source = Literal["answer", "question"]
_PERSON: list[tuple[Source, Kind]] = [("answer", "person"), ("question", "person")]
_ORGANISATION: list[tuple[Source, Kind]] = [
    ("question", "organisation"),
    ("answer", "organisation"),
]
_PLACE: list[tuple[Source, Kind]] = [
    ("answer", "place"),
    ("question", "place"),
    ("answer", "organisation"),
    ("question", "organisation"),
]
# A reference and where its name is looked for, in order (the previous answer or question, and
# the kind of name).
_REFERENCES: list[tuple[re.Pattern[str], list[tuple[Source, Kind]]]] = [
    (re.compile(r"그\s*사람|그\s*분|그분|그녀|이\s*사람|해당\s*인물|그\s*인물|(?<![가-힣])그(?=는|가|의|를|에게|한테)"),
     _PERSON),
    (re.compile(r"\b(?:he|she|him|her|his)\b", re.IGNORECASE), _PERSON),
    (re.compile(r"(?:그|이|해당)\s*(?:회사|기업|기관|단체|업체|조직|팀)"), _ORGANISATION),
    (re.compile(r"거기|그곳|그\s*곳|(?:그|이|해당)\s*(?:지역|도시|나라|장소)"), _PLACE),
    (re.compile(r"\bthat\s+(?:company|firm|organi[sz]ation)\b", re.IGNORECASE), _ORGANISATION),
    # "there" as a place, not "is there …", "there are …", "hi there"
    (re.compile(r"(?<!\bhi\s)(?<!\bhey\s)(?<!\bhello\s)(?<!\bis\s)(?<!\bare\s)(?<!\bwas\s)(?<!\bwere\s)(?<!\bbe\s)\bthere\b"
                r"(?!\s+(?:is|are|was|were|be|been|will|would|has|have|had|seems?)\b|'s)",
                re.IGNORECASE), _PLACE),
]  # fmt: skip


def resolve_reference(question: str, asked: str, answer: str | None) -> str | None:
    """The follow-up with its reference replaced by the earlier name of the right kind (and its
    particle made to agree); the question itself when it refers to a person and none was named
    (never the company or product of the question instead); None when it has no reference of
    a kind or no such name."""
    for pattern, order in _REFERENCES:
        m = pattern.search(question)
        if m is None:
            continue
        names = {"answer": referents(answer or ""), "question": referents(asked)}
        if order is _PERSON and not any(r.kind == "person" for n in names.values() for r in n):
            return question
        for sure in (True, False):  # a name whose form says its kind first
            for source, kind in order:
                name = next((r.name for r in names[source] if r.kind == kind and r.sure == sure),
                            None)  # fmt: skip
                if name:
                    if order is _PLACE:
                        name = _as_place(question, m, name)
                    return with_particle(question, m.start(), m.end(), name)
        return None
    return None


def _as_place(question: str, m: re.Match[str], name: str) -> str:
    """The name as "거기"/"there" stood: "거기 있는 …" → "대전에 있는 …" (거기 before a verb is
    locative), "works there" → "works in Busan"."""
    from planrag.text.korean import get_kiwi

    said = m.group(0)
    if said.lower() == "there":
        before = question[: m.start()].split()
        preposition = before and before[-1].lower() in ("in", "at", "from", "to", "near", "of")
        return name if preposition else f"in {name}"
    rest = question[m.end() :]
    if said in ("거기", "그곳", "그 곳") and rest[:1].isspace() and rest.strip():
        first = get_kiwi().tokenize(rest.strip())[0]
        if first.tag in ("VV", "VA", "VX"):  # 있다, 없다, 가다, 살다 …
            return f"{name}에"
    return name


# Particle pairs: (after a final consonant, after a vowel).
_PAIRS = [("이랑", "랑"), ("으로", "로"), ("은", "는"), ("이", "가"), ("을", "를"), ("과", "와"),
          ("아", "야")]  # fmt: skip


def has_batchim(word: str) -> bool:
    """Whether the word ends in a final consonant (Hangul arithmetic; Latin: by its last
    letter's sound, roughly — consonants except a silent e)."""
    last = word.rstrip()[-1:]
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28 != 0
    return last.lower() in set("bcdfgjklmnpqstvxz") if last.isalpha() else last in "0136789"


def with_particle(question: str, start: int, end: int, name: str) -> str:
    """`question` with [start, end) replaced by `name`, the particle after it agreeing."""
    rest = question[end:]
    consonant = has_batchim(name)
    for after_consonant, after_vowel in _PAIRS:
        for particle in (after_consonant, after_vowel):
            if rest.startswith(particle) and not (particle == "이" and rest.startswith("이랑")):
                right = after_consonant if consonant else after_vowel
                if particle in ("으로", "로") and _ends_in_rieul(name):
                    right = "로"  # 서울로, not 서울으로
                rest = right + rest[len(particle) :]
                return question[:start] + name + rest
    return question[:start] + name + rest


def _ends_in_rieul(word: str) -> bool:
    last = word.rstrip()[-1:]
    return "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 == 8
