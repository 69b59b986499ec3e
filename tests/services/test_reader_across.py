"""The reader across languages (issue 24 and 25's reading side): an English question over our
Korean fixture documents is not answered from an English passage that only names its subject;
when no sentence of the question's language holds what is asked, the other language's
sentences are read by e5 (multilingual e5, as the ask reads an e5 knowledge base)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planrag.llm.e5 import E5Embedder
from planrag.services.reader import Reader
from tests.services.ko_passages import passages


@pytest.fixture(scope="module")
def reader() -> Iterator[Reader]:
    yield Reader(embedder=E5Embedder(1))


def test_an_english_question_leads_with_the_korean_sentence_that_answers(reader: Reader) -> None:
    # The English trade-fair note comes first and names Hanbit Robotics, nothing of "founded".
    shown = passages("en_trade_fair.md", "en_partner_report.md", "hanbit_company.md")
    reading = reader.read("When was Hanbit Robotics founded?", shown)
    assert reading.lead is not None and reading.lead.n == 3
    assert "2015년 3월" in reading.text().split("[")[0]


def test_a_korean_question_leads_with_the_english_sentence_that_answers(reader: Reader) -> None:
    shown = passages("field_report.md", "en_safety_audit.md", "places.md")
    reading = reader.read("안전 감사에서 발견된 문제는 무엇이었나?", shown)
    assert reading.lead is not None and reading.lead.n == 2
    assert "fire exit" in reading.lead.text


def test_words_of_what_is_asked_keep_the_question_language(reader: Reader) -> None:
    # The English passage holds "chief executive": words are evidence, the reading stays.
    shown = passages("hanbit_company.md", "en_partner_report.md")
    reading = reader.read("Who is the chief executive of Bluewave Logistics?", shown)
    assert reading.lead is not None and "Maria Tan" in reading.lead.text
    # A Korean question whose Korean passage holds the asked words is not read in English.
    shown = passages("en_partner_report.md", "nuribot_products.md")
    reading = reader.read("누리봇 S2의 최대 적재 중량은?", shown)
    assert reading.lead is not None and "500kg" in reading.lead.text
