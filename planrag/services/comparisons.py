"""Answers that choose or judge: comparison questions and yes/no questions, read extractively.

A comparison ("Which genus has more species, Greyia or Calibanus?", "한빛로보틱스와 푸른벤처스
중 어느 회사가 먼저 설립되었나?", `text/question_shapes.py`) is read per alternative: the
passages about it (titled by it, else naming it), the reader's best sentence for the question
without the other alternative, and from that sentence the compared value — a date or a number
(with its unit) — when the question compares one. The answer leads with the winning
alternative's name, then both sentences, each cited. Without a compared value the alternative
whose sentence holds more of the question's other words wins; a tie, or a value missing on
either side, gives no choice (the ordinary answer stands).

A yes/no question about two subjects ("Are A and B both …?") is read the same way per subject:
"Yes" when each subject's sentence holds the asked words (a sentence lacking them is no evidence
for "No": then the ordinary answer); "from the same country" compares the subjects'
nationalities or places, "No" when they differ. A question stating a value ("누리봇
S2의 최대 적재 중량은 500kg인가요?") is answered "예" when the best sentence holds that value,
"아니요" when it holds another value of the same unit. Every verdict is followed by its evidence,
cited; without evidence for every subject there is no verdict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from planrag.services.answers import Passage, is_korean
from planrag.services.commonalities import read_commonality
from planrag.services.passage_text import body_sentences
from planrag.services.reader import Reader
from planrag.services.reader_signals import sentence_key
from planrag.services.readings import Reading, ReadSentence
from planrag.text.answer_types import AnswerType, typed_spans
from planrag.text.entities import COMMON_CAPITALISED, find_mentions
from planrag.text.question_shapes import Comparison, Shared, YesNo, comparison, shared, yes_no

DEFINING = 3  # a subject's opening sentences, where what it is is said
HELD_SHARE = 2 / 3  # of the asked words a subject's sentence must hold for a "yes"
STATED_AT_END = 12  # a stated value ends the question: "…은 500kg인가요?", "… 9월에 출시되었나요?"
_NOT_NATION_TEXT = """january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday new old inc ltd llc corp co
    latin christian catholic protestant jewish muslim islamic buddhist hindu orthodox"""
_NOT_NATIONS = frozenset(_NOT_NATION_TEXT.split())
_SAME_NOUN = re.compile(
    r"(?:same|different|같은|동일한|서로 다른)\s+([\w가-힣]+?)(?:를|을|에서|에|이|가|인|\b)"
)
# "Were A and B both from Germany?": the place both are said to be from.
_FROM_PLACE = re.compile(r"\bboth from (?:the )?([A-Z][\w-]+(?: [A-Z][\w-]+)*)")
_NATION_NOUNS = ("country", "nationality", "nation", "나라", "국가", "국적")
DEMONYM_STEM = 4  # "German" is of "Germany", "Icelandic" of "Iceland": a shared opening
_NUMBER_WORDS = """zero one two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen twenty"""
_WORD_NUMBERS = dict(zip(_NUMBER_WORDS.split(), range(21), strict=True)) | {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
    "thousand": 1000,
    "million": 10**6,
}
_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
        1,
    )
}


def shaped_reading(reader: Reader, question: str, passages: Sequence[Passage]) -> Reading | None:
    """The choice or verdict the question's shape asks for; None when it asks for neither or
    the passages cannot settle it."""
    shape = comparison(question)
    if shape is not None:
        return read_choice(reader, question, passages, shape)
    verdict = yes_no(question)
    if verdict is not None:
        return read_verdict(reader, question, passages, verdict)
    common = shared(question)
    if common is not None and is_korean(question):  # 공통점 / 차이점
        return read_commonality(question, passages, common)
    if common is not None:
        return read_shared(reader, question, passages, common)
    return None


def subjects_found(reader: Reader, question: str, passages: Sequence[Passage]) -> bool:
    """Whether the question names subjects to choose between, judge or compare, and every one
    of them has its passage: that is evidence, though no passage holds the question's other
    words ("Who has a wider scope of profession, A or B?")."""
    shape = comparison(question) or shared(question)
    names: tuple[str, ...] = ()
    if shape is not None:
        names = shape.alternatives if isinstance(shape, Comparison) else shape.subjects
    if not names:
        verdict = yes_no(question)
        names = verdict.subjects if verdict is not None and len(verdict.subjects) > 1 else ()
    return bool(names) and all(about(reader, name, passages) for name in names)


def about(reader: Reader, name: str, passages: Sequence[Passage]) -> list[Passage]:
    """The passages about a named subject: titled by it, else naming all its words."""
    terms = reader.terms(name)
    if not terms:
        return []
    titled = []
    for p in passages:
        title = reader.terms(p.title or "")
        if title and (title <= terms or terms <= title):
            titled.append(p)
    return titled or [p for p in passages if reader.coverage(terms, p) == 1.0]


def _subject_reading(
    reader: Reader, question: str, name: str, others: Sequence[str], passages: Sequence[Passage],
    kind: AnswerType | None = None,
) -> Reading | None:  # fmt: skip
    own = about(reader, name, passages)
    if not own:
        return None
    sub = question
    for other in others:
        sub = sub.replace(other, " ")
    reading = reader.read(sub, own, check=False, kind=kind)
    return reading if reading.lead is not None else None


def read_choice(
    reader: Reader, question: str, passages: Sequence[Passage], shape: Comparison
) -> Reading | None:
    """The alternative that wins the comparison, with both alternatives' sentences cited."""
    names = shape.alternatives
    readings = []
    for name in names:
        others = [o for o in names if o != name]
        reading = _subject_reading(reader, question, name, others, passages, shape.compared)
        if reading is None or reading.lead is None:
            return None
        readings.append(reading)
    if shape.compared is not None:
        values = [_value(r.lead.text, shape.compared, question) for r in readings if r.lead]
        if any(v is None for v in values) or values[0] == values[1]:
            return None
        first_wins = (values[0] > values[1]) == shape.larger_wins  # type: ignore[operator]
    else:
        asked = reader.terms(question) - set().union(*(reader.terms(n) for n in names))
        held = [len(asked & reader.terms(r.lead.text)) for r in readings if r.lead]
        if held[0] == held[1]:
            return None
        first_wins = held[0] > held[1]
    order = [0, 1] if first_wins else [1, 0]
    return _combined(question, [readings[i] for i in order], names[order[0]])


def read_shared(
    reader: Reader, question: str, passages: Sequence[Passage], shape: Shared
) -> Reading | None:
    """What two subjects have in common: the first name (else word) of the first subject's
    opening sentences that the second subject's opening sentences hold too, and that the
    question does not give; it leads, each subject's sentence naming it cited."""
    opening = []
    for name in shape.subjects:
        own = about(reader, name, passages)
        if not own:
            return None
        title = sentence_key(own[0].title or "")
        sentences = [s for s in body_sentences(own[0].content) if sentence_key(s) != title]
        opening.append([(own[0].n, s) for s in sentences[:DEFINING]])
    if opening[0][:1] == opening[1][:1]:
        return None  # one passage for both: nothing to compare
    given = reader.terms(question)
    theirs = [reader.terms(" ".join(s for _, s in sentences)) for sentences in opening[1:]][0]
    common = _common_words(reader, passages)
    for tier in ("names", "words"):
        for n, sentence in opening[0]:
            for candidate in _candidates(sentence, tier, common):
                terms = reader.terms(candidate)
                if terms and terms <= theirs and not terms <= given:
                    other = next(
                        (o for o in opening[1] if terms <= reader.terms(o[1])), opening[1][0]
                    )
                    return Reading(
                        question=question,
                        answer_type="thing",
                        lead=ReadSentence(text=sentence, n=n, score=1.0),
                        span=candidate,
                        confidence=0.5,
                        support=[ReadSentence(text=other[1], n=other[0], score=1.0)],
                        evidence=sorted({n, other[0]}),
                        headline=candidate,
                    )
    return None


def _candidates(sentence: str, tier: str, common: set[str]) -> list[str]:
    """A sentence's names, or its words that most of the passages do not share ("born")."""
    if tier == "names":
        return [m.name for m in find_mentions(sentence)]
    words = [w.strip(".,;:()\"'") for w in sentence.split()]
    return [w for w in words if len(w) >= 4 and w.casefold() not in common]


def _common_words(reader: Reader, passages: Sequence[Passage]) -> set[str]:
    """Words in at least a third of the passages: said of anything, they answer nothing."""
    counts: dict[str, int] = {}
    for p in passages:
        for word in {w.strip(".,;:()\"'").casefold() for w in p.content.split()}:
            counts[word] = counts.get(word, 0) + 1
    return {w for w, c in counts.items() if c >= max(3, len(passages) / 3)}


def read_verdict(
    reader: Reader, question: str, passages: Sequence[Passage], shape: YesNo
) -> Reading | None:
    """Yes or no, with the sentences it rests on; None when they do not settle it."""
    if len(shape.subjects) == 2:
        return _two_subjects(reader, question, passages, shape)
    return _stated_value(reader, question, passages)


def _two_subjects(
    reader: Reader, question: str, passages: Sequence[Passage], shape: YesNo
) -> Reading | None:
    readings = []
    for name in shape.subjects:
        others = [o for o in shape.subjects if o != name]
        reading = _subject_reading(reader, question, name, others, passages)
        if reading is None or reading.lead is None:
            return None
        readings.append(reading)
    sentences = [r.lead.text for r in readings if r.lead]
    place = _FROM_PLACE.search(question)
    if shape.same and place is not None and _SAME_NOUN.search(question) is None:
        values = [_nationalities(s) for s in sentences]
        if not all(values):
            return None
        stem = place.group(1).casefold()[:DEMONYM_STEM]
        if not values[0] & values[1]:
            yes = False  # of two nations, they are not both from one place
        elif all(any(v.startswith(stem) for v in vs) for vs in values):
            yes = True
        else:
            return None
    elif shape.same:
        values = [
            _shared_values(s, name, question)
            for s, name in zip(sentences, shape.subjects, strict=True)
        ]
        if not all(values):
            return None
        yes = bool(values[0] & values[1]) != shape.differ
    else:
        named = set().union(*(reader.terms(n) for n in shape.subjects))
        asked = reader.terms(question) - named
        if not asked:
            return None
        yes = all(len(asked & reader.terms(s)) >= HELD_SHARE * len(asked) for s in sentences)
        if not yes:
            return None  # words missing from a sentence are no evidence for "no"
    return _combined(question, readings, _verdict_word(question, yes))


def _stated_value(reader: Reader, question: str, passages: Sequence[Passage]) -> Reading | None:
    """A question stating a number or date: yes when the best sentence holds it, no when that
    sentence holds another of the same unit."""
    for kind in ("date", "number"):
        stated = [
            s.text
            for s in typed_spans(question, kind)
            if any(c.isdigit() for c in s.text) and not _in_code(question, s.start)
            if len(question.rstrip(" ?")) - s.end
            <= STATED_AT_END  # the asked value, not "코로나 19"
        ]
        if not stated:
            continue
        asked = question
        for value in stated:  # the sentence holding the value is not one the question has
            asked = asked.replace(value, " ")
        reading = reader.read(asked, passages, check=False, kind=kind)
        if reading.lead is None:
            return None
        found = [s.text for s in typed_spans(reading.lead.text, kind)]
        if any(_compact(v) == _compact(f) for v in stated for f in found):
            yes = True
        elif any(_unit(f) == _unit(v) for v in stated for f in found):
            yes = False
        else:
            return None
        return _combined(question, [reading], _verdict_word(question, yes))
    return None


def _combined(question: str, readings: list[Reading], headline: str) -> Reading:
    """One reading from the subjects' readings: the first's sentence leads, the others support."""
    lead = readings[0]
    assert lead.lead is not None
    support: list[ReadSentence] = []
    for other in readings[1:]:
        if other.lead is not None and other.lead.text != lead.lead.text:
            support.append(other.lead)
    return Reading(
        question=question,
        answer_type=lead.answer_type,
        lead=lead.lead,
        passage=lead.passage,
        span=headline,
        confidence=min(r.confidence for r in readings),
        support=support,
        evidence=sorted({r.lead.n for r in readings if r.lead}),
        headline=headline,
    )


def _verdict_word(question: str, yes: bool) -> str:
    if is_korean(question):
        return "예" if yes else "아니요"
    return "Yes" if yes else "No"


# ------------------------------------------------------------------ values


def _value(sentence: str, compared: str, question: str) -> tuple[float, ...] | None:
    """The sentence's first date (year, month, day) or number that the question does not name."""
    kind: AnswerType = "date" if compared == "date" else "number"
    folded = question.replace(" ", "")
    for span in typed_spans(sentence, kind):
        if span.text.replace(" ", "") in folded:
            continue
        value = _date_key(span.text) if kind == "date" else _number(span.text)
        if value is not None:
            return value
    return None


def _date_key(text: str) -> tuple[float, ...] | None:
    year = re.search(r"1[5-9]\d\d|20\d\d", text)
    if not year:
        return None
    rest = text.replace(year.group(0), " ")
    month = re.search(r"(\d{1,2})\s*월", rest)
    named = re.search(r"[A-Za-z]{3}", rest)
    month_n = (
        int(month.group(1)) if month else _MONTHS.get(named.group(0).lower(), 0) if named else 0
    )
    day = re.search(r"(\d{1,2})\s*일|\b(\d{1,2})\b", rest)
    day_n = int(day.group(1) or day.group(2)) if day else 0
    return (float(year.group(0)), float(month_n), float(day_n))


def _number(text: str) -> tuple[float, ...] | None:
    digits = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    if digits:
        return (float(digits.group(0).replace(",", "")),)
    word = text.split()[0].casefold().split("-")[0] if text.split() else ""
    return (float(_WORD_NUMBERS[word]),) if word in _WORD_NUMBERS else None


def _in_code(text: str, start: int) -> bool:
    """Whether a number starts inside a model code ("S2", "X-100")."""
    before = text[start - 1 : start].lstrip("-")
    return bool(before) and before.isascii() and before.isalpha()


def _compact(text: str) -> str:
    return re.sub(r"[\s,]", "", text).casefold()


def _unit(text: str) -> str:
    return re.sub(r"[\d\s,.]", "", text).casefold()


def _shared_values(sentence: str, name: str, question: str) -> set[str]:
    """What two subjects may share, as the question names it: nationalities for "the same
    country/nationality", else the sentence's names holding the asked noun ("같은 대학교" →
    한결대학교); empty when the question names nothing this reads."""
    noun = _SAME_NOUN.search(question)
    if noun is None:
        return set()
    asked = _singular(noun.group(1).casefold())
    if asked in _NATION_NOUNS:
        return _nationalities(sentence)
    named = {s.text for s in typed_spans(sentence, "place")}
    return {
        n.casefold() for n in named if asked in n.casefold() and n.casefold() not in name.casefold()
    }


def _nationalities(sentence: str) -> set[str]:
    """The sentence's nationality words ("Icelandic", "American")."""
    words = {w.strip(".,;:()\"'").casefold() for w in sentence.split()}
    return {w for w in words if w in COMMON_CAPITALISED and w not in _NOT_NATIONS}


def _singular(noun: str) -> str:
    """ "countries" → "country", "nations" → "nation" (English plurals the nouns above take)."""
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun
