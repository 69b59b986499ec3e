"""The answer type a step's query expects (question word with its noun, question word, head
noun, asked attribute), and the particle a filled-in answer takes."""

from __future__ import annotations

import pytest

from planrag.planner.schema import PlanStep
from planrag.text.korean import particle_for
from planrag.text.step_types import expected_type


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("한빛로보틱스에 투자한 벤처캐피털", "ORGANIZATION"),
        ("한빛로보틱스 대표이사가 졸업한 대학교", "ORGANIZATION"),
        ("누리테크 대표", "PERSON"),
        ("한결대학교의 총장은 누구인가요?", "PERSON"),
        ("누리봇 S2 개발을 총괄한 사람", "PERSON"),
        ("한결대학교의 개교 연도는?", "DATE"),
        ("박지은이 한빛로보틱스에 언제 합류했나요?", "DATE"),
        ("대한물류의 본사는 어디에 있나요?", "PLACE"),
        ("이서준이 졸업한 대학교는 어느 도시에 있나요?", "PLACE"),
        ("푸른벤처스의 대표는 어느 대학을 졸업했나요?", "ORGANIZATION"),
        ("대한물류의 직원 수는?", "NUMBER"),
        ("누리봇 시리즈를 생산하는 공장", "ORGANIZATION"),
        ("the state where Hello Love's performer died", "PLACE"),
        ("the university where John Smith taught", "ORGANIZATION"),
        ("who directed Titanic", "PERSON"),
        ("What year was Hanbit Robotics founded", "DATE"),
        ("In what city was the band formed", "PLACE"),
        ("the chief executive officer of Bluewave Logistics", "PERSON"),
        ("한지훈은 창업 전에 어떤 일을 했나요?", ""),
    ],
)
def test_the_expected_type_of_a_step(query: str, kind: str) -> None:
    assert expected_type(query).kind == kind


def test_where_accepts_an_organisation_too_but_a_state_is_a_place() -> None:
    where = expected_type("푸른벤처스 대표는 어디에서 일했나요?")
    assert where.fits("PLACE") and where.fits("ORGANIZATION") and not where.fits("PERSON")
    state = expected_type("the state where Hello Love's performer died")
    assert state.fits("PLACE") and not state.fits("ORGANIZATION")
    assert expected_type("한지훈은 창업 전에 어떤 일을 했나요?").fits("PERSON")  # any


@pytest.mark.parametrize(
    ("word", "particle", "form"),
    [
        ("이서준", "가", "이"),
        ("푸른벤처스", "이", "가"),
        ("한지훈", "는", "은"),
        ("한결대학교", "은", "는"),
        ("서울", "으로", "로"),
        ("부산", "로", "으로"),
        ("Maria Tan", "가", "가"),
        ("이서준", "의", "의"),
    ],
)
def test_particles_follow_the_word(word: str, particle: str, form: str) -> None:
    assert particle_for(word, particle) == form


def test_a_filled_step_query_takes_the_answers_particle() -> None:
    step = PlanStep(id="s2", query="{{s1.answer}}가 졸업한 대학교의 총장은?")
    assert step.filled({"s1": "이서준"}) == "이서준이 졸업한 대학교의 총장은?"
    assert step.filled({"s1": "푸른벤처스"}) == "푸른벤처스가 졸업한 대학교의 총장은?"
    of = PlanStep(id="s2", query="{{s1.answer}}의 대표")
    assert of.filled({"s1": "오세영"}) == "오세영의 대표"
    assert PlanStep(id="s2", query="{{s1.answer}}가나").filled({"s1": "이서준"}) == "이서준가나"
