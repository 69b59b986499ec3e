"""Extractive summaries (never empty, cited, ordered, several key terms, within budget) and the
LLM answer's citation check (supported, unsupported, citing a passage never given)."""

from __future__ import annotations

from planrag.services.answers import Passage
from planrag.services.citation_check import check_citations, cited_sentences
from planrag.services.extractive import Extractor
from planrag.services.reader import Reader
from planrag.services.summaries import SUMMARY_BUDGET


def passage(n: int, content: str) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", score=1.0, content=content
    )


HR = passage(
    1,
    "# 인사 규정\n\n신입 사원은 입사 첫해에 연차 휴가 11일을 받는다. 입사 1년이 지나면 연차 휴가는 "
    "15일로 늘어난다.\n\n재택근무는 주 2회까지 허용된다. 재택근무를 하려면 팀장의 승인을 받아야 "
    "한다.\n\n건강검진은 매년 10월에 실시한다.",
)
HR2 = passage(
    2,
    "인사 평가는 매년 12월에 실시한다. 평가 결과에 대한 이의 신청은 14일 안에 할 수 있다. "
    "연차 휴가와 재택근무 규정은 2025년에 바뀌었다.",
)


def test_a_summary_covers_several_key_terms_in_order_with_citations() -> None:
    text = Extractor(floor=0.0).summary("인사 규정", [HR, HR2])
    assert "연차" in text and "재택근무" in text and "평가" in text
    assert "[1]" in text and "[2]" in text and "#" not in text
    assert text.index("[1]") < text.index("[2]")  # in document order
    assert len(text.replace(" [1]", "").replace(" [2]", "")) <= SUMMARY_BUDGET


def test_a_summary_is_never_empty_while_passages_have_text() -> None:
    headings = passage(1, "# 인사 규정\n\n## 휴가\n\n| 구분 | 일수 |\n| --- | --- |\n| 연차 | 15 |")
    text = Extractor(floor=0.0).summary("인사 규정", [headings])
    assert text and text.endswith("[1]") and "|" not in text and "#" not in text
    # With a floor, passages that do not hold the query's terms are not summarised.
    assert Extractor(floor=0.5).summary("고양이 사료", [HR]) == ""


def test_cited_sentences_take_markers_before_or_after_the_period() -> None:
    answer = "연차 휴가는 11일입니다 [1]. 재택근무는 주 2회까지입니다. [1][2] 끝."
    assert cited_sentences(answer) == [
        ("연차 휴가는 11일입니다.", [1]),
        ("재택근무는 주 2회까지입니다.", [1, 2]),
    ]


def test_citations_are_checked_against_their_passages() -> None:
    reader = Reader()
    supported = "신입 사원의 연차 휴가는 입사 첫해 11일입니다 [1]."
    unsupported = "화성 탐사 우주선의 엔진 추력은 900톤입니다 [2]."
    missing = "건강검진은 10월에 합니다 [7]."
    flagged = check_citations(f"{supported} {unsupported} {missing}", [HR, HR2], reader)
    assert [(u.n, u.reason) for u in flagged] == [(2, "not_supported"), (7, "no_such_passage")]
    assert flagged[0].sentence.startswith("화성 탐사")
    assert check_citations(supported, [HR, HR2], reader) == []
    assert check_citations("인용 없는 답입니다.", [HR], reader) == []
