"""The step reader: the bridge answer a step reads from its passages (the name its best sentence
adds to the query, typed by the query's head noun), and the adaptive step's coverage checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from planrag.services.answers import Passage
from planrag.services.step_reader import StepReader, candidates, head_noun

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"


def passages(*names: str) -> list[Passage]:
    return [
        Passage(
            n=i,
            chunk_id=f"c{i}",
            doc_id=name,
            knowledge_base="ko",
            score=1.0,
            content=(FIXTURES / name).read_text(encoding="utf-8"),
        )
        for i, name in enumerate(names, start=1)
    ]


@pytest.mark.parametrize(
    ("query", "docs", "answer"),
    [
        ("누리테크 대표가 졸업한 대학교", ["nuritech.md", "hanbit_company.md"], "한결대학교"),
        ("누리테크 대표", ["nuritech.md"], "이서준"),
        ("한빛로보틱스의 CTO", ["org_chart.md", "hanbit_company.md"], "박지은"),
        ("최민호이 소속된 팀", ["org_chart.md", "nuribot_products.md"], "자율주행팀"),
        ("푸른벤처스의 대표는 누구인가요?", ["investment.md"], "한지훈"),
        ("누리봇 S2 개발을 총괄한 사람", ["nuribot_products.md", "field_report.md"], "최민호"),
        # two companies in the sentence: the one that argues the clause's verb (…에서 일했다)
        ("이서준이 창업 전에 일한 회사", ["people_profiles.md"], "한빛로보틱스"),
        # the sentence writing the role ("대표이사는"), not an earlier one with a name
        ("한빛로보틱스 대표이사", ["hanbit_company.md"], "김도윤"),
        # a name written right after the head noun ("광고 회사 새벽기획"), not a typed one
        ("강하늘이 이전에 일한 광고 회사", ["people_profiles.md"], "새벽기획"),
    ],
)
def test_the_bridge_is_the_name_the_best_sentence_adds(
    query: str, docs: list[str], answer: str
) -> None:
    read = StepReader().read(query, passages(*docs))
    assert read is not None and read.text == answer
    assert answer in read.sentence and read.source == "extractive"


def test_english_bridges_are_capitalised_names() -> None:
    text = (
        "Bluewave Logistics is headquartered in Singapore. "
        "Its chief executive officer is Maria Tan."
    )
    found = [Passage(n=1, chunk_id="c", doc_id="d", knowledge_base="en", score=1, content=text)]
    read = StepReader().read("the chief executive officer of Bluewave Logistics", found)
    assert read is not None and read.text == "Maria Tan"


def test_nothing_to_read_is_none() -> None:
    assert StepReader().read("누리테크 대표", []) is None
    unrelated = passages("places.md")
    assert StepReader().read("화성 탐사선 발사 일정", unrelated) is None


def test_candidates_cut_particles_at_morpheme_boundaries() -> None:
    assert candidates("한빛로보틱스의 연구개발본부는 박지은 CTO가 이끈다.")[:3] == [
        "한빛로보틱스",
        "박지은",
        "CTO",
    ]
    assert "누리봇 S2" in candidates("누리봇 S2 개발은 최민호 수석연구원이 총괄했다.")
    assert head_noun("한빛로보틱스에 투자한 벤처캐피털") == "벤처캐피털"
    assert head_noun("the state where Hello Love's performer died") == "state"


def test_coverage_and_missing_words() -> None:
    reader = StepReader()
    found = passages("nuritech.md")
    assert reader.covers("누리테크 대표 이서준", found)
    assert not reader.covers("누리테크 대표가 졸업한 대학교의 총장", found)
    assert "총장" in " ".join(reader.missing("누리테크 대표가 졸업한 대학교의 총장은?", found))


@pytest.mark.parametrize(
    ("query", "docs", "answer"),
    [
        # a person's name in the best sentence does not answer a university (김도윤 → 한결대학교)
        ("한빛로보틱스 대표이사가 졸업한 대학교", ["hanbit_company.md"], "한결대학교"),
        # a person, not the other company of the sentence
        ("동해캐피털 대표", ["investment.md", "people_profiles.md"], "오세영"),
        # the query's name decides between two sentences naming a university
        ("박지은의 출신 대학은?", ["people_profiles.md", "org_chart.md", "hanbit_company.md"],
         "서울대학교"),
        ("한결대학교의 개교 연도는?", ["hangyeol_university.md"], "1978년"),
        ("대한물류의 직원 수는?", ["daehan_logistics.md"], "3,400명"),
        ("대한물류의 본사는 어디에 있나요?", ["daehan_logistics.md"], "인천 연수구"),
        ("누리봇 시리즈를 생산하는 공장", ["hanbit_company.md", "nuribot_products.md"],
         "이천 공장"),
        # "이 투자는 푸른벤처스가 주도했다": the sentence before says which investment (B, not C)
        ("한빛로보틱스 시리즈 B 주도 벤처캐피털", ["investment.md"], "푸른벤처스"),
    ],
)  # fmt: skip
def test_the_answer_has_the_type_the_step_asks_for(
    query: str, docs: list[str], answer: str
) -> None:
    read = StepReader().read(query, passages(*docs))
    assert read is not None and read.text == answer


def test_a_bridge_read_of_the_whole_question_wants_a_name_not_the_answer_type() -> None:
    """The adaptive step reads the question itself for the entity on the way to its answer: a
    "when?" question's bridge is the man, not a date."""
    text = "The Distribution of Industry Act was passed in 1945 by Clement Attlee's government."
    found = [Passage(n=1, chunk_id="c", doc_id="d", knowledge_base="en", score=1, content=text)]
    question = "The Distribution of Industry act was passed by a man who was prime minister when?"
    assert StepReader().read(question, found).text == "1945"  # type: ignore[union-attr]
    bridge = StepReader().read(question, found, bridge=True)
    assert bridge is not None and bridge.text == "Clement Attlee"


def test_a_role_reads_the_name_credited_with_its_verb() -> None:
    """ "the singer of …": the sentence credits a writer first and the singer after
    "recorded by"; the singer is read, not the first name."""
    text = (
        '"Lantern Road" is a song written by Ada Crane, and recorded by American country '
        "music artist Milo Ferris."
    )
    found = [Passage(n=1, chunk_id="c", doc_id="d", knowledge_base="en", score=1, content=text)]
    singer = StepReader().read('the singer of "Lantern Road"', found)
    assert singer is not None and singer.text == "Milo Ferris"
    writer = StepReader().read('the writer of "Lantern Road"', found)
    assert writer is not None and writer.text == "Ada Crane"


def test_a_short_reference_names_the_earlier_answer() -> None:
    """ "김도윤이 창업 전에 일한 회사": the sentence that answers names him "김 대표" (after
    "김도윤 대표는 …" on its page); another founder's sentence with the same words loses."""
    found = passages("people_profiles.md", "hanbit_company.md")
    read = StepReader().read("김도윤이 창업 전에 일한 회사", found, earlier=["김도윤"])
    assert read is not None and read.text == "대한물류"
    assert read.sentence.startswith("김 대표는")


def _one(text: str, n: int = 1) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="ko", score=1, content=text
    )


def test_a_relative_clause_reads_the_argument_its_head_noun_fills() -> None:
    """ "…에 30억 원을 투자한 회사" gives the object and no subject: the company asked for is the
    one that invested (…가 투자했다), not the company invested in, which the first sentence,
    holding as many of the words, names."""
    text = (
        "한솔에너지는 2022년 시리즈 A 투자로 80억 원을 유치했다. 바다파트너스는 한솔에너지에 "
        "50억 원을 투자했고, 나머지 30억 원은 청람캐피털이 투자했다."
    )
    read = StepReader().read("시리즈 A에 30억 원을 투자한 회사", [_one(text)])
    assert read is not None and read.text == "청람캐피털"


def test_a_question_word_reads_the_name_carrying_its_particle() -> None:
    """ "…에는 무엇이 있나요?": the name written with 이/가 (…가 있다), not the company whose
    head office is there, though its page ranks first."""
    found = [
        _one("세림물산은 1998년에 세워졌다. 세림물산의 본사는 부산 남구에 있다.", 1),
        _one("인천 중구에는 영종국제도시가 있다. 부산 남구에는 문현금융단지가 있다.", 2),
    ]
    read = StepReader().read("부산 남구에는 무엇이 있나요?", found)
    assert read is not None and read.text == "문현금융단지"


EN_PAGES = FIXTURES.parent / "en_pages"


def en_passages(*names: str) -> list[Passage]:
    return [
        Passage(
            n=i, chunk_id=f"c{i}", doc_id=name, knowledge_base="en", score=1.0,
            content=(EN_PAGES / name).read_text(encoding="utf-8"),
        )
        for i, name in enumerate(names, start=1)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("query", "docs", "answer"),
    [
        # "Redwing Records" is an organisation (its ending), not a person like "Milo Grant",
        # the label's other artist on a page that also names the band
        (
            "the record label of The Lantern Society",
            ["the_lantern_society.txt", "redwing_records.txt", "milo_grant.txt"],
            "Redwing Records",
        ),
        # the person the sentence credits with the role ("a film directed by Ilse Brandt"),
        # not the novel's writer named in the sentence holding the title
        (
            "the director of the film adaptation of The Salt Road",
            ["the_salt_road.txt", "marlow_vance.txt", "ilse_brandt.txt"],
            "Ilse Brandt",
        ),
    ],
)
def test_an_english_step_reads_the_name_its_relation_points_to(
    query: str, docs: list[str], answer: str
) -> None:
    read = StepReader().read(query, en_passages(*docs))
    assert read is not None and read.text == answer
