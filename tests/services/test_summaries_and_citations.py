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


INVESTORS = passage(
    1,
    "# 투자 유치 현황\n\n한빛로보틱스는 2021년 시리즈 B 투자로 150억 원을 유치했다. 이 투자는 "
    "푸른벤처스가 주도했다. 푸른벤처스는 120억 원을 투자했고, 나머지 30억 원은 동해캐피털이 "
    "투자했다.\n\n푸른벤처스의 대표는 한지훈이다. 푸른벤처스는 서울 강남구에 본사를 두고 있다."
    "\n\n동해캐피털의 대표는 오세영이다. 그 회사는 부산 해운대구에 본사를 둔 투자회사이다.",
)
PEOPLE = passage(
    2,
    "# 주요 인물\n\n오세영은 동해캐피털을 2009년에 세웠다. 한지훈은 증권사에서 10년 동안 "
    "일했다. 김도윤 대표는 한결대학교 기계공학과를 졸업했다. 김 대표는 창업 전 대한물류에서 "
    "8년 동안 일했다.\n\n누리테크의 대표는 이서준이다. 새벽기획의 대표는 민아름이다.",
)
PRODUCTS = passage(
    1,
    "# 누리봇 제품 안내\n\n누리봇 S1은 2019년에 출시되었다. 누리봇 S1의 최대 적재 중량은 "
    "300kg이다.\n\n누리봇 S2는 2022년 9월에 출시되었다. 누리봇 S2의 최대 적재 중량은 "
    "500kg이다.\n\n모든 제품은 이천 공장에서 생산된다.",
)


def test_a_summary_is_about_its_query_not_everything_found() -> None:
    """A page on three investors summarised for one of them: the sentences naming it, the one
    continuing it ("그 회사는 …") and another page's sentence naming it; not the others."""
    text = Extractor(floor=0.0).summary("동해캐피털", [INVESTORS, PEOPLE])
    assert "30억" in text and "오세영이다" in text and "부산 해운대구" in text
    assert "2009년" in text and "[2]" in text
    assert "한지훈" not in text and "강남구" not in text and "김도윤" not in text


def test_the_rarer_query_word_decides_what_is_on_topic() -> None:
    """ "김도윤 대표": sentences about other companies' 대표 are not about him; the sentence
    continuing his ("김 대표는 …") is."""
    text = Extractor(floor=0.0).summary("김도윤 대표", [PEOPLE, INVESTORS])
    assert "기계공학과" in text and "8년" in text
    assert "이서준" not in text and "민아름" not in text and "오세영" not in text


def test_a_page_headed_by_the_query_is_summarised_whole_and_models_kept_apart() -> None:
    whole = Extractor(floor=0.0).summary("누리봇 제품", [PRODUCTS, PEOPLE])
    assert "300kg" in whole and "500kg" in whole and "이천 공장" in whole  # 제품 only once
    assert "[2]" not in whole
    s2 = Extractor(floor=0.0).summary("누리봇 S2", [PRODUCTS])
    assert "500kg" in s2 and "2022년 9월" in s2
    assert "S1" not in s2 and "300kg" not in s2


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
