"""English chain questions → the parts a multi-step plan searches in order (`chains.py` has
the Korean rules and the plan): "the X of the Y of Z", a relative clause on a class or role noun
("the state where X died", "the coach who led the 2007 … team"), a question word after a class
noun with a named prefix ("A Wind in the Door is part of a series written by who?"), and one
"of" of a name when the rest asks more ("When was the singer of Miss Emily's Picture born?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planrag.text.entities import find_mentions

EN_CLASSES = [
    "state", "country", "city", "town", "county", "university", "college", "school", "company",
    "band", "group", "team", "film", "movie", "album", "song", "novel", "book", "magazine",
    "newspaper", "man", "woman", "person", "actor", "actress", "singer", "director", "author",
    "player", "writer", "artist", "musician", "politician", "president", "river", "island",
    "league", "airport", "station", "network", "channel", "show", "series",
    "coach", "wrestler", "novelist", "poet", "composer", "producer", "footballer", "boxer",
    "scientist", "journalist", "comedian", "character", "restaurant", "route", "highway",
    "building", "stadium", "venue", "festival", "organization", "label", "brand", "sitcom",
    "tradition", "game", "war", "battle", "captain", "captian", "leader", "founder", "team",
    "conservatory", "academy", "institute", "museum", "hospital", "church", "village",
    "province", "region", "district", "lake", "mountain",
]  # fmt: skip
# A role noun Kiwi cannot help with in English: "-ist", "-ian", "-er"/"-or" of six letters or
# more ("anthropologist", "politician", "governor") heads a relative clause too.
_EN_ROLE = r"[a-z]{3,}(?:ist|ian)|[a-z]{4,}(?:er|or)"
_WH = r"(?:who|whom|whose|what|which|when|where|how)"
# A verb the question ends with after a name ("… of The Salt Road die?", "… born in 1950 or
# 1955?"): it stays with the question, not with the name searched first.
_EN_TRAILING_VERB = (
    r"born|died|die|lived?|live[sd]|located|based|founded|formed|released|published|buried|"
    r"play(?:s|ed)?|star(?:s|red)?|work(?:s|ed)?|stud(?:y|ied)|grow|grew|come|came"
)
_EN_OF_OF = re.compile(
    r"\bthe\s+[\w'-]+(?:\s+[\w'-]+){0,2}\s+of\s+(the\s+[\w'-]+(?:\s+[\w'-]+){0,2}\s+of\s+"
    r"[A-Z][^?,;]*?)(?=\s+(?:" + _EN_TRAILING_VERB + r")\b[^?,;]*\??$|[?,;]|$)",
)
_EN_HEAD = "|".join(EN_CLASSES) + "|" + _EN_ROLE
_EN_RELATIVE = re.compile(
    r"\b(?:the|a|an)\s+(?:[\w'-]+\s+){0,2}?(?P<head>"
    + _EN_HEAD
    + r")\s+(?P<rel>who|whom|which|that|where|whose|(?:in|from|by|for|at) which|with the)"
    + r"\s+(?P<body>[^?,;]+)",
    re.IGNORECASE,
)
_PARTICIPLE = re.compile(
    r"\s+(\w+(?:ed|en|ded|ned|ought)|born|known|made|built|held|led|won|written)$"
)
# "X is part of a series written by who?", "… is by a novelist of what nationality?", "…
# starred in a television sitcom with what other actor?": a named prefix, a class noun, and
# the question word after it — the class noun's thing is searched first.
_EN_WH_TAIL = re.compile(
    r"\b(?:the|a|an)\s+(?:[\w'-]+\s+){0,3}?(?P<head>"
    + _EN_HEAD
    + r")(?P<tail>\s+(?:(?:\w+ed|written|born|known|made)\s+)?"
    + r"(?:by|of|with|that|which|in|from)\s+(?:[\w'-]+\s+){0,6}?"
    + _WH
    + r"\b[^?]*)\??$",
    re.IGNORECASE,
)
# "When was the singer of Miss Emily's Picture born?": one "of" and a name, the rest asks more.
_EN_OF = re.compile(
    r"\bthe\s+(?P<head>" + _EN_HEAD + r")\s+of\s+(?P<name>[A-Z\"'][^?,;]*?)(?=\s+(?:"
    r"born|died|in|from|have|has|had|play|do|does|did|live|located|founded|released)\b|\?|$)",
)
_EN_FILLER = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "how",
        "is",
        "was",
        "are",
        "were",
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "be",
    ]
)


ANSWER = "{answer}"  # where an earlier part's answer goes


@dataclass(frozen=True)
class Split:
    first: str  # the part searched first
    rest: str  # the rest, with {answer} where the first part's answer goes


def english_chain_shaped(question: str) -> bool:
    """Loosely shaped like a chain: a relative clause on a class noun, or "the X of the Y of"."""
    return bool(_EN_RELATIVE.search(question) or _EN_OF_OF.search(question))


def split_english(text: str) -> Split | None:
    match = _EN_OF_OF.search(text)
    if match and _en_named(match.group(1)):
        start, end = match.span(1)
        return Split(first=match.group(1), rest=text[:start] + ANSWER + text[end:])
    return _split_en_relative(text) or _split_en_wh_tail(text) or _split_en_of(text)


def _en_named(text: str) -> bool:
    return ANSWER in text or bool(find_mentions(text))


def _split_en_relative(text: str) -> Split | None:
    """ "… the state where X died", "the coach who led the 2007 … team": a relative clause on
    a class or role noun, naming something, inside a question."""
    for match in _EN_RELATIVE.finditer(text):
        body = match.group("body")
        if match.start() == 0 or not _en_named(body) or re.search(rf"\b{_WH}\b", body, re.I):
            continue  # a question word inside the clause: the wh-tail shape
        start, end = match.span()
        prefix = text[:start].strip()
        if not re.search(r"\w", prefix):
            continue
        tail = ""
        closes = end >= len(text.rstrip("?"))  # the clause runs to the question's end
        participle = _PARTICIPLE.search(match.group("body")) if closes else None
        if (
            participle
            and prefix.split()[-1].lower() in ("was", "is", "were", "are")
            and not _subject_verb(match.group("body"), participle)
        ):
            tail = " " + participle.group(1)  # "…the university where X taught founded?"
        first = text[start:end].strip()
        if tail:
            first = first[: -len(tail)].strip()
        stranded = re.search(r"\s+(in|on|at|for|from|to|with)$", first)
        if stranded:  # "…was the wrestler with the real name of X in?": "in" stays behind
            first, tail = first[: stranded.start()], f" {stranded.group(1)}{tail}"
        rest = f"{prefix} {ANSWER}{tail}{text[end:]}"
        if _asks_more_en(rest):
            return Split(first=first, rest=rest)
    return None


# Participles only a passive takes ("Where was the singer who recorded Hello Love born?"):
# after a name they are still the question's verb, not the clause's.
_BE_PARTICIPLES = (
    r"born|located|based|founded|formed|released|published|buried|built|established|"
    r"situated|headquartered|raised|educated|named|set|made|written|held|known|created"
)
_PASSIVE_ONLY = re.compile(rf"^(?:{_BE_PARTICIPLES})$")


def _subject_verb(body: str, participle: re.Match[str]) -> bool:
    """ "…where June Alcott studied": an -ed word right after a name is the clause's own
    verb (its subject the name), unless only a passive takes it ("…Hello Love born")."""
    before = body[: participle.start()].split()
    return (
        bool(before) and before[-1][:1].isupper() and not _PASSIVE_ONLY.match(participle.group(1))
    )


def _asks_more_en(rest: str) -> bool:
    """The rest asks for more than the name ("When was {answer} born?", not "What is
    {answer}?")."""
    words = re.findall(r"[A-Za-z]+", rest.replace(ANSWER, ""))
    return any(w.lower() not in _EN_FILLER for w in words)


def _split_en_wh_tail(text: str) -> Split | None:
    """ "A Wind in the Door is part of a series written by who?" → "A Wind in the Door is part
    of a series", then "{answer} written by who?"."""
    match = _EN_WH_TAIL.search(text)
    if match is None:
        return None
    first = text[: match.end("head")].strip()
    prefix = text[: match.start()]
    if not _en_named(prefix) or re.match(_WH, first, re.IGNORECASE):
        return None  # "Which film of what …": the question word opens it, no named prefix
    if re.search(r"\b(?:is|was|are|were)\s*$", prefix):
        return None  # "Kete Krachi is a town in what region?": the named thing is the town
    rest = f"{ANSWER} {match.group('head')}{match.group('tail').rstrip('?')}?"
    return Split(first=first, rest=rest)


def _split_en_of(text: str) -> Split | None:
    """ "When was the singer of Miss Emily's Picture born?": the role of a named thing, when
    the rest asks more than its name ("What is the capital of France?" stays one step)."""
    match = _EN_OF.search(text)
    if match is None or not _en_named(match.group("name")):
        return None
    start, end = match.span()
    rest = f"{text[:start].strip()} {ANSWER} {text[end:].strip()}".strip()
    if not _asks_more_en(rest):
        return None
    return Split(first=text[start:end].strip(), rest=rest)
