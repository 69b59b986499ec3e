"""Answer kinds the reader missed, found by asking our Korean fixtures as a user would: a time of
day answers "언제까지" ("전날 오후 6시까지"), an organisation answers "누가 …했" ("한국산업은행이
주도했다"), a funding round's letter tells its sentences apart like a model number ("시리즈 B"
is not "시리즈 C"), and a date's month is no number ("2024년 11월" holds no "11" amount)."""

from __future__ import annotations

import pytest

from planrag.services.answers import Passage
from planrag.services.extractive import Extractor
from planrag.services.reader import Reader
from planrag.text.answer_slots import asked_particle, particles_after
from planrag.text.answer_types import (
    agents,
    answer_type,
    asked_verb,
    asks_for_agent,
    model_codes,
    typed_spans,
)
from tests.services.ko_passages import passages


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader()


def test_a_time_of_day_is_a_when_answer() -> None:
    spans = typed_spans("재택근무를 하려면 전날 오후 6시까지 팀장의 승인을 받아야 한다.", "date")
    assert [s.text for s in spans] == ["전날 오후 6시"]
    assert [s.text for s in typed_spans("The store closes at 6 p.m. or 18:00.", "date")] == [
        "6 p.m.",
        "18:00",
    ]
    assert not typed_spans("누리봇 S2는 배터리로 10시간 연속 운행이 가능하다.", "date")  # hours


def test_until_when_leads_with_the_deadline(reader: Reader) -> None:
    reading = reader.read("재택근무 신청은 언제까지 해야 하나요?", passages("hr_policy.md"))
    assert reading.lead is not None and "오후 6시" in reading.lead.text
    assert reading.span == "전날 오후 6시"


def test_who_did_it_may_be_an_organisation() -> None:
    assert asks_for_agent("시리즈 C 투자는 누가 주도했어?")
    assert asks_for_agent("누가 투자했나요?")
    assert not asks_for_agent("누가 대표야?")
    assert not asks_for_agent("한빛로보틱스 대표는 누구인가?")
    found = agents("푸른벤처스는 120억 원을, 나머지 30억 원은 동해캐피털이 투자했다.")
    assert [s.text for s in found] == ["푸른벤처스", "동해캐피털"]
    named = agents("푸른벤처스의 대표는 한지훈이다.")
    assert [s.text for s in named] == ["푸른벤처스"]  # the person is no organisation


def test_a_funding_rounds_letter_is_a_code() -> None:
    assert model_codes("시리즈 C 투자는 누가 주도했어?") == {"SERIES-C"}
    assert model_codes("the Series C round") == {"SERIES-C"}
    assert model_codes("시리즈 B") != model_codes("시리즈 C")


def test_who_led_the_round_is_the_bank_that_led_it(reader: Reader) -> None:
    docs = passages("investment.md", "hanbit_company.md")
    c = reader.read("시리즈 C 투자는 누가 주도했어?", docs)
    assert c.lead is not None and c.lead.text == "시리즈 C는 한국산업은행이 주도했다."
    assert c.span == "한국산업은행"
    b = reader.read("시리즈 B 투자는 누가 주도했나요?", docs)
    assert b.lead is not None and "푸른벤처스" in b.lead.text and "한국산업은행" not in b.lead.text
    person = reader.read("누리봇 S2 개발은 누가 총괄했나요?", passages("nuribot_products.md"))
    assert person.span == "최민호"  # a person still answers where the sentence names one


def test_a_dates_month_is_no_amount(reader: Reader) -> None:
    spans = typed_spans("한빛로보틱스는 2024년 11월 시리즈 C 투자로 400억 원을 유치했다.", "number")
    assert [s.text for s in spans] == ["400억 원"]
    reading = reader.read("시리즈 C 투자 금액은 얼마야?", passages("investment.md"))
    assert reading.span == "400억 원"


def test_the_asked_attribute_is_the_last_one_named() -> None:
    # "대표" names who 한지훈 is; "고향" is what is asked.
    assert answer_type("한지훈 대표 고향은?") == "place"
    assert answer_type("푸른벤처스 대표는?") == "person"
    assert answer_type("누리봇 S2 개발 총괄 책임자는?") == "person"
    assert answer_type("한빛로보틱스 대표 본사 위치는?") == "place"


def test_a_hometown_question_leads_with_the_hometown(reader: Reader) -> None:
    reading = reader.read("한지훈 대표 고향은?", passages("people_profiles.md", "investment.md"))
    assert reading.lead is not None and "울산" in reading.lead.text


def test_where_did_they_work_fills_the_eseo_slot(reader: Reader) -> None:
    # 어디서 is 어디 + 서, short for 에서: "새벽기획에서 … 일한" fills it, "마케팅팀의 팀장은
    # 강하늘이다" does not.
    assert asked_particle("강하늘 팀장은 전에 어디서 일했어?") == "에서"
    docs = passages("org_chart.md", "people_profiles.md")
    reading = reader.read("강하늘 팀장은 전에 어디서 일했어?", docs)
    assert reading.lead is not None and "새벽기획" in reading.lead.text


def test_a_slot_after_a_title_belongs_to_the_name_before_it(reader: Reader) -> None:
    # "박지은 CTO에게": the particle ends the noun phrase the name opens.
    sentence = "윤서연 팀장은 박지은 CTO에게 보고한다."
    assert particles_after(sentence).get(sentence.index("박지은") + 3) == "에게"
    reading = reader.read("자율주행팀장은 누구에게 보고하나요?", passages("org_chart.md"))
    assert reading.lead is not None and reading.lead.text == sentence
    assert reading.span == "박지은"


def test_an_english_amount_keeps_its_scale_and_currency() -> None:
    spans = typed_spans("The contract is worth 9 million US dollars.", "number")
    assert [s.text for s in spans] == ["9 million US dollars"]
    assert [s.text for s in typed_spans("It cost 2.5 billion euros in 2019.", "number")] == [
        "2.5 billion euros"
    ]


def test_a_score_is_a_number() -> None:
    assert answer_type("What score did the plant get in the safety audit?") == "number"
    assert answer_type("이천 공장 안전 점검 점수는?") == "number"


def test_a_region_is_no_persons_name() -> None:
    sentence = "The Jurong warehouse is the largest cold-storage warehouse in Southeast Asia."
    assert not typed_spans(sentence, "person")
    assert [s.text for s in typed_spans("Its manager is David Lim.", "person")] == ["David Lim"]


def test_who_manages_leads_with_the_manager(reader: Reader) -> None:
    reading = reader.read("Who manages the Jurong warehouse?", passages("en_partner_report.md"))
    assert reading.lead is not None and reading.lead.text == "Its manager is David Lim."


def test_a_recurring_period_answers_when(reader: Reader) -> None:
    sentence = "이번 개정으로 근속 5년마다 안식 휴가 20일이 주어진다."
    assert [s.text for s in typed_spans(sentence, "date")] == ["근속 5년마다"]
    assert [s.text for s in typed_spans(sentence, "number")] == ["5년", "20일"]  # still amounts
    reading = reader.read("안식 휴가는 언제 받아?", passages("hr_policy.md"))
    assert reading.lead is not None and "안식 휴가" in reading.lead.text


def test_a_korean_questions_verbal_noun_is_what_it_asks(reader: Reader) -> None:
    assert asked_verb("자율주행팀장은 누구에게 보고하나요?") == "보고하다"
    assert asked_verb("푸른벤처스는 어디에 투자했나요?") == "투자하다"
    assert asked_verb("안식 휴가는 언제 받아?") is None  # no verbal noun
    reading = reader.read("자율주행팀장은 누구에게 보고하나요?", passages("org_chart.md"))
    assert reading.lead is not None
    assert reading.lead.text == "윤서연 팀장은 박지은 CTO에게 보고한다."


def test_no_second_hop_to_a_sentence_about_the_asked_person() -> None:
    # "마케팅팀의 팀장은 강하늘이다" names 강하늘 again: no second hop, the first reading stands.
    docs = passages("people_profiles.md", "org_chart.md")
    reading = Extractor().read("강하늘 팀장은 전에 어디서 일했어?", docs)
    assert reading.lead is not None and "새벽기획" in reading.lead.text


def test_a_verbal_noun_modifying_a_noun_is_not_the_asked_verb() -> None:
    assert asked_verb("한빛로보틱스 시리즈 C를 주도한 은행의 본점은 어디에 있나요?") is None
    assert asked_verb("인사 규정 개정을 주도한 사람은 누구인가?") == "주도하다"
    assert asked_verb("시리즈 C 투자는 누가 주도했어?") == "주도하다"
    assert asked_verb("누가 투자했니?") == "투자하다"
    assert asked_verb("어디에 투자했는지 알려줘") == "투자하다"


# A new user's meeting note and team page (not the fixture corpus), asked as a user would.
_NOTE = (
    "평택 물류센터는 2025년 9월까지 안성으로 이전한다. 이전 비용은 약 42억 원으로 추산되며, "
    "이수민 팀장이 이전 TF를 맡는다. 오세진 책임이 보안 점검의 사내 담당자다."
)
_TEAM = (
    "데이터플랫폼팀은 2021년에 만들어졌으며 현재 팀원은 9명이다. 팀장은 한예린이다. 한예린 "
    "팀장은 카이스트에서 전산학 박사 학위를 받았고, 이전에는 네이버에서 검색 품질을 담당했다."
)


def _shown(*texts: str) -> list[Passage]:
    return [
        Passage(n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", score=1.0 / n,
                content=text)
        for n, text in enumerate(texts, 1)
    ]  # fmt: skip


def test_a_name_kiwi_splits_before_a_title_is_a_person(reader: Reader) -> None:
    # Kiwi reads 이수민 as 이/MM 수/NNB 민/NNG; before 팀장 (or a rank such as 책임) the whole
    # word is a person's name.
    spans = typed_spans(
        "이전 비용은 약 42억 원으로 추산되며, 이수민 팀장이 이전 TF를 맡는다.", "person"
    )
    assert [s.text for s in spans] == ["이수민"]
    assert [s.text for s in typed_spans("참석: 정하늘 매니저, 오세진 책임", "person")] == [
        "정하늘",
        "오세진",
    ]
    reading = reader.read("이전 TF 누가 맡아?", _shown(_TEAM, _NOTE))
    assert reading.lead is not None and "이수민" in reading.lead.text


def test_a_relative_time_word_is_no_evidence_term() -> None:
    # "전에" says when against now, not what about: the team page names 한예린 and says where she
    # worked before ("이전에는 네이버에서"), so the evidence check passes and it leads.
    extractor = Extractor(floor=0.5)
    assert extractor.relevant("한예린은 전에 어디서 일했어?", _shown(_TEAM, _NOTE))
    reading = extractor.read("한예린은 전에 어디서 일했어?", _shown(_TEAM, _NOTE))
    assert reading.lead is not None and "네이버" in reading.lead.text


def test_a_compound_kiwi_splits_in_the_question_is_found_whole() -> None:
    # Kiwi reads "온콜은" as 온 + 콜 and "온콜 당번은" as 온콜: the page that answers passes the
    # evidence check and its sentence leads.
    page = "팀은 매주 화요일 오전 10시에 주간 회의를 한다. 온콜 당번은 일주일 단위로 돌아간다."
    extractor = Extractor(floor=0.5)
    assert extractor.relevant("온콜은 어떻게 돌아가?", _shown(page, _NOTE))
    reading = extractor.read("온콜은 어떻게 돌아가?", _shown(page, _NOTE))
    assert reading.lead is not None and reading.lead.text.startswith("온콜 당번은")


def test_a_sentence_repeating_an_abstract_kind_names_nothing_of_it(reader: Reader) -> None:
    # "어떤 형태로" asks how, not which named 형태: the sentence saying "…의 한 형태" is not a
    # candidate for it, the one describing the meetings is.
    page = (
        "정기 회의는 보통 화상 회의와 대면 회의를 섞어 진행된다. "
        "워크숍은 사내 교육의 한 형태일 뿐, 정기 회의와는 다르다."
    )
    reading = reader.read("정기 회의는 보통 어떤 형태로 진행되나요?", _shown(page))
    assert reading.lead is not None and reading.lead.text.startswith("정기 회의는 보통")
