"""The answer without an LLM: plain text (no Markdown), never headings only, each sentence once,
one line per document when a limit asks for documents, and nothing when no passage is relevant."""

from __future__ import annotations

from planrag.services.answers import Passage
from planrag.services.extractive import Extractor, plain_text
from planrag.services.passage_text import body_sentences


def passage(n: int, content: str, title: str | None = None, date: str | None = None) -> Passage:
    return Passage(
        n=n,
        chunk_id=f"c{n}",
        doc_id=f"d{n}",
        knowledge_base="kb",
        title=title,
        date=date,
        score=1.0 / n,
        content=content,
    )


HR = (
    "# 인사 규정\n\n## 휴가\n\n**연차 휴가**는 입사 1년 후 [15일](https://example.com/a)이 "
    "주어진다. 병가는 연 30일까지 쓸 수 있다.\n\n| 구분 | 일수 |\n| --- | --- |\n| 연차 | 15 |\n"
)


def test_markdown_syntax_never_reaches_the_answer() -> None:
    text = Extractor().answer("연차 휴가는 며칠이야?", [passage(1, HR)], None)
    assert "연차 휴가는 입사 1년 후 15일이 주어진다. [1]" in text
    for syntax in ("#", "**", "](", "|", "---", "https://"):
        assert syntax not in text
    assert plain_text("*a* `b` ~~c~~ ![그림](x.png)") == "a b c 그림"


def test_headings_are_never_the_answer() -> None:
    headings = passage(1, "# 연차 휴가\n\n## 연차 휴가 규정")
    body = passage(2, "연차 휴가는 입사 1년 후 15일이 주어진다.")
    text = Extractor().answer("연차 휴가", [headings, body], None)
    assert text == "연차 휴가는 입사 1년 후 15일이 주어진다. [2]"
    assert Extractor().answer("연차 휴가", [headings], None) == ""


def test_a_sentence_is_said_once_under_the_first_passage_holding_it() -> None:
    same = "메타버스는 가상과 현실이 융합된 공간이다."
    passages = [passage(1, same), passage(2, "  " + same.replace(" ", "  ")), passage(3, same)]
    text = Extractor().answer("메타버스란?", passages, None)
    assert text == f"{same} [1]"


def test_nothing_relevant_gives_no_answer() -> None:
    chips = passage(1, "반도체 수출이 9월에 크게 늘었다. 메모리 반도체 가격이 상승했다.")
    extractor = Extractor(floor=0.5)
    assert not extractor.relevant("고양이 사료 가격 알려줘", [chips])
    assert extractor.answer("고양이 사료 가격 알려줘", [chips], None) == ""
    assert extractor.relevant("반도체 가격", [chips])
    assert "[1]" in extractor.answer("반도체 가격", [chips], None)
    # Words that ask for documents are not the topic: "반도체 기사" is about 반도체.
    assert extractor.relevant("반도체 기사 보여줘", [chips])
    assert Extractor(floor=0.0).relevant("고양이 사료 가격", [chips])


def test_a_limit_gives_one_line_per_document() -> None:
    passages = [
        passage(1, "# 메타버스\n\n메타버스 플랫폼에 투자를 발표했다.", "뉴스", "2025-09-10"),
        passage(2, "메타버스라는 말은 1992년 소설에서 처음 등장했다. 그 뒤 널리 쓰였다.", "역사"),
    ]
    lines = Extractor().answer("메타버스", passages, 2).splitlines()
    assert lines == [
        "뉴스 (2025-09-10): 메타버스 플랫폼에 투자를 발표했다. [1]",
        "역사: 메타버스라는 말은 1992년 소설에서 처음 등장했다. [2]",
    ]


def test_without_a_floor_a_summary_falls_back_to_the_leading_sentences() -> None:
    chips = passage(1, "반도체 수출이 9월에 크게 늘었다. 메모리 가격이 상승했다.")
    assert Extractor(floor=0.0).answer("고양이", [chips], None).endswith("[1]")


TRAVEL = (
    "## 숙박비\n국내 출장 숙박비는 1박에 최대 12만 원까지 지급한다. 해외 출장은 지역별 한도를 "
    "따른다.\n\n| 지역 | 1박 한도 |\n| --- | --- |\n| 미국 | 250달러 |\n| 일본 | 2만 엔 |\n"
)


def test_a_table_row_reads_as_one_sentence_naming_its_columns() -> None:
    # Each cell was a block of its own ("일본", "2만 엔"), too short to be read: the row is one.
    assert body_sentences(TRAVEL)[-2:] == [
        "지역: 미국, 1박 한도: 250달러",
        "지역: 일본, 1박 한도: 2만 엔",
    ]
    text = Extractor().answer("일본 출장 숙박 한도는?", [passage(1, TRAVEL)], None)
    assert "지역: 일본, 1박 한도: 2만 엔 [1]" in text and "2만 엔" in text.split("[1]")[0]
