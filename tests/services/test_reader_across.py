"""The reader across languages (issue 24 and 25's reading side): an English question over our
Korean fixture documents is not answered from an English passage that only names its subject;
when no sentence of the question's language holds what is asked, the other language's
sentences are read by e5 (multilingual e5, as the ask reads an e5 knowledge base)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planrag.llm.e5 import E5Embedder
from planrag.services.answers import Passage
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


def _passage(n: int, title: str, content: str) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=title, knowledge_base="kb", score=1.0 / n, title=title,
        content=content,
    )  # fmt: skip


# A new user's documents (not the fixture corpus): a Korean meeting note and an English FAQ.
_MEETING = (
    "평택 물류센터는 2025년 9월까지 안성으로 이전한다. 하반기에 개발자 15명과 데이터 분석가 "
    "4명을 채용한다. 채용 공고는 6월 1일에 게시한다."
)
_FAQ = (
    "The Lumen X200 delivers 2,400 ANSI lumens. The X200 uses an LED light source rated for "
    "30,000 hours. The X100's LED is rated for 20,000 hours. Both models come with a two-year "
    "warranty."
)


def test_an_unrelated_other_language_sentence_stands_in_for_nothing(reader: Reader) -> None:
    # Kiwi reads the question's 개발자 whole and the note's as 개발 + 자: no Korean sentence
    # holds the asked word, but the one that answers is far nearer by e5 than any English
    # sentence, so the English FAQ's best sentence does not stand in for the words.
    shown = [_passage(1, "3월 운영위원회 회의록", _MEETING), _passage(2, "Lumen FAQ", _FAQ)]
    reading = reader.read("개발자 몇 명 뽑아?", shown)
    assert reading.lead is not None and reading.lead.n == 1
    assert "15명" in reading.lead.text
