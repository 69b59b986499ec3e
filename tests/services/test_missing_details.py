"""Absent facts (issue 24): an answer says plainly what the documents do not hold, then what they
do hold, cited; answerable questions are never told their detail is missing. And the slot a
Korean question word stands in ("어디에 투자했나요?" → the name taking 에 with 투자)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planrag.llm.e5 import E5Embedder
from planrag.services.extractive import Extractor
from planrag.services.missing_details import missing_detail
from planrag.text.answer_slots import asked_particle
from tests.services.ko_passages import passages

# The passages /ai/v2/ask showed for "한빛로보틱스의 화성 지사 주소는?" (first five, in order).
COMPANY = ("hanbit_company.md", "places.md", "nuritech.md", "investment.md", "org_chart.md")
BATTERIES = (
    "en_partner_report.md",
    "nuribot_products.md",
    "org_chart.md",
    "en_safety_audit.md",
    "hanbit_company.md",
)


@pytest.fixture(scope="module")
def extractor() -> Iterator[Extractor]:
    yield Extractor((), 0.5, E5Embedder(1))


def test_a_branch_no_document_names_is_said_to_be_absent_before_the_sites_they_hold(
    extractor: Extractor,
) -> None:
    answer = extractor.read("한빛로보틱스의 화성 지사 주소는?", passages(*COMPANY)).text()
    assert answer.startswith("화성 지사는 문서에 없습니다.")
    assert "대전 유성구에 본사" in answer and "[1]" in answer  # what they hold, cited


def test_a_supplier_no_sentence_states_is_said_to_be_absent_before_the_agreement(
    extractor: Extractor,
) -> None:
    question = "Which company supplies batteries to Hanbit Robotics?"
    answer = extractor.read(question, passages(*BATTERIES)).text()
    assert answer.startswith(
        "No document says which company supplies batteries to Hanbit Robotics."
    )
    assert "supply agreement with Bluewave Logistics" in answer


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("한빛로보틱스의 본사는 어디에 있나?", COMPANY),
        ("김도윤 대표의 출신 학교는?", COMPANY),  # 출신: the page says 졸업, a paraphrase
        ("한빛로보틱스 작년 매출 규모는?", COMPANY),  # 작년: the page says 2024년
        ("Which company signed a supply agreement with Hanbit Robotics?", BATTERIES),
        ("How long does the NuriBot S2 run on one battery charge?", BATTERIES),
    ],
)
def test_answerable_questions_are_not_told_their_detail_is_absent(
    extractor: Extractor, question: str, names: tuple[str, ...]
) -> None:
    answer = extractor.read(question, passages(*names)).text()
    assert answer and "문서에 없습니다" not in answer and "No document says" not in answer


def test_a_detail_a_passage_of_the_other_language_may_hold_is_not_judged(
    extractor: Extractor,
) -> None:
    # Only the English report could hold Bluewave's headcount; words cannot be compared across
    # languages, and the reader led from it: nothing is said to be missing.
    shown = passages("en_partner_report.md", "nuritech.md", "places.md")
    assert missing_detail(extractor.reader, "블루웨이브 로지스틱스의 본사는 어디인가?", shown,
                          shown[0]) is None  # fmt: skip


def test_the_question_words_particle_is_the_slot_its_answer_fills() -> None:
    assert asked_particle("푸른벤처스는 어디에 투자했나요?") == "에"
    assert asked_particle("시리즈 C를 누가 주도했나?") == "이"
    assert asked_particle("김도윤은 누구인가?") is None  # a copula, no slot


def test_where_a_fund_invested_leads_with_the_company_taking_the_slot(
    extractor: Extractor,
) -> None:
    # "… 벤처캐피털로, 주로 로봇과 물류 기술 기업에 투자한다" describes the fund; the answer is the
    # company that takes 에 with 투자.
    shown = passages("investment.md", "hanbit_company.md", "people_profiles.md")
    answer = extractor.read("푸른벤처스는 어디에 투자했나요?", shown).text()
    assert answer.startswith("한빛로보틱스 — 푸른벤처스는 한빛로보틱스에 120억 원을 투자했고")


def test_a_relation_one_english_page_holds_is_judged_there_whatever_led(
    extractor: Extractor,
) -> None:
    # Through the ask the reader led with a Korean sentence ("… 로봇을 만드는 회사이다"); the
    # supply report still holds every word of the question and states no battery supplier.
    shown = passages("hanbit_company.md", "en_partner_report.md", "org_chart.md")
    question = "Which company supplies batteries to Hanbit Robotics?"
    missing = missing_detail(extractor.reader, question, shown, shown[0])
    assert missing is not None and missing.sentence().startswith("No document says which")
