"""Alternative questions: a choice between two values of one subject, in English and Korean —
and the questions that are not one (comparisons of two subjects, yes/no, question words)."""

from __future__ import annotations

import pytest

from planrag.text.alternatives import Alternative, alternative
from planrag.text.question_shapes import Comparison, YesNo, comparison, yes_no


@pytest.mark.parametrize(
    ("question", "values", "rest"),
    [
        ("Is Harbor Bay University public or private?", ("public", "private"),
         "Is Harbor Bay University"),
        ("Harbor Bay University: public or private?", ("public", "private"),
         "Harbor Bay University"),
        ("Professor Ana Reyes is a professor at a university that is public or private ?",
         ("public", "private"), "Professor Ana Reyes is a professor at a university that is"),
        ("Which kind of university is Harbor Bay University, public or private?",
         ("public", "private"), "Which kind of university is Harbor Bay University"),
        ("Is Lindell University a public or a private university?", ("public", "private"),
         "Is Lindell University university"),
        ("Was the Glass Tower built in 1913 or in 1930?", ("1913", "1930"),
         "Was the Glass Tower built in"),
        ("Is Hanbit Robotics based in New York City or Los Angeles?",
         ("New York City", "Los Angeles"), "Is Hanbit Robotics based in"),
    ],
)  # fmt: skip
def test_english_alternatives(question: str, values: tuple[str, str], rest: str) -> None:
    assert alternative(question) == Alternative(values, rest)
    assert comparison(question) is None  # no two subjects to compare
    assert yes_no(question) is None  # answered by a value, never "Yes"


@pytest.mark.parametrize(
    ("question", "values", "rest"),
    [
        ("한빛로보틱스는 상장사인가요 비상장사인가요?", ("상장사", "비상장사"), "한빛로보틱스는"),
        ("한빛로보틱스는 상장사인가요, 아니면 비상장사인가요?", ("상장사", "비상장사"),
         "한빛로보틱스는"),
        ("한빛로보틱스는 상장사입니까 비상장사입니까?", ("상장사", "비상장사"), "한빛로보틱스는"),
        ("한빛로보틱스는 상장사 또는 비상장사인가요?", ("상장사", "비상장사"), "한빛로보틱스는"),
        ("누리봇 S2는 물류용이에요 아니면 청소용이에요?", ("물류용", "청소용"), "누리봇 S2는"),
        ("누리봇 S1은 이천 공장에서 생산되나요, 아니면 평택 공장에서 생산되나요?",
         ("이천", "평택"), "누리봇 S1은 공장에서 생산되나요"),
        ("한빛로보틱스는 2015년에 설립되었나요, 2018년에 설립되었나요?", ("2015년", "2018년"),
         "한빛로보틱스는 설립되었나요"),
        ("한빛로보틱스에 투자한 회사는 상장사인가요 비상장사인가요?", ("상장사", "비상장사"),
         "한빛로보틱스에 투자한 회사는"),
    ],
)  # fmt: skip
def test_korean_alternatives(question: str, values: tuple[str, str], rest: str) -> None:
    assert alternative(question) == Alternative(values, rest)
    assert comparison(question) is None
    assert yes_no(question) is None  # was read as a yes/no question about 한빛로보틱스


def test_comparisons_of_two_subjects_stay_comparisons() -> None:
    assert comparison("Which is older, Greyia or Calibanus?") == Comparison(
        ("Greyia", "Calibanus"), "date", False
    )
    assert comparison("Who was born first, Jane Doe or Maria Tan?") is not None
    assert comparison("한빛로보틱스와 푸른벤처스 중 어느 회사가 먼저 설립되었나?") is not None
    for question in (
        "Which is older, Greyia or Calibanus?",
        "Which is older, the tree or the bush?",  # lower-case, but compared: two subjects
        "Is Greyia or Calibanus the older genus?",  # the subjects right after the auxiliary
        'Who released the song "With or Without You" first, Jai McDowall or U2?',
        "Which Istanbul mosque is older, the Bayezid II Mosque or the Nusretiye Mosque?",
    ):
        assert alternative(question) is None, question


def test_other_questions_are_no_alternatives() -> None:
    for question in (
        "What is the colour of apples or pears?",  # a question word, the values not set off
        "Who founded Hanbit Robotics?",
        "Are Greyia and Calibanus both genera?",
        "누리봇 S1은 이천 또는 평택 중 어디서 생산되나요?",  # a question word asks
        "한빛로보틱스는 상장사인가요? 직원은 몇 명인가요?",  # two questions
        "한빛로보틱스는 상장했나요? 푸른벤처스는 투자했나요?",  # two questions, no shared tail
        "누리봇 S1과 S2 모두 이천 공장에서 생산되나요?",
        "누리봇 S2의 최대 적재 중량은 500kg인가요?",
    ):
        assert alternative(question) is None, question
    # a real yes/no question is still one
    assert yes_no("누리봇 S2의 최대 적재 중량은 500kg인가요?") is not None
    assert yes_no("Is Harbor Bay University private?") == YesNo(("Harbor Bay University",))


def test_an_or_inside_a_yes_no_question_or_a_statement_is_no_alternative() -> None:
    """Found on the single-hop sets (publichealthqa_ko, CISI), reworded: "또는" joining two
    words inside the question, "-거나" joining two verbs, an English statement ending in "or"."""
    for question in (
        "독감 바이러스는 냉장 또는 냉동 식품을 통해 퍼질 수 있습니까?",
        "비누와 물 또는 손소독제로 손을 씻어야 합니까?",
        "반려견과 함께 해외로 여행하거나 반려견을 들여올 수 있습니까?",
        "Networks will serve the reader directly at home or office.",
    ):
        assert alternative(question) is None, question
