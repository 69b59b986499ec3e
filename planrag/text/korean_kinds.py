"""What a Korean question's words say about its answer beyond the question word.

- The counter after 몇 ("몇 살", "몇 명", "몇 권", "몇 호", spaced or not: "몇살"): the number
  asked carries that unit, or one written for it (살 and 세); "몇 시" asks a time of day
  ("18:00", "오후 4시 30분"), a date span, not an amount. "얼마" asks a price in 원 unless the
  question names a measure ("무게 얼마야?"); "며칠" a count of days.
- A question in the past ("회의 언제 했어?", "언제 열렸나요?") asks what happened, not what a
  sentence plans ("다음 회의는 12월 9일에 열린다", "… 출시할 예정이다").
- "…이름이 뭐야?" asks for a person only when the noun it names is one ("병원장 이름",
  "담당자 이름"); "앱 이름", "제품 이름" ask for a thing's name.

Kiwi reads the words (몇/MM and the bound or common noun after it).
"""

from __future__ import annotations

import re

from planrag.text.answer_types import AnswerType
from planrag.text.korean import get_kiwi
from planrag.text.name_lexicon import ROLES, TITLES

__all__ = ["asked_unit", "asks_past", "carries_unit", "counted_in", "plans_ahead", "refined_kind"]

# Units written for one another in answers: a person's age is "16세" for "몇 살".
_SAME_UNIT = {
    "살": ("세", "살"),
    "세": ("세", "살"),
    "개월": ("개월", "달"),
    "달": ("개월", "달"),
    # "얼마" in another currency, or a rate ("금리 얼마야?")
    "원": ("원", "달러", "엔", "유로", "위안", "파운드", "%", "퍼센트"),
}
_TIME_OF_DAY = re.compile(r"\d{1,2}:\d{2}|\d\s*시(?!간)")
_COUNTERS = ("NNB", "NNG")
# "얼마" asking a price: not "얼마나" (how long, how far), and not of a measure the question names.
_PRICE = re.compile(r"얼마(?!나|큼|만큼|동안)")
_MEASURE_WORDS = """무게 중량 길이 크기 높이 거리 시간 기간 용량 속도 온도 습도 비율 넓이 면적
    인원 규모 수 나이 점수 두께 폭 깊이 전력 출력 해상도 배터리 칼로리 열량 용적 부피 수량 개수
    인구 정원"""
_MEASURES = frozenset(_MEASURE_WORDS.split())
# Nouns of people that name no role (a role or title is `named_entities.ROLES`/`TITLES`).
_PEOPLE = frozenset(
    (
        "사람",
        "분",
        "직원",
        "사원",
        "연구원",
        "회원",
        "학생",
        "선생님",
        "의사",
        "환자",
        "작가",
        "감독",
    )
)
_PERSON_ENDINGS = ("장", "자")  # 병원장, 공장장, 담당자, 책임자 (three syllables or more)


def asked_unit(question: str) -> str | None:
    """The counter a 몇 asks in ("전기자전거 몇살부터 돼?" → 살), or 원 for a price ("하루권
    얼마예요?": 얼마 not of a measure, "무게 얼마야?" asks kg); None without one."""
    tokens = get_kiwi().tokenize(question)
    for token, after in zip(tokens, tokens[1:], strict=False):
        if token.form == "몇" and token.tag in ("MM", "NR") and after.tag in _COUNTERS:
            return str(after.form)
    if "며칠" in question:  # "최대 며칠까지 돼?": a count of days
        return "일"
    if _PRICE.search(question) and not any(t.form in _MEASURES for t in tokens):
        return "원"
    return None


def carries_unit(span: str, unit: str) -> bool:
    """Whether an answer span is a count in the asked unit ("16세" for 살, "18:00" for 시)."""
    if unit == "시":
        return bool(_TIME_OF_DAY.search(span))
    units = "|".join(map(re.escape, _SAME_UNIT.get(unit, (unit,))))
    return re.search(rf"\d\s*(?:만|천|억)?\s*(?:{units})$", span.strip()) is not None


def counted_in(span: str, unit: str, sentence: str) -> bool:
    """Whether a span is a whole count in the unit within the sentence: not the last piece of
    a larger amount ("2천 건" of "1만 2천 건")."""
    if not carries_unit(span, unit):
        return False
    return re.search(rf"\d\s*(?:만|천|억|조)\s*{re.escape(span)}", sentence) is None


def refined_kind(question: str, kind: AnswerType) -> AnswerType:
    """The answer type once the question's counter and named noun are read: a date (a time of
    day) for "몇 시", a thing for the name of something not a person."""
    if kind == "number" and asked_unit(question) == "시":
        return "date"
    if kind == "person" and "이름" in question and not _asks_who(question):
        named = _noun_before_name(question)
        if named is not None and not _person_noun(named):
            return "thing"
    return kind


def _asks_who(question: str) -> bool:
    return any(word in question for word in ("누구", "누가", "누군지", "성함", "어느 분"))


def _noun_before_name(question: str) -> str | None:
    """The noun the question's 이름 belongs to ("병원 앱 이름이 뭐야?" → 앱)."""
    tokens = get_kiwi().tokenize(question)
    for before, token in zip(tokens, tokens[1:], strict=False):
        if token.form == "이름" and before.tag.startswith(("NN", "SL")):
            return str(before.form)
    return None


def _person_noun(noun: str) -> bool:
    return (
        noun in ROLES
        or noun in TITLES
        or noun in _PEOPLE
        or (len(noun) >= 3 and noun.endswith(_PERSON_ENDINGS))
        or noun.isupper()  # CTO, CEO
    )


_PAST = frozenset({"었", "았", "였", "었었", "았었"})
_AHEAD = re.compile(
    r"예정|다음\s*(?:회의|회차|달|해|주|번)?\s*\(?|차기|향후|앞으로|할\s*계획|목표(?:는|로)"
)


def asks_past(question: str) -> bool:
    """Whether a Korean question asks in the past tense (Kiwi's 었/았/였 ending)."""
    return any(t.tag == "EP" and t.form in _PAST for t in get_kiwi().tokenize(question))


def plans_ahead(sentence: str) -> bool:
    """Whether a Korean sentence states a plan or the next occurrence, not what happened."""
    return _AHEAD.search(sentence) is not None
