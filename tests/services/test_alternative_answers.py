"""The answer to an alternative question leads with the value the evidence says of the subject
("private — …"), never "Yes"; over invented English pages and our Korean fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from planrag.services.alternative_answers import read_alternative
from planrag.services.answers import Passage
from planrag.services.extractive import Extractor
from planrag.services.reader import Reader

KO = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"
HARBOR = (
    "Harbor Bay University\n\nHarbor Bay University is an accredited private university in "
    "Westport. It was founded in 1984 by scholars of local public universities. Its head of "
    "research is Professor Ana Reyes, who served as Professor of Lindell University."
)
LINDELL = (
    "Lindell University\n\nLindell University is an established public university with two "
    "campuses."
)


def passage(n: int, content: str, title: str | None = None) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


def pages() -> list[Passage]:
    return [
        passage(1, HARBOR, "Harbor Bay University"),
        passage(2, LINDELL, "Lindell University"),
    ]


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Is Harbor Bay University public or private?", "private — Harbor Bay University is"),
        ("Harbor Bay University: public or private?", "private — Harbor Bay University is"),
        ("Is Lindell University a public or a private university?", "public — Lindell"),
        # the subject's sentence says no value but names Lindell University: its page answers
        ("Ana Reyes was a professor at a university that is public or private?",
         "public — Lindell University is"),
    ],
)  # fmt: skip
def test_an_english_alternative_leads_with_its_value(question: str, lead: str) -> None:
    answer = Extractor().answer(question, pages(), None)
    assert answer.startswith(lead), answer
    assert not answer.startswith(("Yes", "No"))


def ko_pages() -> list[Passage]:
    names = ["nuribot_products.md", "hanbit_company.md", "hr_policy.md", "places.md"]
    return [passage(i, (KO / name).read_text(), name) for i, name in enumerate(names, 1)]


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("누리봇 S2는 이천 공장에서 생산되나요, 평택 공장에서 생산되나요?",
         "이천 — 누리봇 시리즈의 모든 제품은 이천 공장에서 생산된다."),
        ("누리봇 S2는 평택 공장에서 생산되나요 이천 공장에서 생산되나요?", "이천 — "),
        ("한빛로보틱스 본사는 대전에 있나요 서울에 있나요?",
         "대전 — 한빛로보틱스는 대전 유성구에 본사를"),
        ("한빛로보틱스는 2015년에 설립되었나요, 2018년에 설립되었나요?",
         "2015년 — 한빛로보틱스는 2015년 3월에 설립되었다."),
    ],
)  # fmt: skip
def test_a_korean_alternative_leads_with_its_value(question: str, lead: str) -> None:
    answer = Extractor().answer(question, ko_pages(), None)
    assert answer.startswith(lead), answer
    assert not answer.startswith(("예", "아니요"))


def test_no_value_without_a_sentence_about_the_subject_or_when_both_are_said() -> None:
    reader = Reader()
    # "public" and "private" only in sentences sharing no word with the subject
    other = [passage(1, "Tide Tables\n\nPublic and private harbours publish tide tables.")]
    assert read_alternative(reader, "Is Harbor Bay University public or private?", other) is None
    both = [
        passage(1, "Harbor Bay University\n\nHarbor Bay University is partly public and partly "
                "private.", "Harbor Bay University"),
    ]  # fmt: skip
    assert read_alternative(reader, "Is Harbor Bay University public or private?", both) is None
    # not an alternative question: nothing to choose
    assert read_alternative(reader, "Who heads research at Harbor Bay University?", pages()) is None
