"""The rule planner's chains (planner/chains.py): Korean and English chain questions become
steps whose later queries name the earlier answer; single-hop questions stay one step."""

from __future__ import annotations

import pytest

from planrag.planner.chains import chain_steps, may_chain

CHAINS = [
    (
        "누리테크 대표가 졸업한 대학교의 부설 연구소는 무엇을 연구하나요?",
        [
            "누리테크 대표",
            "{{s1.answer}}가 졸업한 대학교",
            "{{s2.answer}}의 부설 연구소는 무엇을 연구하나요?",
        ],
    ),
    (
        "한빛로보틱스에 투자한 벤처캐피털의 대표는 누구인가요?",
        ["한빛로보틱스에 투자한 벤처캐피털", "{{s1.answer}}의 대표는 누구인가요?"],
    ),
    ("한빛로보틱스의 CTO의 출신 대학은?", ["한빛로보틱스의 CTO", "{{s1.answer}}의 출신 대학은?"]),
    (
        "누리봇 S2 개발을 총괄한 사람이 소속된 팀의 팀장은?",
        ["누리봇 S2 개발을 총괄한 사람", "{{s1.answer}}이 소속된 팀", "{{s2.answer}}의 팀장은?"],
    ),
    (
        "푸른벤처스 대표의 고향은 어디인가요?",
        ["푸른벤처스 대표", "{{s1.answer}}의 고향은 어디인가요?"],
    ),
    (
        "자율주행팀 팀장이 박사 학위를 받은 대학교는?",
        ["자율주행팀 팀장", "{{s1.answer}}이 박사 학위를 받은 대학교는?"],
    ),
    # Kiwi reads 한빛로보틱스 a common noun before 의: its organisation ending names it
    (
        "한빛로보틱스의 최대 고객사의 대표는 누구인가요?",
        ["한빛로보틱스의 최대 고객사", "{{s1.answer}}의 대표는 누구인가요?"],
    ),
    # a determiner inside the bridge's noun phrase ("첫 해외 지사")
    (
        "누리테크의 첫 해외 지사의 지사장은 누구인가요?",
        ["누리테크의 첫 해외 지사", "{{s1.answer}}의 지사장은 누구인가요?"],
    ),
    (
        "Which state borders the state where Hello Love's performer died?",
        ["the state where Hello Love's performer died", "Which state borders {{s1.answer}}?"],
    ),
    (
        "What is the capital of the country of birth of Maria Tan?",
        ["the country of birth of Maria Tan", "What is the capital of {{s1.answer}}?"],
    ),
    (
        "What government position was held by the woman who portrayed Corliss Archer in the "
        "film Kiss and Tell?",
        [
            "the woman who portrayed Corliss Archer in the film Kiss and Tell",
            "What government position was held by {{s1.answer}}?",
        ],
    ),
]


@pytest.mark.parametrize(("question", "queries"), CHAINS)
def test_chain_questions_become_steps(question: str, queries: list[str]) -> None:
    steps = chain_steps(question)
    assert [s.query for s in steps] == queries
    assert [s.id for s in steps] == [f"s{i}" for i in range(1, len(queries) + 1)]
    assert may_chain(question)


SINGLE_HOP = [
    "누리봇 S2의 최대 적재 중량은?",
    "한빛로보틱스의 대표는 누구인가요?",
    "한빛로보틱스의 대표의 이름은?",  # asks only for the name: one search
    "코로나19 예방접종을 받은 사람의 격리 기간은?",  # "사람의" is generic
    "한빛로보틱스에 투자한 벤처캐피털은 어디인가요?",  # a relative clause, no further hop
    "한빛로보틱스 대표는 누구인가요?",  # a role, asked for itself
    "푸른벤처스 대표의 이름은?",
    "지난주 메타버스 기사 2개만 보여줘",
    "회사의 대표의 역할은 무엇인가요?",  # no name
    "What is the capital of France?",
    "Who directed the film Kiss and Tell?",
    "The company that makes NuriBot",  # a clause opening the question: nothing before it
    "안녕하세요",
]


@pytest.mark.parametrize("question", SINGLE_HOP)
def test_single_hop_questions_stay_one_step(question: str) -> None:
    assert chain_steps(question) == []


def test_the_step_budget_bounds_a_chain() -> None:
    question = "누리봇 S2 개발을 총괄한 사람이 소속된 팀의 팀장은?"
    steps = chain_steps(question, max_steps=2)
    assert [s.query for s in steps] == [
        "누리봇 S2 개발을 총괄한 사람이 소속된 팀",
        "{{s1.answer}}의 팀장은?",
    ]
