"""The detail a question asks about that no passage holds, said plainly before what they hold.

"한빛로보틱스의 화성 지사 주소는?" over documents naming the company's head office and its
factory, but no 화성: the answer opens "화성 지사는 문서에 없습니다." and then gives the related
sentences, cited, instead of offering the head office as if it answered.

A detail is missing when the question's words that narrow what is asked are held by none of
the passages shown (the search looked for them, and BM25 favours a rare word), while its subject
is held:

- a name (a Korean proper noun, a capitalised Latin name) no passage holds: "화성" of "화성 지사";
- or words of two or more of the question's words (eojeol) no passage holds, none of them only
  a word asking for the answer (이름, 시기, 규모 …): "주식 시가총액", "외장 색상";
- English: a relation the question states that no sentence states: one passage holds the
  question's names and all its other words, but no sentence of it (with its neighbours) holds
  those words together: "Which company supplies batteries to Hanbit Robotics?" over a supply
  agreement of robots and a battery charge two paragraphs apart. (A question whose words are
  spread over several passages is a bridge question, not an absent fact: HotpotQA's are.)

Words cannot be compared across languages: a passage in the other language that passes the
cross-lingual evidence check (`ReaderEvidence.near`) may hold the detail in its own
words, so then no Korean detail is said to be missing (even when the reader led in Korean:
"블루웨이브 로지스틱스" of an answerable question is "Bluewave Logistics" there). The English
relation is judged on the one passage holding all its words: that passage names the subject
and the relation's words and still does not state it. The verdict stays one: passages passed
the evidence check, so `exists` is true and the answer is extractive; it names what they lack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planrag.services.answers import Passage, is_korean
from planrag.services.passage_text import headed_sentences, plain_text
from planrag.services.reader import Reader
from planrag.text.entities import find_mentions
from planrag.text.korean import get_kiwi, particle_for

__all__ = ["Missing", "missing_detail"]

# Nouns that ask for the answer rather than narrow it: a passage states a name without "이름",
# a date without "시기" (question vocabulary, not document vocabulary).
_ASKING = """이름 성함 시기 연도 날짜 규모 금액 액수 비율 번호 기관 곳 원인 이유 방법 종류 목적
    내용 공통점 차이점 점 예정 계획 현재 모델 장소 위치 주소 수 명 개 얼마 무엇 누구 어디 언제
    정도 한도 기한 일수 횟수 기간 시간 분야 역할 결과"""
ASKING_NOUNS = frozenset(_ASKING.split())
_ASKING_DETERMINERS = frozenset({"어떤", "무슨", "어느", "몇"})
_NOUN_TAGS = ("NNG", "NNP", "SL", "SH")
_PHRASE_TAGS = ("NN", "SL", "SN", "SH", "XR", "XPN", "XSN", "MM")
WINDOW = 1  # sentences either side of one that count as stating with it
# A relation is a few words (supplies, batteries, company); a question describing its answer
# with more is read across sentences ("situated in the western part of a province whose
# capital is what": the district's page says each in its own sentence).
RELATION_WORDS = 3


@dataclass(frozen=True)
class Missing:
    """What the passages lack: the question's phrase naming it (a relation: the question)."""

    phrase: str
    korean: bool
    relation: bool = False

    def sentence(self) -> str:
        """The opening sentence saying so ("화성 지사는 문서에 없습니다. 관련 내용:")."""
        if self.korean:
            return f"{self.phrase}{particle_for(self.phrase, '는')} 문서에 없습니다. 관련 내용:"
        if self.relation:  # "No document says which company supplies batteries to …"
            asked = self.phrase.strip().rstrip("?").strip()
            return f"No document says {asked[:1].lower()}{asked[1:]}. Related:"
        return f"{self.phrase} is not in the documents. Related:"


def missing_detail(
    reader: Reader, question: str, passages: Sequence[Passage], lead: Passage | None = None
) -> Missing | None:
    """What the question asks about that the passages do not hold; None when they hold every
    detail asked, or when a passage of the other language may hold it. `lead` (the passage of
    the answer's lead sentence) is not used: a Korean lead over an English passage holding the
    answer is a wrong lead, not evidence of absence."""
    if not passages:
        return None
    korean = is_korean(question)
    same = [p for p in passages if is_korean(p.content[:2000]) == korean]
    other = [p for p in passages if is_korean(p.content[:2000]) != korean]
    if not same:
        return None
    if not korean:  # a relation one passage holds the words of: judged on that passage alone
        return _english(reader, question, same)
    if _other_language_may_hold(reader, question, other):
        return None
    return _korean(reader, question, same)


def _other_language_may_hold(reader: Reader, question: str, other: list[Passage]) -> bool:
    if not other:
        return False
    if not reader.has_e5:
        return True  # nothing to judge them by: assume they may
    return any(reader.near(question, other))


def _korean(reader: Reader, question: str, passages: list[Passage]) -> Missing | None:
    tokens = get_kiwi().tokenize(question)
    words = [
        (t, _word_index(question, t.start))
        for t in tokens
        if t.tag in _NOUN_TAGS
        and t.form not in ASKING_NOUNS
        and is_korean(t.form)  # a Latin acronym (ICO) may be spelled out in the passages
        and reader.terms(t.form)
    ]
    if not words:
        return None
    texts = [f"{p.title or ''}\n{plain_text(p.content)}" for p in passages]
    terms = {t.form for t, _ in words}
    held = set().union(*reader.held(terms, texts, question=question))
    names = [t for t, _ in words if t.tag == "NNP" or getattr(t, "oov", False)]
    if not any(n.form in held for n in names):
        return None  # the subject itself is not held: not a detail of something found
    missing = [(t, w) for t, w in words if t.form not in held]
    missing_names = [t for t, _ in missing if t in names]
    if missing_names:
        return Missing(_phrase(question, tokens, missing_names[0]), True)
    if len({w for _, w in missing}) >= 2:
        return Missing(_phrase(question, tokens, missing[0][0]), True)
    return None


def _word_index(text: str, at: int) -> int:
    return len(text[:at].split())


def _phrase(question: str, tokens: list, token: object) -> str:
    """The run of noun-phrase morphemes around the token ("화성 지사" around 화성), without the
    asking noun it ends on ("주소") and without the question's subject before a 의."""
    at = tokens.index(token)
    start = end = at
    while start > 0 and tokens[start - 1].tag.startswith(_PHRASE_TAGS):
        start -= 1
    while start < at and tokens[start].form in _ASKING_DETERMINERS:
        start += 1
    while end + 1 < len(tokens) and tokens[end + 1].tag.startswith(_PHRASE_TAGS):
        end += 1
    while end > at and tokens[end].form in ASKING_NOUNS:
        end -= 1
    last = tokens[end]
    return question[tokens[start].start : last.start + last.len].strip()


def _english(reader: Reader, question: str, passages: list[Passage]) -> Missing | None:
    """A relation one passage holds every word of but never states: all the question's words
    but its names are in one passage about its subject, yet no sentence (with its neighbours)
    holds them together. Missing names are not judged in English: HotpotQA's answerable
    questions name what their pages spell otherwise ("Welch" for Welsh)."""
    names = [m.name for m in find_mentions(question)]
    name_terms = set().union(*(reader.terms(n) for n in names)) if names else set()
    asked = reader.terms(question) - name_terms
    if not name_terms or not 2 <= len(asked) <= RELATION_WORDS:
        return None
    texts = [f"{p.title or ''}\n{plain_text(p.content)}" for p in passages]
    wanted = asked | name_terms
    whole = [
        p for p, held in zip(passages, reader.held(wanted, texts), strict=True) if held >= wanted
    ]
    if not whole or _stated_together(reader, asked, whole):
        return None
    return Missing(question, False, relation=True)


def _stated_together(reader: Reader, asked: set[str], passages: list[Passage]) -> bool:
    """Whether one sentence, with its neighbours and the heading it falls under, holds all the
    asked words (a FAQ's "How long does the lamp last?" states it with the answer below it)."""
    for passage in passages:
        sentences = [
            f"{heading}\n{sentence}" for sentence, heading in headed_sentences(passage.content)
        ]
        held = reader.held(asked, sentences) if sentences else []
        for i in range(len(held)):
            window = set().union(*held[max(0, i - WINDOW) : i + WINDOW + 1])
            if asked <= window:
                return True
    return False
