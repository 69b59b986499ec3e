"""Alternative questions: a choice between two answer values about one subject.

"Is City University public or private?", "City University: public or private?", "Was the
Woolworth Building built in 1913 or in 1930?", "Is Hanbit Robotics based in Seoul or in
Busan?", "한빛로보틱스는 상장사인가요 비상장사인가요?", "누리봇 S1은 이천 공장에서 생산되나요,
아니면 평택 공장에서 생산되나요?", "…는 상장사 또는 비상장사인가요?" ask which of two
values holds of the one subject the rest of the question describes. They are no comparison of
two subjects ("Which is older, Greyia or Calibanus?": the alternatives are named things, each
with its own passage) and no yes/no question (the answer is a value, never "Yes").

English: the question's last "or" joins two values that close the question (at most two words
may follow, "a public or a private university?"): lower-case words or numbers, or — in a
question opening with an auxiliary — names written after the subject ("Is Hanbit Robotics
based in Seoul or in Busan?"), not right after the auxiliary ("Is Greyia or Calibanus the older
genus?" is a comparison). A "which/who …" question comparing something ("older", "more") keeps
its lower-case alternatives as subjects. Korean: two interrogative clauses in a row ("…인가요
…인가요?", with 아니면/또는/혹은 between), or 또는/혹은 joining two nouns before the one ending;
the values are what differs between the clauses; a question word (누구, 어디 …) makes it none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planrag.text.korean import get_kiwi

EN_AUXILIARY = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b", re.I
)
_EN_CHOICE = re.compile(r"^\s*(?:which|who|whose|what)\b", re.I)
_EN_COMPARING = re.compile(
    r"\b(?:first|earlier|earliest|older|oldest|later|latest|younger|youngest|newer|more|most|"
    r"less|least|fewer|fewest|\w+er than|larger|largest|bigger|biggest|higher|highest|longer|"
    r"longest|taller|tallest|smaller|smallest|lower|lowest|shorter|shortest|greater|wider)\b",
    re.I,
)
_ARTICLES = frozenset(("a", "an", "the"))
_REPEATED = frozenset(("a", "an", "the", "in", "at", "on", "by", "from", "to", "for", "of", "as"))
_TAIL_WORDS = 2  # words a closing value may be followed by: "a public or a private university"
_NAME_WORDS = 4  # words of a capitalised value: "Los Angeles", "New York City"
_KO_ASKING = ("누구", "무엇", "뭐", "어디", "언제", "어느", "어떤", "어떻", "몇", "얼마", "왜",
              "무슨")  # fmt: skip
_KO_OR = ("아니면", "또는", "혹은", "아님")
# Interrogative endings; Kiwi tags a clause's ending EC when another clause follows it.
_KO_ASKING_ENDINGS = ("가요", "나요", "까", "니", "냐", "요", "가", "나")
_EN_ASKING = re.compile(r"^\s*(?:what|which|who|whom|whose|where|when|how|why)\b", re.I)


@dataclass(frozen=True)
class Alternative:
    """A question choosing between two values of one subject."""

    values: tuple[str, str]
    rest: str  # the question without its values: what the chosen value is said of


def alternative(question: str) -> Alternative | None:
    """The question's two answer values and the rest of it; None for any other question."""
    if any("가" <= c <= "힣" for c in question):
        return _korean(question)
    return _english(question)


# ------------------------------------------------------------------ English


def _english(question: str) -> Alternative | None:
    if not question.rstrip().endswith("?"):
        return None  # a statement ("… through his home or office.") chooses nothing
    words = question.strip().rstrip("?").strip().split()
    ors = [i for i, w in enumerate(words) if w.casefold() == "or"]
    if not ors or ors[-1] == 0:
        return None
    at = ors[-1]
    left = _value_before(words, at)
    right = _value_after(words, at)
    if left is None or right is None:
        return None
    (start, first), (end, second) = left, right
    if len(words) - end > _TAIL_WORDS or first.casefold() == second.casefold():
        return None
    if _EN_ASKING.search(question) and (start == 0 or not words[start - 1].endswith((",", ":"))):
        return None  # "What is the colour of apples or pears?": the values set off, or none
    lower = not _capitalised(first) and not _capitalised(second)
    if lower and _EN_CHOICE.search(question) and _EN_COMPARING.search(question):
        return None  # "Which is older, the tree or the bush?": two subjects compared
    if not lower and not _named_subject_first(words[:start]):
        return None
    rest = " ".join([*words[:start], *words[end:]]).rstrip(" ,:;")
    return Alternative((first, second), rest) if rest else None


def _capitalised(value: str) -> bool:
    return value[:1].isupper()


def _strip(word: str) -> str:
    return word.strip(",;:\"'“”()")


def _value_before(words: list[str], at: int) -> tuple[int, str] | None:
    """The value ending right before "or": a capitalised run, else one word."""
    end = at
    if end == 0 or not _strip(words[end - 1]) or words[end - 1].endswith((",", ";")):
        return None  # "Greyia, or …" lists; nothing before "or"
    start = end - 1
    if _capitalised(_strip(words[start])):
        while (
            start > 0
            and end - start < _NAME_WORDS
            and _capitalised(_strip(words[start - 1]))
            and not words[start - 1].endswith((",", ":", ";"))
        ):
            start -= 1
    value = " ".join(_strip(w) for w in words[start:end])
    if start > 0 and words[start - 1].casefold() in _ARTICLES:
        start -= 1  # "a public or a private university": the article goes with the value
    return (start, value) if value else None


def _value_after(words: list[str], at: int) -> tuple[int, str] | None:
    """The value starting after "or" (a repeated article or preposition skipped)."""
    start = at + 1
    while start < len(words) and words[start].casefold() in _REPEATED:
        start += 1
    if start >= len(words) or not _strip(words[start]):
        return None
    end = start + 1
    if _capitalised(_strip(words[start])):
        while end < len(words) and end - start < _NAME_WORDS and _capitalised(_strip(words[end])):
            end += 1
    value = " ".join(_strip(w) for w in words[start:end])
    return (end, value) if value else None


def _named_subject_first(words: list[str]) -> bool:
    """ "Is Hanbit Robotics based in": an auxiliary, a capitalised subject, then at least one
    lower-case word before the values (not "Is Greyia" right before "or Calibanus")."""
    if not words or not EN_AUXILIARY.match(words[0]):
        return False
    body = [_strip(w) for w in words[1:]]
    first_name = next((i for i, w in enumerate(body) if _capitalised(w)), None)
    if first_name is None:
        return False
    return any(w and not _capitalised(w) for w in body[first_name:])


# ------------------------------------------------------------------ Korean


def _korean(question: str) -> Alternative | None:
    tokens = get_kiwi().tokenize(question)
    if any(t.form in _KO_ASKING for t in tokens) or not question.rstrip().endswith("?"):
        return None
    asking = [t for t in tokens if t.tag in ("EF", "EC") and t.form.endswith(_KO_ASKING_ENDINGS)]
    if len(asking) >= 2:
        cut = asking[0].start + asking[0].len
        after = next((t for t in tokens if t.start >= cut), None)
        first = asking[0].form
        if after is not None and after.start == cut and after.form == "요":  # "…었나" + "요"
            cut += after.len
            first += "요"
        if first != asking[-1].form:  # "…여행하거나 … 할 수 있습니까?": one question
            return None
        return _korean_clauses(question[:cut], question[cut:])
    joint = next(
        (t for t in tokens if t.form in ("또는", "혹은") and t.tag in ("MAJ", "MAG")), None
    )
    if joint is not None and len(asking) == 1:
        before = question[: joint.start].split()
        after = question[joint.start + joint.len :].split()
        # the second value carries the ending ("… 또는 비상장사인가요?"); "냉장 또는 냉동 식품을
        # … 있습니까?" joins two words inside a yes/no question
        if before and len(after) == 1:
            first, second = _korean_value(before[-1]), _korean_value(after[0])
            rest = " ".join([*before[:-1], *after[1:]]).rstrip(" ?")
            if first and second and first != second:
                return Alternative((first, second), rest)
    return None


def _korean_clauses(first: str, second: str) -> Alternative | None:
    """ "한빛로보틱스는 상장사인가요" + " 비상장사인가요?": the words that differ, read as nouns."""
    one = first.replace(",", " ").split()
    two = [w for w in second.replace(",", " ").replace("?", " ").split() if w not in _KO_OR]
    one[-1:] = [one[-1].rstrip("?")] if one else []
    shared = 0
    while shared < min(len(one), len(two)) - 1 and one[-1 - shared] == two[-1 - shared]:
        shared += 1
    two_value = two[: len(two) - shared]
    if not two_value or len(two_value) >= len(one) - shared:
        return None  # the second clause is no shorter variant of the first: two questions
    split = len(one) - shared - len(two_value)
    value_one = " ".join(_korean_value(w) for w in one[split : len(one) - shared])
    value_two = " ".join(_korean_value(w) for w in two_value)
    if not value_one.strip() or not value_two.strip() or value_one == value_two:
        return None
    rest = " ".join([*one[:split], *one[len(one) - shared :]])
    return Alternative((value_one.strip(), value_two.strip()), rest)


def _korean_value(word: str) -> str:
    """A word's leading nouns (and numbers, foreign letters): "상장사인가요" → 상장사."""
    tokens = get_kiwi().tokenize(word)
    end = 0
    for token in tokens:
        if not token.tag.startswith(("NN", "SN", "SL", "SH", "XPN", "XSN", "NR")):
            break
        end = token.start + token.len
    return word[:end]
