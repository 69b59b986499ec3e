"""The second hop (`services/second_hop.py`): a question that names one thing and asks about
another it is linked to leads with the sentence of the linked thing's passage, citing both
hops; a one-hop question's lead stays where it is."""

from __future__ import annotations

from planrag.services.answers import Passage
from planrag.services.extractive import Extractor


def passage(n: int, content: str, title: str | None = None) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


HOLT = (
    "Dana Holt (born March 3, 1961) was a Republican member of the Varnland Senate, "
    "representing the 12th District from 2001 to 2009. Holt grew up on a farm."
)
SENATE = (
    "The Varnland Senate is the upper house of the legislature of Varnland. "
    "It is composed of 40 members, each elected for four years."
)
FILLERS = [
    "The Orland Assembly meets in the old town hall every spring and autumn.",
    "Republican clubs in the north held a convention in 1998 to choose a leader.",
    "A legislature may have one chamber or two; the second is often called a senate.",
    "The Brisk House is a museum of farm tools opened in 1972 near the river.",
]


def _pool(bridge_at: int) -> list[Passage]:
    found = [passage(1, HOLT, "Dana Holt")]
    fillers = iter(FILLERS)
    for n in range(2, bridge_at):
        found.append(passage(n, next(fillers), f"Filler {n}"))
    found.append(passage(bridge_at, SENATE, "Varnland Senate"))
    return found


def test_the_bridge_passage_answers_and_both_hops_are_cited() -> None:
    # The bridge's passage is sixth, past the five passages the reader reads by itself.
    question = "Dana Holt was a Republican member of an upper house with how many members?"
    reading = Extractor().read(question, _pool(6))
    assert reading.lead is not None and reading.lead.n == 6, reading.text()
    assert "40 members" in reading.lead.text
    assert [s.n for s in reading.support] == [1]
    assert reading.text().index("[6]") < reading.text().index("[1]")


def test_a_bridge_named_by_the_opening_sentence_of_an_untitled_passage() -> None:
    question = "Dana Holt was a Republican member of an upper house with how many members?"
    found = [passage(1, HOLT, "Dana Holt"), *(passage(n, t) for n, t in enumerate(FILLERS, 2))]
    found.append(passage(6, SENATE))
    reading = Extractor().read(question, found)
    assert reading.lead is not None and reading.lead.n == 6 and "40" in reading.lead.text


def test_a_one_hop_question_keeps_its_lead() -> None:
    found = _pool(3)
    reading = Extractor().read("When was Dana Holt born?", found)
    assert reading.lead is not None and reading.lead.n == 1 and "1961" in reading.lead.text
    reading = Extractor().read("Which district did Dana Holt represent?", found)
    assert reading.lead is not None and reading.lead.n == 1 and reading.support == []


def test_the_answer_in_the_first_hops_own_passage_stays() -> None:
    # Korean: the person's own passage holds the answer; the passage of the company the first
    # sentence names holds another person's school, which must not lead.
    org = passage(1, "한빛로보틱스의 연구개발본부는 박지은 CTO가 이끈다.", "조직 안내")
    company = passage(
        2,
        "한빛로보틱스는 2015년에 설립되었다. 김도윤 대표는 한결대학교 기계공학과를 졸업했다. "
        "박지은 CTO는 서울대학교 전기공학부를 졸업했다.",
        "한빛로보틱스",
    )
    reading = Extractor().read("박지은 CTO는 어느 대학을 졸업했나?", [org, company])
    assert reading.lead is not None and "서울대학교" in reading.lead.text


def test_a_korean_bridge_question_reads_the_university_passage() -> None:
    first = passage(
        1, "한빛로보틱스의 박지은 CTO는 한결대학교 기계공학과를 졸업했다.", "한빛로보틱스 인물"
    )
    fillers = [
        passage(n, f"물류 로봇 시장은 {2010 + n}년부터 커졌다.", f"시장 {n}") for n in (2, 3, 4)
    ]
    school = passage(
        5, "한결대학교는 부산에 있는 사립 대학교이다. 한결대학교는 1978년에 개교했다.", "한결대학교"
    )
    question = "한빛로보틱스 박지은 CTO가 졸업한 대학교는 몇 년에 개교했나?"
    reading = Extractor().read(question, [first, *fillers, school])
    assert reading.lead is not None and "1978" in reading.lead.text, reading.text()


def test_a_word_kiwi_reads_whole_holds_the_question_s_words() -> None:
    """ "어떤 금융단지": Kiwi reads 문현금융단지 as one proper noun and the question as 금융 +
    단지; the sentence naming it is the answer, not a second hop to the org chart's
    금융사업본부 (its 금융 alone)."""
    places = "인천 중구에는 영종국제도시가 있다. 부산 남구에는 문현금융단지가 있다."
    company = "세림물산은 부산 남구에 본사를 두고 있다. 세림물산의 대표는 오한결이다."
    org = "세림물산의 금융사업본부는 정하나 전무가 이끈다. 그 아래에 투자팀이 있다."
    pool = [
        passage(1, places, "지역 안내"),
        passage(2, company, "세림물산 개요"),
        passage(3, org, "세림물산 조직"),
    ]
    question = "부산 남구에는 어떤 금융단지가 있나요?"
    for order in (pool, pool[::-1]):
        found = [p.model_copy(update={"n": i}) for i, p in enumerate(order, start=1)]
        text = Extractor().read(question, found, question).text()
        assert text.startswith("부산 남구에는 문현금융단지가 있다.")
