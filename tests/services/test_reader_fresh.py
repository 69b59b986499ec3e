# ruff: noqa: E501
"""Korean documents nobody tuned on (issue 24, session 14: tests/fixtures/ko_fresh): the
counter a 몇 asks in ("몇 살" wants "16세", "몇 시" a time of day), a number inside a model
code ("DK-250") is no amount, a code the question writes without its hyphen ("DK250"), city
names shaped like a person's ("나주시"), and "앱 이름" asking a thing's name, not a person's."""

from __future__ import annotations

import pytest

from planrag.services.answers import Passage
from planrag.services.reader import Reader
from planrag.text.answer_types import typed_spans
from planrag.text.korean_kinds import asked_unit, carries_unit, refined_kind


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


BIKES = """# 공공자전거 자주 묻는 질문

## 몇 살부터 탈 수 있나요?

만 13세 이상이면 회원 가입 후 이용할 수 있습니다.

## 전기자전거도 있나요?

네. 전기자전거 "씽씽E"가 300대 있으며 1시간권 요금은 2,000원입니다. 씽씽E는 만 16세 이상만 탈 수 있습니다.
"""

CLINIC = """# 서린시립병원 이용 안내

서린시립병원은 서린시가 1998년 4월에 문을 연 공공 종합병원이다. 현재 병원장은 내과 전문의 한정민 원장이며, 2022년 1월에 취임했다.

동부분원은 2019년 9월 2일에 개원했다. 동부분원의 병상은 80개이고, 소아청소년과와 재활의학과 진료를 주로 맡는다.

## 진료 시간

| 구분 | 평일 | 토요일 |
| --- | --- | --- |
| 본원 외래 | 08:30~17:30 | 08:30~12:30 |
| 동부분원 외래 | 09:00~18:00 | 09:00~13:00 |

## 예약

진료 예약은 대표전화 031-555-7000 또는 병원 앱 "서린케어"로 할 수 있다.
"""

KIMCHI = """# 포기김치 제품 안내

| 항목 | 포기김치 DK-200 | 포기김치 DK-250 |
| --- | --- | --- |
| 중량 | 2kg | 5kg |
| 출시 | 2021년 5월 | 2024년 11월 |

DK-250은 식당과 단체급식용으로 만든 대용량 제품이며, 일반 소비자용은 DK-200이다.
"""


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader()


def test_the_counter_a_question_asks_in() -> None:
    assert asked_unit("전기자전거 몇살부터 돼?") == "살"  # spaced or not
    assert asked_unit("석사 몇 명 뽑아?") == "명"
    assert asked_unit("언제 나왔어?") is None
    assert carries_unit("16세", "살") and not carries_unit("300대", "살")
    assert carries_unit("18:00", "시") and not carries_unit("24시간", "시")
    assert refined_kind("동부분원 몇 시에 끝나요?", "number") == "date"
    assert refined_kind("몇 시간 걸려?", "number") == "number"


def test_what_time_asks_a_time_of_day(reader: Reader) -> None:
    # Before: "몇 시" wanted an amount, and a time of day is a date span: "병상은 80개" led.
    reading = reader.read("동부분원 평일 진료 몇 시에 끝나요?", [_passage(CLINIC)])
    assert reading.lead is not None and "18:00" in reading.lead.text


def test_a_number_inside_a_model_code_is_no_amount() -> None:
    spans = [s.text for s in typed_spans("DK-250은 대용량 제품이며 무게는 5kg이다.", "number")]
    assert spans == ["5kg"]
    assert [s.text for s in typed_spans("PC 30대가 있다.", "number")] == ["30대"]


def test_a_code_written_without_its_hyphen_is_evidence(reader: Reader) -> None:
    # Before: "DK250" (one Kiwi term) was held by no passage writing "DK-250": "not found".
    assert reader.evidence("DK250 언제 나왔어?", [_passage(KIMCHI)]) == [1]
    reading = reader.read("DK250 언제 나왔어?", [_passage(KIMCHI)])
    assert reading.lead is not None and "2024년 11월" in reading.lead.text


def test_a_city_is_no_person() -> None:
    assert not typed_spans("다미식품은 전라남도 나주시에 본사를 둔 회사이다.", "person")
    found = typed_spans(
        "1987년에 최순옥 창업주가 세웠고, 현재 대표이사는 정태호 대표이다.", "person"
    )
    assert [s.text for s in found] == ["최순옥", "정태호"]  # 현재 (now) is no name


def test_who_heads_it_reads_the_person_not_the_city(reader: Reader) -> None:
    # Before: "서린시" passed for a person's name and the founding sentence led.
    reading = reader.read("서린시립병원 병원장 누구야?", [_passage(CLINIC)])
    assert reading.lead is not None and "한정민" in reading.lead.text


def test_a_things_name_is_no_persons() -> None:
    assert refined_kind("서린시립병원 앱 이름이 뭐야?", "person") == "thing"
    assert refined_kind("병원장 이름이 뭐야?", "person") == "person"


def test_a_count_is_not_the_last_piece_of_an_amount(reader: Reader) -> None:
    text = "# 현장 시험\n\n로봇들은 하루 평균 1만 2천 건의 상자를 옮겼다. 시험에는 로봇 12대가 쓰였다.\n"
    reading = reader.read("로봇들은 하루 평균 몇 건의 상자를 옮겼나?", [_passage(text)])
    assert reading.lead is not None and "1만 2천 건" in reading.lead.text
    assert reading.headline != "2천 건"
