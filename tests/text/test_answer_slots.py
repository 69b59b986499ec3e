"""The slot a Korean query asks for (`text/answer_slots.py`): the question word's particle, or
the argument a relative clause's head noun fills in the clause."""

from __future__ import annotations

import pytest

from planrag.text.answer_slots import carries, gap_particle, slot_of


@pytest.mark.parametrize(
    "query",
    [
        "시리즈 A에 30억 원을 투자한 회사",  # object given, no subject: the investor
        "물류 로봇을 개발한 사람",
        "바다파트너스와 협약을 맺은 회사",
        "디자인 대회에서 대상을 받은 제품",
    ],
)
def test_a_clause_without_its_subject_asks_for_the_subject(query: str) -> None:
    assert gap_particle(query) == "이"


@pytest.mark.parametrize(
    "query",
    [
        "오한결이 졸업한 대학교",  # the subject is given: the head is another argument
        "세림물산 본사가 있는 구",
        "세림물산이 투자를 받은 회사",
        "세림물산의 최대 고객사",  # no clause
        "the company that invested",
    ],
)
def test_other_queries_ask_no_clause_slot(query: str) -> None:
    assert gap_particle(query) is None


def test_the_question_word_comes_first() -> None:
    assert slot_of("부산 남구에는 무엇이 있나요?") == "이"
    assert slot_of("바다파트너스는 어디에 투자했나요?") == "에"


def test_a_name_carries_the_particle_written_after_it() -> None:
    sentence = "바다파트너스는 한솔에너지에 50억 원을 투자했고, 나머지는 청람인베스트가 투자했다."
    assert carries(sentence, "청람인베스트", "이")
    assert carries(sentence, "한솔에너지", "에")
    assert not carries(sentence, "바다파트너스", "이")  # a topic (는), not the subject's slot
    assert not carries(sentence, "동해캐피털", "이")
