"""Typed names in a sentence, for the rule graph extractor: PERSON, ORGANIZATION, PRODUCT,
PLACE, EVENT, DATE (CONCEPT is left to the relation patterns and to what is not typed).

Korean, from Kiwi's morphemes read word by word (a word: the text between spaces). A word's
*nominal* part is its leading nouns, numbers and Latin letters, before the first particle,
copula or ending ("한빛로보틱스에" → 한빛로보틱스, "한결대학교는" → 한결대학교 although Kiwi reads
한결 as an adverb). Words without a particle between them join into one name when they belong
together: a name and its model code ("누리봇 S2", "누리WMS 3.0"), ㈜ / 주식회사 and the company,
places ("대전 유성구"), a name and an organisation or event word ("굿디자인 어워드"). A university's
department stays with the university ("한결대학교 기계공학과" names 한결대학교).

Types, by what the name is made of and where it stands:
- ORGANIZATION: endings (주식회사, ㈜, 그룹, 대학교, 연구소, 벤처스, 캐피털, 은행, 재단, 협회, 공사,
  위원회 …; teams and divisions: 팀, 본부, 학과, 학부); ㈜ / 주식회사 are dropped from the name
  and kept as an alias.
- PERSON: a Korean surname and a given name (3 syllables, or 4 with a two-syllable surname)
  that Kiwi reads as a proper noun or that a title follows ("박지은 CTO", "정유진 교수") or that
  completes "…의 대표는 X이다". A surname alone before a title ("김 대표") is a `surname` mention,
  resolved to the person of the document (`planrag/ingest/aliases.py`).
- PRODUCT: a name with a model code (letters and digits: "누리봇 S2").
- PLACE: a gazetteer of Korean regions and major cities and countries, and proper nouns ending
  in 시 / 도 / 구 / 군.
- EVENT: endings such as 어워드, 박람회, 대회, 엑스포, 컨퍼런스.
- DATE: "2015년 3월", "2024년 11월 5일", "March 2025".
- Other proper nouns are untyped (`""`): the relation patterns and the document type them.

English: capitalised spans (`planrag.text.entities`), typed by endings (Inc, University,
Robotics, Ventures …), the gazetteer, a model code, or a two-to-three-word personal name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from planrag.text.entities import _latin_spans, clean_name
from planrag.text.korean import get_kiwi
from planrag.text.name_lexicon import (
    COMPANY_MARKS,
    DATE_EN,
    DATE_KO,
    EN_EVENT_ENDINGS,
    EN_ORG_ENDINGS,
    EVENT_ENDINGS,
    MODEL_CODE,
    ORG_ENDINGS,
    PLACE_ENDINGS,
    PLACES,
    PROVINCES,
    ROLES,
    STANDALONE_EVENT,
    SURNAMES,
    SURNAMES_2,
    TITLES,
    UNIT_ENDINGS,
)

MAYBE_PERSON = (
    "?"  # shaped like a Korean name, unconfirmed: dropped unless a pattern needs a person
)
PERSON, ORG, PRODUCT, PLACE, EVENT, DATE, CONCEPT = (
    "PERSON",
    "ORGANIZATION",
    "PRODUCT",
    "PLACE",
    "EVENT",
    "DATE",
    "CONCEPT",
)


@dataclass
class Named:
    """A typed name in a text: `type` "" when nothing says what it is yet."""

    name: str
    type: str
    start: int
    end: int
    aliases: list[str] = field(default_factory=list)
    surname: bool = False  # "김" of "김 대표": resolved to a person of the document
    title: str = ""  # the title that follows a person ("대표", "CTO")


@dataclass
class _Word:
    start: int
    end: int  # end of the nominal part (== start: none)
    full_end: int  # end of the word
    tags: list[str]
    proper: bool  # a proper noun, Latin letters or a number in the nominal part

    def nominal(self, text: str) -> str:
        return text[self.start : self.end]

    @property
    def bare(self) -> bool:
        """No particle or ending after the nominal part."""
        return self.end == self.full_end


_FUNCTION = ("J", "E")  # particles and endings: where a word's nominal part stops
_STOP_TAGS = frozenset(("VCP", "XSV", "XSA", "VV", "VA", "VX", "SF", "SP", "SSO", "SSC", "SE"))


def _words(text: str) -> list[_Word]:
    tokens = get_kiwi().tokenize(text)
    words: list[_Word] = []
    for match in re.finditer(r"\S+", text):
        start, end = match.span()
        inside = [t for t in tokens if start <= t.start < end]
        nominal_end, tags = start, []
        for token in inside:
            stops = token.tag[0] in _FUNCTION or token.tag in _STOP_TAGS
            if stops and token.start >= nominal_end:
                if token.tag == "VCP" and token.len == 0 and text[nominal_end - 1] == "이":
                    nominal_end -= 1  # Kiwi: "오세영이다" → 오세영이/NNG 이/VCP
                break
            if not stops:  # a fused ending inside the last syllable ("오승훈은") is absorbed
                nominal_end = max(nominal_end, token.start + token.len)
                tags.append(token.tag)
        nominal_end = min(nominal_end, end)
        while nominal_end > start and text[nominal_end - 1] in "-),.;:!?·\"'”’":
            nominal_end -= 1
        if tags == ["NNP"] and nominal_end - start >= 4 and text[nominal_end - 1] == "의":
            nominal_end -= 1  # Kiwi: "누리테크의" → 누리테크의/NNP
        proper = any(t in ("NNP", "SL", "SN", "SH") for t in tags)
        words.append(_Word(start, nominal_end, end, tags, proper))
    return words


def nominal_words(text: str) -> list[str]:
    """The nominal part of each word of `text` (its nouns before the particle), in order."""
    return [n for w in _words(text) if (n := w.nominal(text))]


def _ends(word: str, endings: tuple[str, ...]) -> str | None:
    for ending in sorted(endings, key=len, reverse=True):
        if word.endswith(ending) and len(word) > len(ending):
            return ending
    return None


def is_person_name(word: str, short: bool = False) -> bool:
    """A Korean surname and a given name: 3 syllables, or 4 with a two-syllable surname (2
    syllables too with `short`: "최민 연구원")."""
    if not re.fullmatch(r"[가-힣]{2,4}", word):
        return False
    if word[:2] in SURNAMES_2:
        return len(word) in (3, 4)
    return (len(word) == 3 or (short and len(word) == 2)) and word[0] in SURNAMES


def _place(name: str, proper: bool) -> bool:
    if name in PLACES or all(part in PLACES for part in name.split()):
        return True
    last = name.split()[-1]
    ending = _ends(last, PLACE_ENDINGS)
    return (
        proper
        and ending is not None
        and len(last) >= 3
        and re.fullmatch(r"[가-힣]+", last) is not None
    )


def _kind(word: str, proper: bool) -> str:
    """What one word names on its own ("" when it says nothing)."""
    if word in COMPANY_MARKS:
        return "mark"
    if _place(word, proper):
        return PLACE
    if _ends(word, EVENT_ENDINGS) or word in STANDALONE_EVENT:
        return EVENT
    if _ends(word, UNIT_ENDINGS):
        return "unit"
    if _ends(word, ORG_ENDINGS) or word in ("그룹", "주식회사"):
        return ORG
    if MODEL_CODE.match(word):
        return "code"
    return ""


def _joins(  # noqa: PLR0911
    prev: str, prev_kind: str, prev_proper: bool, nxt: str, nxt_kind: str, nxt_proper: bool
) -> bool:
    """Whether a bare word and the word after it are one name."""
    if prev_kind == "mark" or nxt_kind == "mark":
        return True
    if nxt_kind == "code":
        hyphened = "-" in nxt
        coded = prev_proper or (re.search(r"\d", nxt) is not None and len(prev) >= 2)
        coded = coded and not hyphened
        return prev_kind not in (PLACE, "unit") and coded and not prev.isdigit()
    if prev_kind == PLACE and (
        nxt_kind == PLACE or (prev in PROVINCES and nxt_kind == "" and nxt_proper)
    ):
        return True
    if nxt in STANDALONE_EVENT or (nxt_kind == ORG and nxt in ORG_ENDINGS):
        return True  # "굿디자인 어워드", "한빛 그룹"
    if prev_kind == ORG and nxt_kind == "unit" and re.search(r"대학교?$|대학원$", prev):
        return True  # "서울대학교 전기공학부": the university
    if is_person_name(prev) or is_person_name(nxt):
        return False
    # Two proper nouns that say nothing else: one foreign name ("일론 머스크", "Hanbit Robotics")
    return prev_kind == "" and nxt_kind == "" and prev_proper and nxt_proper


def korean_names(text: str) -> list[Named]:
    """Typed Korean names of one sentence (or any text), in order."""
    words = _words(text)
    found: list[Named] = []
    i = 0
    while i < len(words):
        word = words[i]
        nominal = word.nominal(text)
        if not nominal:
            i += 1
            continue
        run = [word]
        kinds = [_kind(nominal, word.proper)]
        while run[-1].bare and i + len(run) < len(words):
            nxt = words[i + len(run)]
            nxt_nominal = nxt.nominal(text)
            nxt_kind = _kind(nxt_nominal, nxt.proper)
            prev = run[-1]
            if not nxt_nominal or not _joins(
                prev.nominal(text), kinds[-1], prev.proper, nxt_nominal, nxt_kind, nxt.proper
            ):
                break
            run.append(nxt)
            kinds.append(nxt_kind)
        after = words[i + len(run)] if i + len(run) < len(words) else None
        role = i > 0 and not words[i - 1].bare and words[i - 1].nominal(text) in ROLES
        named = _typed(text, run, kinds, after, role)
        if named is not None:
            found.append(named)
        i += len(run)
    return found


def _title_after(text: str, nxt: _Word | None) -> str:
    if nxt is None:
        return ""
    nominal = nxt.nominal(text)
    return nominal if nominal in TITLES else ""


def _typed(
    text: str, run: list[_Word], kinds: list[str], nxt: _Word | None, role: bool
) -> Named | None:
    """The name a run of words makes, typed (`role`: the word before is "대표는", "총장은" …)."""
    start, end = run[0].start, run[-1].end
    parts = [w.nominal(text) for w in run]
    if len(run) == 1 and kinds[0] == "code":
        code = parts[0]
        standalone = re.fullmatch(r"[A-Za-z]{1,4}-\d[\w.]*", code) is not None
        return Named(code, PRODUCT, start, end) if standalone else None
    if len(run) == 1 and (parts[0] in TITLES or parts[0] in ROLES or _generic(parts[0])):
        return None
    head = re.fullmatch(r"(.{2,}(?:본부|팀|센터|연구소))장", parts[0]) if len(run) == 1 else None
    if head:  # "정비본부장": the unit (the pattern "<unit>장은 Y" reads its head)
        return Named(head.group(1), ORG, start, start + len(head.group(1)))
    proper = any(w.proper for w in run)
    if "mark" in kinds or any(p.startswith(COMPANY_MARKS) for p in parts):
        full = " ".join(parts)
        core = [p for p in parts if p not in COMPANY_MARKS]
        core = [re.sub(r"^(?:㈜|\(주\))", "", p) for p in core]
        if not core or not core[0]:
            return None
        return Named(" ".join(core), ORG, start, end, aliases=[full])
    name = " ".join(parts)
    title = _title_after(text, nxt)
    if kinds[-1] == "unit" and len(run) > 1 and kinds[0] == ORG:
        return Named(parts[0], ORG, start, end, aliases=[name])
    if (
        len(run) == 1
        and title
        and re.fullmatch(r"[가-힣]{1,2}", name)
        and (name in SURNAMES or name in SURNAMES_2)
    ):
        return Named(name, PERSON, start, end, surname=True, title=title)
    if len(run) == 1 and kinds[0] not in (ORG, "unit", EVENT, PLACE):
        if (is_person_name(name) and (proper or title or role)) or (
            is_person_name(name, short=True) and title and "MAG" not in run[0].tags  # 현재
        ):
            return Named(name, PERSON, start, end, title=title)
        if is_person_name(name) and not run[0].bare and not _generic(name):
            return Named(name, MAYBE_PERSON, start, end)  # a person if a pattern says so
    if kinds[-1] == "code" and len(run) > 1 or (proper and _has_code(name)):
        return Named(name, PRODUCT, start, end)
    if all(k == PLACE for k in kinds):
        return Named(name, PLACE, start, end)
    if kinds[-1] == EVENT and len(name) > 3:
        return Named(name, EVENT, start, end)
    sized = proper or len(parts[-1]) >= 3 or len(run) > 1
    if kinds[-1] in (ORG, "unit") and sized and not _generic(parts[-1]):
        return Named(name, ORG, start, end)
    if proper and not re.match(r"[\d.,%]", name):
        if re.fullmatch(r"[A-Z]{2,4}", name) and name in TITLES:
            return None
        return Named(name, "", start, end)
    return None


def _has_code(name: str) -> bool:
    """A Hangul name glued to Latin letters or followed by a code: "누리WMS", "누리봇 S2"."""
    return bool(re.search(r"[가-힣][A-Za-z]|[가-힣A-Za-z]\s[A-Za-z]{0,4}-?\d", name))


_GENERIC = frozenset(
    (
        *("대학교", "연구소", "연구원", "은행", "재단", "협회", "공사", "위원회", "센터", "그룹"),
        *("투자", "산업", "물류", "통신", "사립대학교", "국립대학교", "본사", "지사", "팀", "본부"),
        *("관제센터", "물류센터", "고객센터", "데이터센터", "연구센터", "벤처투자", "해외투자"),
        *("벤처캐피털", "경진대회", "박람회", "시상식", "전시회", "투자회사", "자회사", "계열사"),
        *("항공사", "제약사", "보험사", "증권사", "카드사", "통신사", "건설사", "제조사"),
        *("대기업", "중소기업", "스타트업", "공기업", "모회사", "지주회사", "사업부", "연구실"),
    )
)


def _generic(word: str) -> bool:
    return word in _GENERIC


def dates(text: str) -> list[Named]:
    found = [
        Named(re.sub(r"\s+", " ", m.group(0)), DATE, *m.span()) for m in DATE_KO.finditer(text)
    ]
    for m in DATE_EN.finditer(text):
        if m.group(1):
            found.append(Named(m.group(1), DATE, *m.span(1)))
        else:
            found.append(Named(m.group(0), DATE, *m.span()))
    return found


def english_names(text: str) -> list[Named]:
    found = []
    for start, end in _latin_spans(text):
        name = clean_name(text[start:end])
        if not name or name in TITLES or name.isdigit():
            continue
        found.append(Named(name, _english_type(name), start, end))
    return found


def _english_type(name: str) -> str:
    words = name.split()
    last = words[-1].casefold().strip(".")
    if name in PLACES:
        return PLACE
    if last in EN_ORG_ENDINGS:
        return ORG
    if last in EN_EVENT_ENDINGS:
        return EVENT
    if len(words) > 1 and MODEL_CODE.match(words[-1]):
        return PRODUCT
    if 2 <= len(words) <= 3 and all(re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)?", w) for w in words):
        return PERSON
    return ""


def typed_names(text: str) -> list[Named]:
    """Every typed name of `text`, in order, overlaps resolved (dates and longer spans win)."""
    found = dates(text)
    if re.search("[가-힣]", text):
        found += korean_names(text)
    else:
        found += english_names(text)
    chosen: list[Named] = []
    for named in sorted(found, key=lambda n: (n.type != DATE, -(n.end - n.start), n.start)):
        if all(named.end <= c.start or named.start >= c.end for c in chosen):
            chosen.append(named)
    return sorted(chosen, key=lambda n: n.start)
