"""Korean questions as users ask them (issue 24, session 13): a role the answer sentence leaves
to the sentence before it ("CTO는 어느 학교 나왔어?" — "박지은은 … CTO이다. 박지은은 서울대학교 …
졸업했고"), the kind an 어느/무슨 question asks which one of (a 학교: 서울대학교), and two
questions asked in one breath ("누리테크 대표는 누구고 전에 어디서 일했어?"), each answered and
cited."""

from __future__ import annotations

import pytest

from planrag.services.extractive import Extractor
from planrag.services.reader import Reader
from planrag.text.answer_slots import asked_kind, named_kind
from planrag.text.answer_types import typed_spans
from planrag.text.joined_questions import joined_questions
from planrag.text.korean import opening_subject
from planrag.text.korean_terms import add_names_held
from tests.services.ko_passages import passages


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader()


def test_the_kind_a_determiner_asks_which_one_of() -> None:
    assert asked_kind("CTO는 어느 학교 나왔어?") == "학교"
    assert asked_kind("무슨 상 받았어?") == "상"
    assert asked_kind("CTO는 어디 학교 나왔어?") is None  # 어디 is no determiner
    assert named_kind("서울대학교", "학교") and named_kind("한국산업은행", "은행")
    assert not named_kind("학교", "학교") and not named_kind("인상", "상")


def test_a_sentence_opening_with_its_topic() -> None:
    assert opening_subject("박지은은 서울대학교 전기공학부를 졸업했다.") == "박지은"
    assert opening_subject("김도윤 대표는 한결대학교 기계공학과를 졸업했다.") == "김도윤"
    assert opening_subject("2017년에 한빛로보틱스에 합류했다.") is None
    assert opening_subject("한빛로보틱스의 대표이사는 김도윤이다.") is None  # 의: a modifier


def test_a_role_named_in_the_sentence_before_answers_which_school(reader: Reader) -> None:
    # The answer sentence names neither CTO nor 학교; the sentence before names 박지은 the CTO,
    # and 서울대학교 is a 학교. Before: "박지은은 한빛로보틱스의 최고기술책임자(CTO)이다." led.
    reading = reader.read("CTO는 어느 학교 나왔어?", passages("hanbit_company.md", "org_chart.md"))
    assert reading.lead is not None and "서울대학교" in reading.lead.text
    assert reading.headline == "서울대학교"


def test_the_person_of_the_sentence_before_is_not_taken_for_another(reader: Reader) -> None:
    # 김도윤's school follows "대표이사는 김도윤이다": the CEO's school, not the CTO's.
    reading = reader.read("대표이사는 어느 학교 나왔어?", passages("hanbit_company.md"))
    assert reading.lead is not None and "한결대학교" in reading.lead.text


def test_two_questions_in_one_are_split() -> None:
    joined = joined_questions("누리테크 대표는 누구고 전에 어디서 일했어?")
    assert joined is not None
    assert joined.first == "누리테크 대표는 누구"
    assert joined.second == "누리테크 대표는 전에 어디서 일했어?"
    assert joined.asks_who
    price = joined_questions("누리봇 S2 가격은 얼마고 언제 나왔어?")
    assert price is not None and price.second == "누리봇 S2 언제 나왔어?"  # not 가격's date
    assert joined_questions("누리테크 대표는 누구야?") is None
    assert joined_questions("어디에 본사를 두고 있나요?") is None  # 두고 있다: one clause


def test_two_questions_in_one_get_both_answers_each_cited() -> None:
    found = passages("nuritech.md", "hanbit_company.md", "people_profiles.md")
    answer = Extractor().read("누리테크 대표는 누구고 전에 어디서 일했어?", found).text()
    assert answer.startswith("이서준 — 누리테크의 대표는 이서준이다. [1]")
    # the second answer, asked about 이서준, from the profile page, cited
    assert "이서준은 누리테크를 창업하기 전 한빛로보틱스에서" in answer
    assert answer.rstrip().endswith("[3]")


def test_the_name_a_role_is_equated_with_is_a_person() -> None:
    # 림 is no common family name and the name has four syllables: the role says it is a person
    found = typed_spans("싱가포르 지사의 지사장은 림웨이밍이다.", "person")
    assert [s.text for s in found] == ["림웨이밍"]
    assert not typed_spans("이천 공장은 2018년에 가동을 시작했다.", "person")


def test_a_name_kiwi_glues_to_its_copula_is_still_a_name() -> None:
    # Kiwi reads "오세영이다" as 오세영이 + 이다
    assert [s.text for s in typed_spans("동해캐피털의 대표는 오세영이다.", "person")] == ["오세영"]


def test_who_heads_the_branch_leads_with_the_branch_head(reader: Reader) -> None:
    reading = reader.read("누리테크 싱가포르 지사장 누구야?", passages("places.md", "nuritech.md"))
    assert reading.lead is not None and "림웨이밍" in reading.lead.text


def test_a_word_and_the_compound_it_begins_are_one_term(reader: Reader) -> None:
    # "고객" is the first noun of "고객사" (Kiwi's second reading), "매출" of "매출액"
    reading = reader.read("한빛로보틱스 제일 큰 고객은 어디야?", passages("hanbit_company.md"))
    assert reading.lead is not None and "대한물류이다" in reading.lead.text
    sales = reader.read("한빛로보틱스 2024년 매출액 알려줘", passages("hanbit_company.md"))
    assert sales.lead is not None and "850억 원" in sales.lead.text


def test_a_name_kiwi_reads_apart_in_the_sentence_is_the_questions_name(reader: Reader) -> None:
    # "대한물류" is one noun in the question; in "대한물류의 대표는" Kiwi reads 대한 + 물류
    q = reader.question("대한물류 사장님 성함이 어떻게 돼?")
    terms = reader.sentence_terms(["대한물류의 대표는 황보석진이다."], q.compounds)
    assert "대한물류" not in terms[0]
    add_names_held(q.compounds, terms)
    assert "대한물류" in terms[0]


def test_the_asked_verbs_noun_is_not_the_compound_it_begins(reader: Reader) -> None:
    # "무엇을 연구하나" asks for what is researched: 연구소 (an institute) is not 연구
    reading = reader.read("해양로봇연구소는 무엇을 연구하나?", passages("hangyeol_university.md"))
    assert reading.lead is not None and "수중 드론" in reading.lead.text
