"""The names a sentence holds and their order, for reading a step's answer (the step reader,
`services/step_reader.py`): Latin capitalised spans and Korean nouns by Kiwi's morphemes; the
name arguing a Korean clause's verb or written right after an English query word first; whether a
sentence refers back to the one before it.
"""

from __future__ import annotations

import re

from planrag.text.entities import HANGUL, find_mentions
from planrag.text.korean import get_kiwi

_BACK_KO = frozenset(("이", "그", "해당", "동", "위", "이런", "그런"))
_BACK_EN = frozenset(
    ("this", "these", "that", "those", "its", "it", "he", "she", "they", "his", "her", "their")
)
_NAME_TAGS = ("NNG", "NNP", "SL", "SN", "XSN")
_CODE = re.compile(r"[A-Za-z]{0,3}[0-9][A-Za-z0-9.-]*[.,]?")


def candidates(sentence: str) -> list[str]:
    """Names a sentence holds, best first: Latin capitalised spans; Korean words whose nouns
    Kiwi finds, particles cut at Kiwi's morpheme boundary ("박지은 CTO가" → 박지은,
    "한결대학교 컴퓨터공학과를" → 한결대학교, 컴퓨터공학과), with a following model code
    ("누리봇 S2"); proper nouns and predicate nominals ("대표는 이서준이다": Kiwi may not know
    the name) first, then compounds ("자율주행팀"); another lone common noun is no name."""
    if not HANGUL.search(sentence):  # a possessive is not part of the name ("Clement Attlee's")
        return [re.sub(r"['’]s$", "", m.name) for m in find_mentions(sentence)]
    proper: list[str] = []
    compound: list[str] = []
    tokens = get_kiwi().tokenize(sentence)
    words = [(m.start(), m.end()) for m in re.finditer(r"[^\s()\[\]{}<>「」『』\"“”]+", sentence)]
    for k, (start, end) in enumerate(words):
        inside = [t for t in tokens if start <= t.start < end]
        nouns = [t for t in inside if t.tag in _NAME_TAGS]
        if not nouns:
            continue
        stop = max(t.start + t.len for t in nouns)
        if any(t.tag in _NAME_TAGS for t in inside[1:]) or inside[0].tag in _NAME_TAGS:
            name = sentence[start:stop]
            if k + 1 < len(words) and _CODE.fullmatch(sentence[slice(*words[k + 1])]):
                name += " " + sentence[slice(*words[k + 1])].rstrip(".,")
            if name.replace(",", "").isdigit():
                continue
            predicate = any(t.tag == "VCP" for t in inside)  # "대표는 이서준이다"
            if predicate or any(t.tag in ("NNP", "SL") for t in nouns):
                proper.append(name)
            elif len(nouns) > 1 or len(inside) > len(nouns) and inside[0].tag not in _NAME_TAGS:
                compound.append(name)
    return list(dict.fromkeys([*proper, *compound]))


def clause_verb(query: str) -> str | None:
    """The verb of the relative clause a Korean query ends in ("…창업 전에 일한 회사" → 일,
    "…세운 회사" → 세우); None for English or a query without one."""
    if not HANGUL.search(query):
        return None
    tokens = get_kiwi().tokenize(query)
    for k in range(len(tokens) - 1, 0, -1):
        if tokens[k].tag != "ETM":
            continue
        before = tokens[k - 1]
        if before.tag in ("XSV", "XSA") and k >= 2 and tokens[k - 2].tag == "NNG":
            return str(tokens[k - 2].form)
        return str(before.form) if before.tag.startswith(("VV", "VA")) else None
    return None


def by_verb(names: list[str], sentence: str, verb: str) -> list[str]:
    """The names ordered by how closely they precede the verb in the sentence (a Korean
    argument comes before its verb: "누리테크를 창업하기 전 한빛로보틱스에서 … 일했다" →
    한빛로보틱스 first for "일한"); unchanged when the sentence lacks the verb."""
    if len(names) < 2:
        return names
    at = [
        t.start
        for t in get_kiwi().tokenize(sentence)
        if t.form == verb and t.tag.startswith(("VV", "VA", "NNG"))
    ]
    if not at:
        return names

    def gap(name: str) -> int:
        start = sentence.find(name)
        if start < 0:
            return 10**6
        gaps = [v - start - len(name) for v in at if v >= start + len(name)]
        return min(gaps) if gaps else 10**5

    return sorted(names, key=gap)


def ordered_names(names: list[str], sentence: str, verb: str | None, words: set[str]) -> list[str]:
    """ "…에서 일한 회사": the name arguing the clause's verb first; "… part of a series": the
    name right after a query word first ("… and part of the Time Quintet")."""
    if verb:
        return by_verb(names, sentence, verb)
    return by_anchor(names, sentence, words) if words else names


def plain_words(query: str) -> set[str]:
    """An English query's lower-case content words (not names: "part", "series", "led"), and
    for a role the verbs a sentence names its holder after ("the singer of …" → "recorded":
    "… written by Red Lane, and recorded by … John Conlee")."""
    words = {w for w in re.findall(r"\b[a-z]{3,}\b", query) if w not in _EN_STOP}
    return words | {v for w in words for v in _ROLE_VERBS.get(w, ())}


def introduced(name: str, sentence: str, head: str) -> bool:
    """English: the sentence credits `name` with the query's role by its passive verb ("a
    film directed by Ilse Brandt", "founded in 1994 by Cal Hooper" for "the founder of …")."""
    at = sentence.find(name)
    verbs = _ROLE_VERBS.get(head.casefold(), ())
    if at < 0 or not verbs or HANGUL.search(sentence):
        return False
    before = [w.casefold() for w in re.findall(r"[A-Za-z]+", sentence[:at])[-5:]]
    return any(w in verbs and "by" in before[k + 1 :] for k, w in enumerate(before))


# An agent noun and the passive verbs a sentence credits its holder with ("directed by X").
_ROLE_VERBS: dict[str, tuple[str, ...]] = {
    "singer": ("recorded", "sung", "performed"),
    "performer": ("performed", "recorded", "sung"),
    "writer": ("written", "wrote"),
    "author": ("written", "wrote"),
    "songwriter": ("written", "wrote"),
    "director": ("directed",),
    "producer": ("produced",),
    "composer": ("composed",),
    "founder": ("founded",),
    "designer": ("designed",),
    "architect": ("designed",),
    "developer": ("developed",),
    "publisher": ("published",),
    "creator": ("created",),
    "narrator": ("narrated",),
    "illustrator": ("illustrated",),
}


_EN_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "how",
        "was",
        "were",
        "are",
        "is",
        "has",
        "have",
        "had",
        "that",
        "this",
        "from",
        "into",
        "his",
        "her",
        "its",
        "their",
        "been",
        "did",
        "does",
    ]
)


def by_anchor(names: list[str], sentence: str, words: set[str]) -> list[str]:
    """The names ordered by how closely a word of the query precedes them in the sentence
    ("It is a companion book to "A Wrinkle in Time", and part of the Time Quintet" → Time
    Quintet first for "… is part of a series"); unchanged when no query word is there."""
    if len(names) < 2:
        return names
    ends = [m.end() for m in re.finditer(r"\b[a-z]{3,}\b", sentence) if m.group() in words]
    if not ends:
        return names

    def gap(name: str) -> int:
        start = sentence.find(name)
        gaps = [start - e for e in ends if 0 <= e <= start]
        return min(gaps) if start >= 0 and gaps else 10**5

    return sorted(names, key=gap)


def refers_back(sentence: str) -> bool:
    """The sentence opens with a demonstrative or a pronoun ("이 투자는", "Its chief …"): its
    subject is named in the sentence before."""
    words = sentence.split()
    if not words:
        return False
    if not HANGUL.search(sentence):
        return words[0].casefold() in _BACK_EN
    first = get_kiwi().tokenize(sentence)[:1]
    return bool(first) and first[0].tag == "MM" and first[0].form in _BACK_KO
