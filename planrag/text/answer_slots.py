"""The slot a Korean question word stands in: the particle it carries, which the answer carries too.

"푸른벤처스는 어디에 투자했나요?" asks for what takes 에 with 투자: "푸른벤처스는 한빛로보틱스에
120억 원을 투자했고 …" fills it (한빛로보틱스에), "… 설립된 벤처캐피털로, 주로 … 기업에 투자한다"
holds an organisation too, but as a description (벤처캐피털로). Kiwi reads the particles; the
pairs a final consonant chooses between (을/를, 이/가, 은/는, 과/와, 으로/로) are one particle.

A relative clause asks for its head noun's slot the same way: "시리즈 B에 30억 원을 투자한
회사" gives the object (30억 원을) and no subject, so the company is the subject of 투자하다 —
"나머지 30억 원은 동해캐피털이 투자했다" fills it (동해캐피털이), not 한빛로보틱스, the company
invested in ("한빛로보틱스는 … 투자로 150억 원을 유치했다").
"""

from __future__ import annotations

from functools import lru_cache

from planrag.text.korean import get_kiwi, splits_into

__all__ = [
    "asked_kind",
    "asked_particle",
    "carries",
    "gap_particle",
    "named_kind",
    "particles_after",
    "slot_of",
]

_QUESTION_WORDS = frozenset({"어디", "누구", "무엇", "뭐"})
# Case particles a question word's slot is marked by (not 은/는, 도, 만: they mark topic or focus,
# not the verb's argument; not the copula: "누구인가" has no slot).
_SLOT_TAGS = ("JKS", "JKO", "JKB")
_SAME = {"를": "을", "가": "이", "와": "과", "로": "으로", "께서": "이", "서": "에서"}
# Tokens a noun phrase runs on through before its particle: a name's title ("박지은 CTO에게").
_PHRASE_TAGS = frozenset({"NNG", "NNP", "SL", "SN", "XSN"})


def _normal(particle: str) -> str:
    return _SAME.get(particle, particle)


@lru_cache(maxsize=256)
def asked_particle(question: str) -> str | None:
    """The case particle the question word carries ("어디에" → 에, "누구를" → 을, "누가" → 이);
    None when it carries none or the question has no such word."""
    tokens = get_kiwi().tokenize(question)
    for here, after in zip(tokens, tokens[1:], strict=False):
        if here.form in _QUESTION_WORDS and after.tag in _SLOT_TAGS:
            return _normal(after.form)
        if here.form == "누" and after.form == "가":  # Kiwi reads 누가 as 누 + 가
            return "이"
    return None


@lru_cache(maxsize=4096)
def particles_after(sentence: str) -> dict[int, str]:
    """The case particle ending the noun phrase at each offset where a noun of it ends (that
    offset → the particle, pairs made one): in "박지은 CTO에게", the end of both 박지은 and CTO."""
    found: dict[int, str] = {}
    phrase: list[int] = []  # ends of the nouns of the phrase read so far
    for token in get_kiwi().tokenize(sentence):
        if token.tag in _SLOT_TAGS:
            found.update(dict.fromkeys([*phrase, token.start], _normal(token.form)))
            phrase = []
        elif token.tag in _PHRASE_TAGS:
            phrase.append(token.start + token.len)
        else:
            phrase = []
    return found


_VERBS = ("VV", "XSV")  # an action: 투자하다, 맺다 (not 있다, an adjective or a copula)


@lru_cache(maxsize=256)
def gap_particle(query: str) -> str | None:
    """The slot a relative clause's head noun fills in the clause: the subject (이) when the
    clause ends a query with an action verb + ETM + its head noun, and gives an object but no
    subject ("…에 30억 원을 투자한 회사", "누리봇 S2를 개발한 사람"); None otherwise ("김도윤이
    졸업한 대학교": the subject is given, the head is another argument; "…가 있는 구")."""
    tokens = [t for t in get_kiwi().tokenize(query) if t.tag not in ("SF", "SP", "SS")]
    marks = [i for i, t in enumerate(tokens) if t.tag == "ETM"]
    if not marks:
        return None
    mark = marks[-1]
    head = tokens[mark + 1 :]
    if not head or any(not t.tag.startswith("NN") for t in head):
        return None
    clause = tokens[:mark]
    if not clause or not clause[-1].tag.startswith(_VERBS):
        return None
    tags = {t.tag for t in clause}
    return "이" if "JKO" in tags and "JKS" not in tags else None


def slot_of(query: str) -> str | None:
    """The slot a query asks for: its question word's, else its relative clause's head's."""
    return asked_particle(query) or gap_particle(query)


def carries(sentence: str, name: str, particle: str) -> bool:
    """Whether `name`, where the sentence first writes it, is followed by `particle`."""
    at = sentence.find(name)
    return at >= 0 and particles_after(sentence).get(at + len(name)) == particle


_KIND_WORDS = frozenset({"어느", "무슨", "어떤"})  # determiners asking which one of a kind


@lru_cache(maxsize=256)
def asked_kind(question: str) -> str | None:
    """The kind of thing a Korean determiner question word asks which one of: "어느 학교 나왔어?"
    → 학교, "무슨 상을 받았어?" → 상 (the common noun Kiwi reads right after 어느/무슨/어떤);
    None without one."""
    tokens = get_kiwi().tokenize(question)
    for here, after in zip(tokens, tokens[1:], strict=False):
        if here.tag == "MM" and here.form in _KIND_WORDS and after.tag == "NNG":
            return after.form
    return None


def named_kind(term: str, kind: str) -> bool:
    """Whether a noun is a name of that kind: Korean compounds end in their head noun, and a
    name of an organisation or a place in its kind ("서울대학교" is a 학교, "한국산업은행" an
    은행, "이천공장" a 공장), or in a noun the kind begins as Kiwi reads it ("서울대학교" is a
    대학: 대학교 is 대학 + 교). A kind of one syllable is too short to tell ("상" ends 인상)."""
    if len(kind) < 2 or len(term) <= len(kind):
        return False
    if term.endswith(kind):
        return True
    at = term.rfind(kind)
    return at > 0 and splits_into(term[at:], (kind,))
