"""The adaptive step (services/step_execution.py): on a KB of entity pages (an encyclopedia),
the entity the first search's reader names whose own page is not among the hits is looked up
by name (IRCoT-like); a KB without entity pages keeps the session-8 rule (a chain-shaped
question missing a few words). Invented texts."""

from __future__ import annotations

from planrag.planner.schema import PlanStep, SearchPlan
from planrag.services.answers import Passage
from planrag.services.ask_events import SearchStages
from planrag.services.step_execution import (
    adaptive_step,
    entity_pages,
    heading,
    looked_up,
    own_passage,
    step_answer_text,
    step_result,
)
from planrag.services.step_reader import StepReader

FILM = (
    "The Glass Orchard (2004 film)\n\nThe Glass Orchard is a 2004 American drama film. "
    "It stars Lena Moor and Victor Hale."
)
ACTOR = "Victor Hale\n\nVictor Hale (born 3 May 1961) is an English actor and painter."
OTHER = "Tom Brandt\n\nTom Brandt (born 1950) is an American actor known for westerns."
QUESTION = "Which English actor starred in the 2004 film The Glass Orchard alongside Lena Moor?"


def passage(n: int, content: str) -> Passage:
    return Passage(n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="en", score=1.0,
                   content=content)  # fmt: skip


def first_search(question: str, contents: list[str], reader: StepReader):  # type: ignore[no-untyped-def]
    found = [passage(i, c) for i, c in enumerate(contents, start=1)]
    step = PlanStep(id="s1", query=question)
    answer = reader.read(question, found, bridge=True)
    plan = SearchPlan(query=question)  # type: ignore[call-arg]
    return step_result(step, question, plan, found, SearchStages(), answer, 0.0)


def test_a_heading_names_an_entity_page() -> None:
    assert heading(passage(1, FILM)) == "The Glass Orchard"
    assert heading(passage(1, "# 한빛로보틱스 회사 소개\n\n본문")) == "한빛로보틱스 회사 소개"
    assert own_passage("Victor Hale", passage(1, ACTOR))
    assert not own_passage("Victor Hale", passage(1, FILM))


def test_the_named_entitys_missing_page_is_looked_up_by_name() -> None:
    reader = StepReader()
    first = first_search(QUESTION, [FILM, OTHER], reader)
    assert entity_pages(QUESTION, first.passages)
    assert first.record.answer is not None and first.record.answer.text == "Victor Hale"
    second = adaptive_step(QUESTION, reader, first, chain_shaped=False)
    assert second is not None and second.query == "{{s1.answer}}"


def test_no_lookup_when_the_page_is_there_or_the_kb_has_no_entity_pages() -> None:
    reader = StepReader()
    have = first_search(QUESTION, [FILM, ACTOR], reader)
    assert adaptive_step(QUESTION, reader, have, chain_shaped=False) is None
    korean = "한빛로보틱스의 대표는 누구인가요?"
    doc = "# 한빛로보틱스 회사 소개\n\n한빛로보틱스의 대표이사는 김도윤이다."
    first = first_search(korean, [doc], reader)
    assert not entity_pages(korean, first.passages)
    assert adaptive_step(korean, reader, first, chain_shaped=False) is None


def test_a_lookup_keeps_the_entitys_own_page_only() -> None:
    hits = [passage(1, FILM), passage(2, ACTOR), passage(3, OTHER)]
    assert [p.n for p in looked_up("Victor Hale", hits)] == [2]
    assert [p.n for p in looked_up("Mara Quill", hits)] == [1]  # no page: the best hit


def test_a_section_heading_in_the_question_is_no_entity_page() -> None:
    """A handbook's "## Equipment" section heading appears in "What equipment …?" as a common
    word, not a name: no lookup (it cost an LLM step read on a plain question)."""
    section = passage(1, "Equipment\n\nThe company lends a laptop and a monitor for home offices.")
    assert not entity_pages(
        "What equipment does the company lend to employees working remotely?", [section]
    )
    assert entity_pages(QUESTION, [passage(1, FILM)])  # a name the question holds


def test_a_chains_bridge_sentences_follow_the_answer_once() -> None:
    """The chain's answer leads; each bridge step's sentence follows unless the answer holds it
    already (the reader's final reading often cites the bridge sentence as its support)."""
    reader = StepReader()
    first = first_search(QUESTION, [FILM, OTHER], reader)
    assert first.record.answer is not None
    bridge = first.record.answer.sentence
    merged = first.passages
    alone = step_answer_text([first], merged)
    assert alone == f"{bridge} [1]"
    final = "Victor Hale (born 3 May 1961) is an English actor and painter. [2]"
    assert step_answer_text([first], merged, written=final) == f"{bridge} [1]"
    assert step_answer_text([first], merged, written=f"{final} {bridge} [1]") == ""
