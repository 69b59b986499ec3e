"""Everyday words for the documents' words: what a text is credited with, and what it is not."""

from __future__ import annotations

import pytest

from planrag.text.korean_synonyms import add_synonyms_held, synonym_patterns


def credited(question: str, terms: set[str], text: str) -> set[str]:
    held: list[set[str]] = [set()]
    add_synonyms_held(synonym_patterns(question, terms), [text], held)
    return held[0]


@pytest.mark.parametrize(
    ("question", "term", "text"),
    [
        ("포닥 누구예요?", "포닥", "- 박사후연구원: 강민재 박사"),
        ("포닥 누구예요?", "포닥", "박사후 연구원은 강민재 박사다."),  # spaced
        ("DK-200 무게 얼마야?", "무게", "| 중량 | 2kg | 5kg |"),
        ("본원 주차 공짜야?", "공짜", "2시간까지 무료로 주차할 수 있다."),
        ("와이파이 비번 뭐야?", "와이파이", "무선인터넷 암호는 카운터에 있습니다."),
        ("와이파이 돼?", "와이파이", "전 객실에서 Wi-Fi를 쓸 수 있다."),  # Latin, any case
        ("다미식품 사장 누구야?", "사장", "현재 대표이사는 정태호 대표이다."),
        # a compound kept whole, each part written its own way
        ("월급날 언제야?", "월급날", "급여일은 매월 25일이며"),
        ("월급날 언제야?", "월급날", "급여 지급일은 매월 25일이다."),
        ("택배비 얼마야?", "택배비", "3만 원 이상 구매하면 배송비가 무료이다."),
        ("주차비 얼마예요?", "주차비", "주차 요금은 10분에 500원이다."),
        ("전기세 누가 내?", "전기세", "전기요금은 입주자가 부담한다."),
        ("동부분원 근처 지하철역 어디야?", "지하철역", "앞에는 서린 지하철 2호선 동부역이 있다."),
        # phrases whose noun the document does not write
        ("강변분관 쉬는 날 언제야?", "날", "정기 휴관일은 강변분관이 매주 화요일이다."),
        ("씽씽 하루권 얼마예요?", "하루", "| 1일권 | 2,000원 | 120분 |"),
        ("문 여는 시간 알려줘", "시간", "운영 시간은 오전 10시부터다."),
        ("비오면 공연 어디서 해?", "비", "우천 시에는 체육관에서 공연한다."),
        # session 15, from the tune half of ko_fresh2
        ("관리소장 누구야?", "관리소장", "관리사무소장: 정태민"),
        ("점심값 얼마 나와요?", "점심값", "식대는 월 20만 원을 지원한다."),
        ("한달권도 홀딩되나요?", "홀딩", "1개월권은 휴회할 수 없습니다."),
        ("마감 세일 몇 프로야?", "세일", "영업 종료 1시간 전에는 30% 할인한다."),
        ("든든형 병원비 얼마까지 나와?", "병원비", "해외 의료비 한도는 3,000만 원이다."),
        ("월급날 언제야?", "월급날", "급여는 매월 25일에 지급한다."),  # a day's stem alone
    ],
)
def test_a_text_writing_the_term_another_way_holds_it(question: str, term: str, text: str) -> None:
    assert credited(question, {term}, text) == {term}


@pytest.mark.parametrize(
    ("question", "term", "text"),
    [
        # a synonym of one syllable is never matched alone: 폰 is not in 폰트
        ("폰 번호 뭐야?", "폰", "본문 폰트는 10포인트이다."),
        # one-way entries: a question about 운영 is not about 영업 (a service's operator)
        ("씽씽 운영하는 곳이 어디야?", "운영", "영업팀은 3층에 있다."),
        ("대표 누구야?", "대표", "사장님 말씀이 있었다."),
        # "날" alone is no holiday: only the phrase "쉬는 날" asks for one
        ("설립한 날 언제야?", "날", "정기 휴관일은 매주 화요일이다."),
        # a station needs its line's name or a station named
        ("동부분원 근처 지하철역 어디야?", "지하철역", "동부분원 앞에는 버스 정류장이 있다."),
        # a head noun alone does not make the compound: the stem must be written
        ("택배비 얼마야?", "택배비", "관리비는 매월 10일에 낸다."),
    ],
)
def test_a_text_not_writing_it_does_not_hold_it(question: str, term: str, text: str) -> None:
    assert credited(question, {term}, text) == set()


def test_english_questions_are_matched_as_written() -> None:
    assert synonym_patterns("Who is the CEO of Hanbit?", {"ceo", "hanbit"}) == {}


def test_a_term_already_held_stays_and_others_are_untouched() -> None:
    held = [{"무게"}, {"dk"}]
    patterns = synonym_patterns("DK-200 무게 얼마야?", {"무게", "dk"})
    add_synonyms_held(patterns, ["무게는 2kg", "| 중량 | 2kg |"], held)
    assert held == [{"무게"}, {"dk", "무게"}]


def test_a_compound_with_no_other_way_of_writing_matches_only_itself() -> None:
    # 지사장 has no group: its one alternative is itself, never an empty pattern (which
    # matched every sentence: "총장은 배수현이다" held 지사장).
    question = "누리테크 지사장 누구야?"
    assert credited(question, {"지사장"}, "부경해양대학교의 총장은 배수현이다.") == set()
    assert credited(question, {"지사장"}, "싱가포르 지사 장은 림웨이밍이다.") == {"지사장"}
