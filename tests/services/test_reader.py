"""The extractive reader: the lead sentence answers (model numbers and entities must match, the
question word sets the answer type), at most two supporting sentences from other passages, no
Markdown or front matter, nothing without evidence, and cross-lingual evidence judged by e5."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planrag.llm.e5 import E5Embedder
from planrag.services.answers import Passage
from planrag.services.reader import Reader, read
from planrag.text.answer_types import answer_type, model_codes, typed_spans


def passage(n: int, content: str, title: str | None = None) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


PRODUCTS = (
    "누리봇 S3는 현재 개발 중이며 2026년 하반기 출시를 목표로 한다. 누리봇 S3의 최대 적재 중량은 "
    "700kg이다. 누리봇 S3의 배터리 운행 시간 목표는 14시간이다."
)
S2 = (
    "누리봇 S2는 2022년 9월에 출시되었다. 누리봇 S2의 최대 적재 중량은 500kg이다. 누리봇 S2는 "
    "배터리로 10시간 연속 운행이 가능하며, 충전에는 90분이 걸린다."
)
COMPANY = (
    "한빛로보틱스는 물류 로봇을 만드는 회사이다. 한빛로보틱스는 2015년 3월에 설립되었다. "
    "한빛로보틱스의 대표이사는 김도윤이다. 한빛로보틱스의 직원 수는 320명이다."
)
INVESTMENT = (
    "푸른벤처스는 한빛로보틱스에 120억 원을 투자했다. 푸른벤처스의 대표는 한지훈이다. "
    "푸른벤처스는 서울 강남구에 본사를 두고 있다."
)


def test_answer_types_follow_the_question_word() -> None:
    cases = {
        "한빛로보틱스의 대표는 누구인가?": "person",
        "Who founded Hanbit Robotics?": "person",
        "한빛로보틱스는 언제 설립되었나?": "date",
        "In what year was the university founded?": "date",
        "푸른벤처스 본사는 어디에 있나?": "place",
        "Where is Bluewave Logistics headquartered?": "place",
        "직원은 몇 명인가?": "number",
        "How many robots will Bluewave deploy?": "number",
        "누리봇 S2 가격은?": "number",
        "누리테크의 대표 제품은 무엇인가?": "thing",
    }
    assert {q: answer_type(q) for q in cases} == cases


def test_how_many_days_is_a_number_and_which_day_a_date() -> None:
    """며칠 asks how many days unless it names a day of the month (몇 월 며칠, 며칠에/까지)."""
    cases = {
        "연차 휴가는 며칠인가요?": "number",
        "며칠 걸리나요?": "number",
        "출시일은 몇 월 며칠인가요?": "date",
        "신청은 며칠까지인가요?": "date",
    }
    assert {q: answer_type(q) for q in cases} == cases
    policy = (
        "한빛로보틱스는 2025년 1월 1일부터 개정된 인사 규정을 시행한다. 이번 개정은 인사팀장 "
        "배수진이 주도했다. 입사 1년이 지나면 연차 휴가는 15일로 늘어난다."
    )
    reading = read("연차 휴가는 며칠인가요?", [passage(1, policy)])
    assert reading.lead is not None and "15일" in reading.lead.text  # not the date sentence


def test_typed_spans_find_dates_numbers_and_people() -> None:
    dates = [s.text for s in typed_spans("한빛로보틱스는 2015년 3월에 설립되었다.", "date")]
    assert dates == ["2015년 3월"]
    numbers = [s.text for s in typed_spans("누리봇 S2의 최대 적재 중량은 500kg이다.", "number")]
    assert "500kg" in numbers
    people = [s.text for s in typed_spans("푸른벤처스의 대표는 한지훈이다.", "person")]
    assert people == ["한지훈"]  # Kiwi tags it a common noun: the name's shape and place tell
    assert (
        typed_spans("Its chief executive officer is Maria Tan.", "person")[-1].text == "Maria Tan"
    )
    assert not typed_spans("It signed with Bluewave Logistics.", "person")
    assert model_codes("누리봇 S2와 s 3, GPT-4 그리고 누리WMS 3.0") >= {"S2", "S3", "GPT4", "3.0"}


def test_a_model_number_must_match() -> None:
    # S3's paragraph ranks first and holds the same words; the S2 sentence leads.
    reading = read("누리봇 S2 배터리 운행 시간은?", [passage(1, PRODUCTS), passage(2, S2)])
    assert reading.lead is not None and reading.lead.n == 2
    assert reading.lead.text.startswith("누리봇 S2는 배터리로 10시간")
    assert reading.span == "10시간"
    assert "S3" not in reading.text()
    reading = read("누리봇 S3 최대 적재 중량은?", [passage(1, S2), passage(2, PRODUCTS)])
    assert reading.span == "700kg" and reading.lead is not None and reading.lead.n == 2


def test_the_expected_answer_type_picks_the_sentence() -> None:
    passages = [passage(1, COMPANY), passage(2, INVESTMENT)]
    who = read("한빛로보틱스 대표는 누구인가?", passages)
    assert who.span == "김도윤" and who.answer_type == "person"
    when = read("한빛로보틱스는 언제 설립되었나?", passages)
    assert when.lead is not None and when.lead.text == "한빛로보틱스는 2015년 3월에 설립되었다."
    assert when.span == "2015년 3월"
    how_many = read("한빛로보틱스 직원은 몇 명이야?", passages)
    assert how_many.span == "320명"
    # The question's entity decides between two "대표" sentences.
    other = read("푸른벤처스의 대표는 누구야?", passages)
    assert other.span == "한지훈" and other.lead is not None and other.lead.n == 2
    assert other.text().startswith("한지훈 — 푸른벤처스의 대표는 한지훈이다. [2]")  # the name leads


def test_support_comes_from_other_passages_and_is_cited() -> None:
    passages = [passage(1, COMPANY), passage(2, INVESTMENT), passage(3, COMPANY + " 끝.")]
    reading = read("한빛로보틱스 설립과 투자 유치", passages)
    assert reading.lead is not None
    assert len(reading.support) <= 2
    cited = [reading.lead.n, *(s.n for s in reading.support)]
    assert len(cited) == len(set(cited))  # one sentence per passage
    assert reading.support and reading.support[0].n == 2  # 투자 is only in passage 2
    for sentence in [reading.lead, *reading.support]:
        assert f"{sentence.text} [{sentence.n}]" in reading.text()


def test_front_matter_headings_and_markdown_never_reach_the_answer() -> None:
    content = (
        "---\ntitle: 회사 소개\nauthor: 홍보팀\n---\n# 한빛로보틱스\n\n## 대표\n\n"
        "**한빛로보틱스**의 대표이사는 [김도윤](https://example.com)이다.\n"
    )
    text = read("한빛로보틱스 대표는 누구?", [passage(1, content)]).text()
    assert text == "김도윤 — 한빛로보틱스의 대표이사는 김도윤이다. [1]"


def test_nothing_is_read_without_evidence() -> None:
    reading = read("고양이 사료 가격 알려줘", [passage(1, COMPANY)])
    assert not reading.found and reading.text() == "" and reading.evidence == []
    assert Reader(floor=0.0).read("고양이", [passage(1, COMPANY)]).found


def test_evidence_finds_a_term_kiwi_reads_differently_in_the_passage() -> None:
    # Kiwi reads "내선 2040으로" as 내 + 서 + ㄴ + 2040: the question's 내선 is looked for again
    # with the question's terms given to Kiwi as words (3 of 인사, 규정, 문, 내선, 번호 held).
    hr = "개정된 규정에 대한 문의는 인사팀 내선 2040으로 하면 된다. 재택근무는 주 2회까지 허용된다."
    reading = read("인사 규정 문의 내선 번호는?", [passage(1, hr)])
    assert reading.found and reading.span == "2040"
    assert not read("인사 규정 문의 내선 번호는?", [passage(1, PRODUCTS)]).found


def test_a_modal_word_is_no_content_term() -> None:
    # "가능한가" says "can", like English "can" (a stop word): the passage answering with other
    # words for the rest (주 2회 ↔ 일주일에 몇 번) holds 재택근무, half the question's terms.
    hr = "재택근무는 주 2회까지 허용된다. 건강검진은 매년 10월에 실시한다."
    reading = read("재택근무는 일주일에 몇 번까지 가능한가?", [passage(1, hr)])
    assert reading.found and reading.span == "2회"


@pytest.fixture(scope="module")
def e5() -> Iterator[E5Embedder]:
    yield E5Embedder(1)


def test_cross_lingual_evidence_is_judged_by_e5(e5: E5Embedder) -> None:
    korean = [passage(1, COMPANY), passage(2, INVESTMENT)]
    question = "Who is the CEO of Hanbit Robotics?"
    assert not read(question, korean).found  # no word in common: lexically nothing
    reading = read(question, korean, embedder=e5)
    assert reading.found and 1 in reading.evidence
    assert not read("How do I bake sourdough bread?", korean, embedder=e5).found
    english = [passage(1, "Bluewave Logistics is headquartered in Singapore. Its chief executive "
                          "officer is Maria Tan.")]  # fmt: skip
    answered = read("Bluewave Logistics의 대표는 누구인가?", english, embedder=e5)
    assert answered.found and answered.span == "Maria Tan"


def test_english_answer_types_follow_the_noun_asked_about() -> None:
    cases = {
        "Which actor does American Beauty and American Beauty have in common?": "person",
        "In what city did the tenor star in a film?": "place",
        "What was the 2010 population of the town where the mountain is?": "number",
        "In what year was the university where he taught founded?": "date",
        # a relative "who" asks nothing: the question asks what the novel is
        "It was written by the author who was best known for what 1969 satire novel?": "thing",
    }
    assert {q: answer_type(q) for q in cases} == cases


MUNSONVILLE = "Munsonville is an unincorporated community in the town of Nelson in Cheshire County."
NELSON = (
    "Nelson is a town in Cheshire County, New Hampshire. The population was 729 at the 2010 census."
)
CHESHIRE = "Cheshire County is a county in New Hampshire. Its population was 77,117 in 2010."


def test_a_passage_one_hop_from_the_question_entity_answers() -> None:
    # The question names Munsonville; its passage names Nelson, whose passage holds the answer.
    found = [
        passage(1, MUNSONVILLE, "Munsonville, New Hampshire"),
        passage(2, CHESHIRE, "Cheshire County"),
        passage(3, NELSON, "Nelson"),
    ]
    reading = read("What is the population of the town that Munsonville is in?", found)
    assert reading.lead is not None and reading.lead.n == 3 and "729" in reading.lead.text


def test_a_what_question_leads_with_a_sentence_naming_something_new() -> None:
    found = [
        passage(1, "The album about the ghosts of the river was recorded in a small studio."),
        passage(2, "The album about the ghosts of the river was recorded by Blue Heron."),
    ]
    reading = read("Which band recorded the album about the ghosts of the river?", found)
    assert reading.lead is not None and reading.lead.n == 2 and reading.span == "Blue Heron"
