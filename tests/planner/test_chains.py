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


# A step's remainder splits again, and roles, heads and predicates the session-8 rules missed.
CHAINS_IN_REMAINDER = [
    (
        "누리테크 대표가 졸업한 대학교는 어느 도시에 있나요?",
        ["누리테크 대표", "{{s1.answer}}가 졸업한 대학교", "{{s2.answer}}는 어느 도시에 있나요?"],
    ),
    (  # "어디에 있나요" asks a place, not the name ("어디인가요")
        "동해캐피털 대표가 졸업한 대학교는 어디에 있나요?",
        ["동해캐피털 대표", "{{s1.answer}}가 졸업한 대학교", "{{s2.answer}}는 어디에 있나요?"],
    ),
    (  # a two-noun team name Kiwi splits ("마케팅 팀"), typed an organisation
        "마케팅팀 팀장이 이전에 일한 광고 회사의 대표는 누구인가요?",
        [
            "마케팅팀 팀장",
            "{{s1.answer}}이 이전에 일한 광고 회사",
            "{{s2.answer}}의 대표는 누구인가요?",
        ],
    ),
    (  # a role asked about with a topic particle and a predicate
        "한빛로보틱스 최대 고객사는 언제 설립되었나요?",
        ["한빛로보틱스 최대 고객사", "{{s1.answer}}는 언제 설립되었나요?"],
    ),
    (  # a role glued to its noun ("물류센터장": 물류 센터 장)
        "대한물류 이천 물류센터장이 가진 자격증은?",
        ["대한물류 이천 물류센터장", "{{s1.answer}}이 가진 자격증은?"],
    ),
    (  # a person noun other than 사람 heads the clause, a further clause on it
        "누리봇 S2 개발을 총괄한 연구원이 속한 팀은 어디인가요?",
        ["누리봇 S2 개발을 총괄한 연구원", "{{s1.answer}}이 속한 팀은 어디인가요?"],
    ),
    (  # a district heads the clause, an adverbial particle before the topic
        "한빛로보틱스 최대 고객사의 본사가 있는 구에는 무엇이 있나요?",
        [
            "한빛로보틱스 최대 고객사",
            "{{s1.answer}}의 본사가 있는 구",
            "{{s2.answer}}에는 무엇이 있나요?",
        ],
    ),
]


# English shapes the session-8 rules missed (invented names).
ENGLISH_CHAINS = [
    (  # the question word after a class noun: the class noun's thing is searched first
        "The Silver Key is part of a series written by who?",
        ["The Silver Key is part of a series", "{{s1.answer}} series written by who?"],
    ),
    (
        "The Amber Road, though a book about a sailor, is by a novelist of what nationality?",
        [
            "The Amber Road, though a book about a sailor, is by a novelist",
            "{{s1.answer}} novelist of what nationality?",
        ],
    ),
    (  # one "of" and a name, the rest asks more than the name
        "When was the singer of Harbor Lights Waltz born?",
        ["the singer of Harbor Lights Waltz", "When was {{s1.answer}} born?"],
    ),
    (  # a non-ASCII letter is still English
        "When was the singer of Café Lumière born?",
        ["the singer of Café Lumière", "When was {{s1.answer}} born?"],
    ),
    (  # a role noun outside the class list, the participle "born" stays with the question
        "In what year was the coach who led the 1999 Riverside Hawks team born?",
        ["the coach who led the 1999 Riverside Hawks team", "In what year was {{s1.answer}} born?"],
    ),
    (  # the verb the question ends on stays with the question, not the name searched first
        "In which city did the director of the film adaptation of The Grey Harbour die?",
        [
            "the film adaptation of The Grey Harbour",
            "In which city did the director of {{s1.answer}} die?",
        ],
    ),
    (  # and so does an alternative after it
        "Was the director of the film adaptation of The Grey Harbour born in 1950 or 1955?",
        [
            "the film adaptation of The Grey Harbour",
            "Was the director of {{s1.answer}} born in 1950 or 1955?",
        ],
    ),
    (
        "Where was the founder of the record label of The Night Owls born?",
        ["the record label of The Night Owls", "Where was the founder of {{s1.answer}} born?"],
    ),
    (  # an -ed word right after the name is the clause's own verb ("Ada Lyle studied")
        "In which city is the academy where Ada Lyle studied?",
        ["the academy where Ada Lyle studied", "In which city is {{s1.answer}}?"],
    ),
    (  # "with the …" on a role noun; the stranded "in" stays with the question
        "What film was the boxer with the real name of Tomas Verrill in?",
        ["the boxer with the real name of Tomas Verrill", "What film was {{s1.answer}} in?"],
    ),
]
ENGLISH_SINGLE_HOP = [
    "Port Amel is a town in what region?",  # the named thing is the town
    "What is the capital of Norland?",  # the rest asks only the name
    "Which film of what year starred Nora Vale?",  # no named prefix
]


@pytest.mark.parametrize(("question", "queries"), ENGLISH_CHAINS)
def test_english_chain_shapes(question: str, queries: list[str]) -> None:
    assert [s.query for s in chain_steps(question)] == queries


@pytest.mark.parametrize("question", ENGLISH_SINGLE_HOP)
def test_english_single_hop_shapes_stay_one_step(question: str) -> None:
    assert chain_steps(question) == []


@pytest.mark.parametrize(("question", "queries"), CHAINS_IN_REMAINDER)
def test_a_remainder_splits_again(question: str, queries: list[str]) -> None:
    assert [s.query for s in chain_steps(question)] == queries


@pytest.mark.parametrize(("question", "queries"), CHAINS)
def test_chain_questions_become_steps(question: str, queries: list[str]) -> None:
    steps = chain_steps(question)
    assert [s.query for s in steps] == queries
    assert [s.id for s in steps] == [f"s{i}" for i in range(1, len(queries) + 1)]
    assert may_chain(question)


SINGLE_HOP = [
    "연매출 10억 원 이상인 기업의 세율은?",  # a state, not an event
    "코로나19에 감염된 사람의 격리 기간은?",  # a passive on a person
    "새로 설립된 회사의 법인세율은?",  # a passive, no object
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
    "윤서연 팀장의 고향은?",  # a person's title, not a role of a named thing
    "하드웨어팀 팀장은 누구이며 그 팀은 무엇을 설계하나요?",  # the role's name is asked
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


@pytest.mark.parametrize(
    ("question", "queries"),
    [
        (
            "시리즈 C에 50억 원을 투자한 회사의 대표는 누구인가요?",
            ["시리즈 C에 50억 원을 투자한 회사", "{{s1.answer}}의 대표는 누구인가요?"],
        ),
        (
            "디자인 공모전에서 금상을 받은 제품의 판매 가격은?",
            ["디자인 공모전에서 금상을 받은 제품", "{{s1.answer}}의 판매 가격은?"],
        ),
    ],
)
def test_a_clause_naming_a_thing_by_an_event_is_a_step(question: str, queries: list[str]) -> None:
    """It names nothing Kiwi knows, but an action done to an object in the past names one
    thing ("…을 투자한 회사의 대표"); a state or a passive does not (SINGLE_HOP)."""
    assert [s.query for s in chain_steps(question)] == queries
