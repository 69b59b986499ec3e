"""Questions whose answer is a choice or a verdict, read from their shape.

- `comparison(question)`: "Which genus has more species, Greyia or Calibanus?", "Between A and B,
  which …", "Who was born first, A or B?", "A와 B 중 어느 회사가 먼저 설립되었나?" → the two
  named alternatives, and what is compared: a date (first, older, earlier, 먼저, 오래된 …) or a
  number (more, larger, 더 많은, 더 큰 …), with the direction that wins; otherwise neither (the
  alternative the passages tie to the question's other words wins).
- `is_bridge(question)`: the question describes what it asks about through another name ("the
  university where X was a professor", "X's brother"; English only).
- Neither is an alternative question ("Is X public or private?", "…인가요 …인가요?",
  `text/alternatives.py`): a choice between two values of one subject.
- `yes_no(question)`: "Are A and B both …?", "Were A and B from the same country?", "누리봇 S1과
  S2 모두 이천 공장에서 생산되나요?", "…는 500kg인가요?" → the named subjects (one or two),
  whether a shared attribute is asked ("same"/"같은"; "different"/"서로 다른" asks the
  reverse), and a value the question states.

Korean questions are read with Kiwi's morphemes (the particle joining the alternatives, 중,
the sentence's final ending); English ones by their words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from planrag.text.alternatives import EN_AUXILIARY as _EN_AUXILIARY
from planrag.text.alternatives import alternative
from planrag.text.korean import get_kiwi

Compared = Literal["date", "number"]


@dataclass(frozen=True)
class Comparison:
    """A question choosing between named alternatives."""

    alternatives: tuple[str, str]
    compared: Compared | None = None  # what each alternative's value is read as
    larger_wins: bool = True  # "more", "later": the larger value; "first", "older": the smaller


@dataclass(frozen=True)
class Shared:
    """A question asking what two named subjects have in common."""

    subjects: tuple[str, str]
    differ: bool = False  # "차이점": where they differ, not what they share


@dataclass(frozen=True)
class YesNo:
    """A question answered yes or no about one or two named subjects."""

    subjects: tuple[str, ...]
    same: bool = False  # "from the same country": the subjects share the asked attribute
    differ: bool = False  # "in different countries": the verdict is that they do not share it


# ------------------------------------------------------------------ comparison


# English: what is compared, and which way wins.
_EN_SMALLER_DATE = re.compile(
    r"\b(?:first|earlier|earliest|older|oldest|before|sooner|preceded)\b", re.I
)
_EN_LARGER_DATE = re.compile(
    r"\b(?:later|latest|younger|youngest|more recent(?:ly)?|newer)\b", re.I
)
_EN_LARGER_NUMBER = re.compile(
    r"\b(?:more|most|larger|largest|bigger|biggest|higher|highest|taller|tallest|longer|"
    r"longest|greater|heavier|wider|deeper|faster)\b",
    re.I,
)
_EN_SMALLER_NUMBER = re.compile(
    r"\b(?:fewer|fewest|less|least|smaller|smallest|lower|lowest|shorter|shortest|lighter)\b", re.I
)
_EN_CHOICE = re.compile(r"^\s*(?:which|who|whose|what)\b", re.I)
_EN_BETWEEN = re.compile(r"^\s*between\s+(.+?)\s+and\s+(.+?),\s*(which|who|what)\b", re.I)
_EN_TAIL = re.compile(r",\s*((?:the\s+)?[^,?]+?)\s+or\s+((?:the\s+)?[^,?]+?)\s*\?\s*$", re.I)
# Korean: what is compared, by the words after 더 / the question's predicate.
_KO_SMALLER_DATE = re.compile(r"먼저|오래된|일찍|앞선|이전에|연장자|나이가 많")
_KO_LARGER_DATE = re.compile(r"나중에|늦게|최근에|더 늦|젊은|나이가 적")
_KO_LARGER_NUMBER = re.compile(r"더\s*(?:많|크|큰|높|길|긴|무거|넓|빠르|빠른)|가장\s*(?:많|큰|높)")
_KO_SMALLER_NUMBER = re.compile(r"더\s*(?:적|작|낮|짧|가벼|좁|느리|싼|저렴)")
_KO_JOINING = ("와", "과", "랑", "이랑", "하고")


def comparison(question: str) -> Comparison | None:
    """The question's alternatives and what is compared; None for any other question (an
    alternative question, "Is X public or private?", chooses a value, not a subject)."""
    if alternative(question) is not None:
        return None
    pair = _english_pair(question) or _korean_pair(question)
    if pair is None:
        return None
    compared, larger = _compared(question)
    return Comparison(pair, compared, larger)


def _english_pair(question: str) -> tuple[str, str] | None:
    between = _EN_BETWEEN.search(question)
    if between:
        return _clean(between.group(1)), _clean(between.group(2))
    tail = _EN_TAIL.search(question)
    if tail and (_EN_CHOICE.search(question) or _EN_AUXILIARY.search(question)):
        first, second = _clean(tail.group(1)), _clean(tail.group(2))
        if first and second:
            return first, second
    return _unmarked_pair(question)


def _unmarked_pair(question: str) -> tuple[str, str] | None:
    """ "Which was built first Woolworth Building or 1 New York Plaza?": no comma before the
    alternatives, so they are the name run ending at the last "or" and what follows it, after
    a word saying what is compared."""
    if not _EN_CHOICE.search(question) or "," in question:
        return None
    joint = question.rfind(" or ")
    head = question[:joint]
    compared = [
        m.end()
        for pattern in (_EN_SMALLER_DATE, _EN_LARGER_DATE, _EN_LARGER_NUMBER, _EN_SMALLER_NUMBER)
        for m in pattern.finditer(head)
    ]
    if joint < 0 or not compared:
        return None
    first = _last_name_run(head[max(compared) :])
    second = _clean(question[joint + 4 :].strip().rstrip("?").strip())
    if not first or not second or not (second[:1].isupper() or second[:1].isdigit()):
        return None
    return _clean(first), second


def _korean_pair(question: str) -> tuple[str, str] | None:
    """ "A와 B 중 …": the morphemes before the joining particle, and between it and 중."""
    tokens = get_kiwi().tokenize(question)
    for i, token in enumerate(tokens):
        if token.form not in ("중", "가운데") or i < 3:
            continue
        join = next(
            (
                j
                for j in range(i - 2, 0, -1)
                if tokens[j].tag == "JC"
                or (tokens[j].form in _KO_JOINING and tokens[j].tag[0] == "J")
            ),
            None,
        )
        if join is None:
            continue
        start = _phrase_start(question, tokens[join].start)
        first = question[start : tokens[join].start].strip()
        second = question[tokens[join].start + tokens[join].len : token.start].strip()
        second = re.sub(r"[\s,]*(?:에서|의)?$", "", second)
        if first and second:
            return first, second
    return None


def _phrase_start(question: str, end: int) -> int:
    """Where the noun phrase ending at `end` starts: after the last comma or topic particle."""
    head = question[:end]
    cut = max(head.rfind(","), head.rfind("?"))
    return cut + 1


def _compared(question: str) -> tuple[Compared | None, bool]:
    if _EN_SMALLER_DATE.search(question) or _KO_SMALLER_DATE.search(question):
        return "date", False
    if _EN_LARGER_DATE.search(question) or _KO_LARGER_DATE.search(question):
        return "date", True
    if _EN_SMALLER_NUMBER.search(question) or _KO_SMALLER_NUMBER.search(question):
        return "number", False
    if _EN_LARGER_NUMBER.search(question) or _KO_LARGER_NUMBER.search(question):
        return "number", True
    return None, True


def _clean(name: str) -> str:
    name = re.sub(
        r"^(?:the\s+)?(?:films?|movies?|songs?|bands?|albums?)\s+", "", name.strip(), flags=re.I
    )
    return name.strip(" \"'“”")


# ------------------------------------------------------------------ yes / no


_EN_SAME = re.compile(r"\b(?:same|both from|in common|different)\b", re.I)
_EN_DIFFER = re.compile(r"\bdifferent\b", re.I)
_KO_SAME = re.compile(r"같은|동일한|같나|같습니까|같아|서로 다른")
_KO_DIFFER = re.compile(r"서로 다른")
# Question words: a question holding one asks for something, not a verdict.
_KO_ASKING = (
    "누구",
    "무엇",
    "뭐",
    "어디",
    "언제",
    "어느",
    "어떤",
    "어떻",
    "몇",
    "얼마",
    "왜",
    "무슨",
)
_CONNECTOR = {"of", "the", "v.", "vs.", "de", "von", "van", "and", "from", "for", "in", "la", "le"}


def yes_no(question: str) -> YesNo | None:
    """The verdict a question asks for, with its subjects; None for any other question (an
    alternative question, "상장사인가요 비상장사인가요?", is answered by a value, not yes/no)."""
    if comparison(question) is not None or alternative(question) is not None:
        return None
    if _EN_AUXILIARY.search(question):
        subjects = _english_subjects(question)
        same, differ = bool(_EN_SAME.search(question)), bool(_EN_DIFFER.search(question))
        return YesNo(subjects, same, differ) if subjects else None
    if _korean_verdict(question):
        subjects = _korean_subjects(question)
        same, differ = bool(_KO_SAME.search(question)), bool(_KO_DIFFER.search(question))
        return YesNo(subjects, same, differ) if subjects else None
    return None


def _english_subjects(question: str) -> tuple[str, ...]:
    """ "Are A and B both …" / "Do both A and B …": the capitalised names after the verb."""
    rest = _EN_AUXILIARY.sub("", question, count=1)
    rest = re.sub(r"^\s*both\b", "", rest, flags=re.I)
    names = []
    for part in re.split(r"\s+and\s+", rest, maxsplit=1):
        name = _name_run(part)
        if name:
            names.append(name)
    return tuple(names)


def _name_run(text: str) -> str:
    """The first run of capitalised words (with "of", "the", "v." … between them)."""
    words = text.split()
    start = next((i for i, w in enumerate(words) if w[:1].isupper()), None)
    if start is None:
        return ""
    end = start
    for i in range(start, len(words)):
        word = words[i]
        if word[:1].isupper() or word[:1].isdigit() and i > start:
            end = i + 1
        elif word.casefold() in _CONNECTOR and _name_follows(words, i + 1):
            continue
        else:
            break
    return " ".join(words[start:end]).strip(" ,?\"'")


def _name_follows(words: list[str], i: int) -> bool:
    """Whether a capitalised word follows at `i`, past at most one more connector ("Miracle
    of the White Stallions")."""
    if i < len(words) and words[i].casefold() in _CONNECTOR:
        i += 1
    return i < len(words) and words[i][:1].isupper()


def _korean_verdict(question: str) -> bool:
    """A Korean question ending in an interrogative ending, without a question word."""
    tokens = get_kiwi().tokenize(question.strip())
    if not tokens or not any("가" <= c <= "힣" for c in question):
        return False
    if any(t.form in _KO_ASKING for t in tokens):
        return False
    endings = [t for t in tokens if t.tag == "EF"]
    return bool(endings) and question.rstrip().endswith("?")


def _korean_subjects(question: str) -> tuple[str, ...]:
    """ "A와 B 모두/둘 다 …" → (A, B); otherwise the phrase before the topic particle."""
    tokens = get_kiwi().tokenize(question)
    for i, token in enumerate(tokens):
        if token.form in ("모두", "둘") and i >= 3:
            join = next((j for j in range(i - 2, 0, -1) if tokens[j].tag == "JC"), None)
            if join is not None:
                first = question[: tokens[join].start].strip()
                second = question[tokens[join].start + tokens[join].len : tokens[i - 1].start]
                return first, second.strip()
    topic = next(
        (t for t in tokens if t.tag in ("JX", "JKS") and t.form in ("은", "는", "이", "가")), None
    )
    if topic is None:
        return ()
    join = next((t for t in tokens if t.tag == "JC" and t.start < topic.start), None)
    if join is not None:  # "A와 B는 같은 …"
        second = question[join.start + join.len : topic.start].strip()
        return question[: join.start].strip(), second
    return (question[: topic.start].strip(),)


# ------------------------------------------------------------------ in common


_EN_SHARED = re.compile(
    r"\bin common\b|\bboth\b|\b(?:what|which) (?:kinds?|types?|sorts?) of \w+ (?:are|were)\b", re.I
)
_EN_ASKING = re.compile(r"\b(?:what|which|who)\b", re.I)


def shared(question: str) -> Shared | None:
    """The two subjects of "What do A and B have in common?", "A and B are both what …?",
    "What kind of musicians are A and B?"; None for any other question (a yes/no "Are A and B
    both …?" too)."""
    if comparison(question) is not None or _EN_AUXILIARY.search(question):
        return None
    if any("가" <= c <= "힣" for c in question):
        return _korean_shared(question)
    if not (_EN_SHARED.search(question) and _EN_ASKING.search(question)):
        return None
    for joint in re.finditer(r"\s+and\s+", question):
        first = _last_name_run(question[: joint.start()])
        second = _name_run(question[joint.end() :])
        if first and second and first.casefold() != second.casefold():
            return Shared((first, second))
    return None


# "공통점", "차이점"; "같은 점", "다른 점", "어떤 점이 같나": what is asked of the pair.
_KO_SHARED_NOUNS = {"공통점": False, "공통": False, "차이점": True, "차이": True}
_KO_POINT_WORDS = {"같": False, "비슷하": False, "닮": False, "다르": True, "다른": True}


def _korean_shared(question: str) -> Shared | None:
    """ "A와 B의 공통점은?", "A와 B는 어떤 점이 같나?", "A와 B의 차이점은?" → (A, B)."""
    tokens = get_kiwi().tokenize(question)
    differ = None
    at = 0
    for i, token in enumerate(tokens):
        if token.tag.startswith("NN") and token.form in _KO_SHARED_NOUNS:
            differ, at = _KO_SHARED_NOUNS[token.form], i
            break
        if token.form == "점" and token.tag == "NNG":
            near = [t.form for t in tokens[max(i - 2, 0) : i + 3]]
            word = next((w for w in near if w in _KO_POINT_WORDS), None)
            if word is not None:
                differ, at = _KO_POINT_WORDS[word], i
                break
    if differ is None:
        return None
    join = next((t for t in tokens[:at] if t.tag == "JC"), None)
    if join is None:
        return None
    end = next(
        (t for t in tokens[:at] if t.start > join.start and t.tag in ("JKG", "JX", "JKS")), None
    )
    first = question[_phrase_start(question, join.start) : join.start].strip()
    second = question[join.start + join.len : end.start if end else tokens[at].start].strip()
    return Shared((first, second), differ) if first and second else None


def _last_name_run(text: str) -> str:
    """The run of capitalised words ending the text ("… both Hawker Hurricane")."""
    words = text.split()
    start = len(words)
    while start > 0:
        word = words[start - 1]
        if (
            word[:1].isupper()
            or (word[:1].isdigit() and start < len(words))
            or word.casefold() in _CONNECTOR
            and start - 2 >= 0
            and words[start - 2][:1].isupper()
        ):
            start -= 1
        else:
            break
    while start < len(words) and words[start].casefold() in _CONNECTOR:
        start += 1
    name = " ".join(words[start:]).strip(" ,?\"'")
    return "" if name.casefold() in ("what", "which", "who") else name


# ------------------------------------------------------------------ bridge


_EN_BRIDGE = re.compile(
    r"\b(?:the|a|an|this|that) (?:[\w-]+ ){0,3}?[\w-]+,? (?:where|that|which|who|whom|whose|"
    r"in which|of which|at which|for which)\b|\w's (?!(?:been|a|an|the)\b)[a-z]+",
    re.I,
)


def is_bridge(question: str) -> bool:
    """Whether an English question asks about something it only describes through another
    named thing — "the university where Tokarev was a professor", "Cale Gundy's brother": the
    answer is one hop from the name. (Korean relative clauses, "…를 이끄는 대표이사", are
    mostly no hop at all; Korean chains are the planner's steps.)"""
    return not any("가" <= c <= "힣" for c in question) and bool(_EN_BRIDGE.search(question))
