# ruff: noqa: E501
"""The user's everyday word for the document's (issue 24, session 15): the evidence check finds
the passage, the reader leads with the sentence writing it, and an absent detail is not one the
document writes another way. Also: a day that recurs answers 언제, and a 몇-counter question
gives no credit to numbers counted in other units, and a question in the past reads what
happened, not what is planned."""

from __future__ import annotations

import pytest

from planrag.services.answers import Passage
from planrag.services.missing_details import missing_detail
from planrag.services.reader import Reader

HR = """# 2026년 하반기 인사 공지

## 급여와 근무

급여일은 매월 25일이며, 25일이 휴일이면 그 전날 지급한다. 사무직 근무 시간은 오전 9시부터 오후 6시까지이다.
여름휴가는 7월부터 9월 사이에 최대 5일 연속으로 쓸 수 있다.

## 연구소

연구소에는 박사후연구원 송하린 박사와 석사 연구원 2명이 있다.
"""

GYM = """# 푸른숲 스포츠센터 이용 안내

푸른숲 스포츠센터는 평일 오전 6시부터 오후 10시까지 운영한다. 정기 휴관일은 매월 둘째 월요일이다.
센터 앞에는 도시철도 1호선 숲속역이 있다. 주차 요금은 1시간 1,000원이다.
센터에는 러닝머신 40대가 있으며, 수영장은 만 7세 이상만 이용할 수 있다.

## 회원권

| 구분 | 요금 |
| --- | --- |
| 1일권 | 8,000원 |
| 3개월권 | 180,000원 |
"""


def _passage(text: str, n: int = 1) -> Passage:
    return Passage(
        n=n,
        chunk_id=f"c{n}",
        doc_id=f"d{n}.md",
        knowledge_base="kb",
        score=1.0 / n,
        title=text.splitlines()[0].lstrip("# "),
        content=text,
    )


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader()


@pytest.mark.parametrize(
    ("question", "text", "answer"),
    [
        # Before: no question term was held ("월급날", "포닥"): "not found" over the answer.
        ("월급날 언제야?", HR, "매월 25일"),
        ("포닥 누구예요?", HR, "송하린"),
        ("센터 근처 지하철역 어디야?", GYM, "숲속역"),
        ("스포츠센터 하루권 얼마예요?", GYM, "8,000원"),
        ("스포츠센터 주차비 얼마야?", GYM, "1,000원"),
        # the document's 휴관일 for "쉬는 날", a recurring day as the date asked for
        ("스포츠센터 쉬는 날 언제야?", GYM, "둘째 월요일"),
    ],
)
def test_the_everyday_word_finds_the_documents_sentence(
    reader: Reader, question: str, text: str, answer: str
) -> None:
    assert reader.evidence(question, [_passage(text)]) == [1]
    reading = reader.read(question, [_passage(text)])
    assert reading.lead is not None and answer in reading.lead.text


def test_an_age_question_passes_over_counts_of_machines(reader: Reader) -> None:
    # Before: "러닝머신 40대" (a number, in 대) led "몇 살" as well as "만 7세".
    reading = reader.read("수영장 몇 살부터 돼?", [_passage(GYM)])
    assert reading.lead is not None and "만 7세" in reading.lead.text


def test_a_detail_written_another_way_is_not_missing(reader: Reader) -> None:
    # 월급 is 급여 here: no "월급은 문서에 없습니다" before the pay day.
    assert missing_detail(reader, "푸른숲 월급 지급 날짜 알려줘", [_passage(HR)]) is None


def test_words_of_another_thing_are_no_synonym(reader: Reader) -> None:
    # 날 alone is no holiday, and 운영 (who runs it) is not 영업: nothing new is held.
    assert reader.evidence("하늘공원 오픈한 날 언제야?", [_passage(HR)]) == []


MINUTES = """# 제14차 운영위원회 회의록

- 일시: 2026년 10월 14일(수) 오후 3시~5시
- 장소: 본관 3층 회의실

위원 9명이 참석했다. 다음 회의(제15차)는 2026년 12월 9일에 열린다.
"""


def test_a_question_in_the_past_reads_what_happened_not_the_plan(reader: Reader) -> None:
    # Before: "다음 회의 … 12월 9일에 열린다" led "언제 했어?" (it shares 회의 more closely).
    past = reader.read("운영위원회 회의 언제 했어?", [_passage(MINUTES)])
    assert past.lead is not None and "10월 14일" in past.lead.text
    ahead = reader.read("다음 회의 언제 열려?", [_passage(MINUTES)])
    assert ahead.lead is not None and "12월 9일" in ahead.lead.text


INSURANCE = """# 여행자보험 안내

보험 기간은 출발일부터 최대 90일까지이며, 가입은 2026년 4월 1일 기준 요율로 한다.
보험금은 사고일로부터 3년 이내에 청구해야 합니다. 고객센터는 평일 09:00~18:00에 운영한다.
"""


def test_how_many_days_asks_a_count_of_days(reader: Reader) -> None:
    reading = reader.read("여행 최대 며칠까지 보장돼?", [_passage(INSURANCE)])
    assert reading.lead is not None and "90일" in reading.lead.text


def test_until_when_reads_a_deadline_counted_from_an_event(reader: Reader) -> None:
    # Before: no date span in "3년 이내": the opening hours' sentence led.
    reading = reader.read("보험금 청구 언제까지 해야돼요", [_passage(INSURANCE)])
    assert reading.lead is not None and "3년 이내" in reading.lead.text
