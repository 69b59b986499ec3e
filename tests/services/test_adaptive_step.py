"""The adaptive step (services/adaptive_steps.py): a second search only when it can add. On a KB
of entity pages (an encyclopedia), the names the first hop reads whose own pages are not among
the hits are looked up by name (IRCoT-like); a comparison or a yes/no question whose subjects'
passages are all there, or a question one passage fully holds, gets no step and no step read;
a KB without entity pages keeps the session-8 rule (a chain-shaped question missing a few
words). Invented texts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from planrag.planner.schema import PlanStep, SearchPlan
from planrag.services.adaptive_steps import (
    LOOKUP_CANDIDATES,
    adaptive_step,
    described_page,
    entity_pages,
    heading,
    looked_up,
    lookup,
    own_passage,
    plan_adaptive,
)
from planrag.services.answers import Passage
from planrag.services.ask_events import SearchStages, StepAnswer
from planrag.services.step_execution import step_answer_text, step_result
from planrag.services.step_reader import StepReader

FILM = (
    "The Glass Orchard (2004 film)\n\nThe Glass Orchard is a 2004 American drama film. "
    "It stars Lena Moor and Victor Hale."
)
ACTOR = "Victor Hale\n\nVictor Hale (born 3 May 1961) is an English actor and painter."
OTHER = "Tom Brandt\n\nTom Brandt (born 1950) is an American actor known for westerns."
QUESTION = "Which English actor starred in the 2004 film The Glass Orchard alongside Lena Moor?"
DORA = "Dora Lake\n\nDora Lake is a glacial lake in Norway, formed in 1850."
ELM = "Elm Pond\n\nElm Pond is a shallow pond in Ohio, dug in 1902."


class CountingReader(StepReader):
    """Counts step reads: each costs an LLM call when one is configured."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def read(
        self,
        query: str,
        passages: list[Passage],
        bridge: bool = False,
        earlier: Sequence[str] = (),
    ) -> StepAnswer | None:
        self.reads += 1
        return super().read(query, passages, bridge, earlier)


def passage(n: int, content: str) -> Passage:
    return Passage(n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="en", score=1.0,
                   content=content)  # fmt: skip


def hits(*contents: str) -> list[Passage]:
    return [passage(i, c) for i, c in enumerate(contents, start=1)]


def adapt(question: str, contents: list[str], reader: StepReader, shaped: bool = False):  # type: ignore[no-untyped-def]
    plan = SearchPlan(query=question)  # type: ignore[call-arg]
    return plan_adaptive(question, reader, plan, (hits(*contents), SearchStages()), shaped)


def first_search(question: str, contents: list[str], reader: StepReader):  # type: ignore[no-untyped-def]
    found = hits(*contents)
    step = PlanStep(id="s1", query=question)
    answer = reader.read(question, found, bridge=True)
    plan = SearchPlan(query=question)  # type: ignore[call-arg]
    return step_result(step, question, plan, found, SearchStages(), answer, 0.0)


def test_a_heading_names_an_entity_page() -> None:
    assert heading(passage(1, FILM)) == "The Glass Orchard"
    assert heading(passage(1, "# 한빛로보틱스 회사 소개\n\n본문")) == "한빛로보틱스 회사 소개"
    assert own_passage("Victor Hale", passage(1, ACTOR))
    assert not own_passage("Victor Hale", passage(1, FILM))
    # the name read with its affiliation: the page is titled by its leading words
    assert own_passage("Victor Hale of Leeds University", passage(1, ACTOR))
    assert not own_passage("Victor", passage(1, ACTOR))
    assert own_passage("John C", passage(1, "John C. Bogle\n\nJohn C. Bogle is an investor."))
    assert own_passage("Hustle & Flow", passage(1, "Hustle &amp; Flow\n\nA 2005 film."))


def test_the_named_entitys_missing_page_is_looked_up_by_name() -> None:
    reader = CountingReader()
    adaptive = adapt(QUESTION, [FILM, OTHER], reader)
    assert adaptive is not None and adaptive.second.lookup
    assert adaptive.first.record.answer is not None
    assert adaptive.second.step.query.split("; ")[0] == "Victor Hale"
    assert reader.reads == 1


def test_no_lookup_when_the_page_is_there_or_the_kb_has_no_entity_pages() -> None:
    reader = StepReader()
    have = first_search(QUESTION, [FILM, ACTOR], reader)
    assert adaptive_step(QUESTION, reader, have, chain_shaped=False) is None
    korean = "한빛로보틱스의 대표는 누구인가요?"
    doc = "# 한빛로보틱스 회사 소개\n\n한빛로보틱스의 대표이사는 김도윤이다."
    first = first_search(korean, [doc], reader)
    assert not entity_pages(korean, first.passages)
    assert adaptive_step(korean, reader, first, chain_shaped=False) is None


def test_a_question_one_passage_fully_holds_gets_no_step_and_no_read() -> None:
    """The first hop's page names the answer with every word asked: a second search adds
    nothing (the step read would cost an LLM call for nothing)."""
    question = "Which painter starred in the 2004 film The Glass Orchard alongside Lena Moor?"
    page = (
        "The Glass Orchard (2004 film)\n\nThe Glass Orchard is a 2004 film. The painter "
        "Victor Hale starred in it alongside Lena Moor."
    )
    reader = CountingReader()
    film = "Which 2004 film starred the painter Victor Hale alongside Lena Moor?"
    assert adapt(film, [page, OTHER], reader) is None
    assert reader.reads == 0
    # a person asked for: their own page is looked up, still with no step read
    person = adapt(question, [page, OTHER], reader)
    assert person is not None and person.second.step.query == "Victor Hale"
    assert reader.reads == 0
    assert adapt(QUESTION, [FILM, OTHER], CountingReader()) is not None  # "English" is missing


def test_a_comparison_whose_subjects_are_all_there_gets_no_step() -> None:
    reader = CountingReader()
    assert adapt("Which is older, Dora Lake or Elm Pond?", [DORA, ELM, OTHER], reader) is None
    assert adapt("Are Dora Lake and Elm Pond both lakes?", [ELM, DORA], reader) is None
    assert reader.reads == 0
    # chain-shaped or not, the rule holds (the chain rule would search "Dora Lake …" again)
    assert adapt("Which is older, Dora Lake or Elm Pond?", [DORA, ELM], reader, True) is None


def test_a_comparisons_missing_subject_is_looked_up_by_name() -> None:
    reader = CountingReader()
    adaptive = adapt("Which is older, Dora Lake or Elm Pond?", [DORA, OTHER], reader)
    assert adaptive is not None and adaptive.second.lookup
    assert adaptive.second.step.query == "Elm Pond"
    assert adaptive.first.record.answer is None and reader.reads == 0  # nothing to read
    # no entity pages (no page about a name among the hits): no lookup
    handbook = "Handbook\n\nThe company lends a laptop to every employee."
    assert adapt("Which is older, Dora Lake or Elm Pond?", [handbook], reader) is None


def test_the_names_of_the_first_hops_sentence_are_looked_up_too() -> None:
    """The bridge read over every hit may come from another page ("Quiet Harbor", whose page is
    there); the question's own entity page's sentence names who else starred: looked up."""
    harbor = (
        "Quiet Harbor\n\nQuiet Harbor is a 2004 American film in which Lena Moor starred "
        "alongside Nina Vos."
    )
    vos = "Nina Vos\n\nNina Vos is a Dutch actress."
    question = "Which English actor starred in the 2004 film The Glass Orchard with Lena Moor?"
    adaptive = adapt(question, [FILM, harbor, vos, OTHER], StepReader())
    assert adaptive is not None and adaptive.second.lookup
    assert "Victor Hale" in adaptive.second.step.query.split("; ")


def test_a_heading_the_question_writes_as_titled_is_an_entity_page() -> None:
    """ "In regards to Velvet yield an analyst argued …": the mention finder keeps only
    "Velvet", but the question writes the page's heading as it is titled."""
    page = passage(1, "Velvet yield\n\nVelvet yield is a bond measure. Ada Crane argued it.")
    assert entity_pages("In regards to Velvet yield an analyst argued, what did she found?", [page])
    section = passage(1, "Equipment\n\nThe company lends a laptop and a monitor for home offices.")
    assert not entity_pages(
        "What equipment does the company lend to employees working remotely?", [section]
    )


def test_a_lookup_keeps_the_named_entities_own_pages() -> None:
    found = hits(FILM, ACTOR, OTHER)
    assert [p.n for p in looked_up("Victor Hale", found)] == [2]
    assert [p.n for p in looked_up("Mara Quill; Tom Brandt; Victor Hale", found)] == [2, 3]
    assert looked_up("Lena Moor", found) == []  # named on a page, but she has none
    assert [p.n for p in looked_up("Victor Hale of Leeds", found)] == [2]
    pages, read = lookup("Mara Quill; Victor Hale", found)  # no step read: the pages found
    assert [p.n for p in pages] == [2] and read is not None and read.text == "Victor Hale"
    assert read.sentence.startswith("Victor Hale (born 3 May 1961)") and read.passage == 2
    assert lookup("Mara Quill", found) == ([], None)


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


CAST = (
    "Copper Lane (1998 film)\n\nCopper Lane is a 1998 British crime film directed by Guy Orr, "
    "produced by Ian Vale and starring Jo Marsh, Dee Flint, Ned Moss, Sam Pike, Ray Holt and "
    "Tim Boyd."
)
BOYD = "Tim Boyd\n\nTim Boyd (born 2 May 1965) is a British actor and former boxer."
PIKE = "Sam Pike\n\nSam Pike (born 1970) is a British actor."
MARSH = "Jo Marsh\n\nJo Marsh (born 1968) is an English actress."


def test_a_dozen_names_of_the_first_hops_page_are_looked_up() -> None:
    """A cast list names eight people; the one the question describes ("born in 1965") is
    the last: every name of the page is a candidate, not only the first three."""
    question = "What career did the British actor born in 1965 and star of Copper Lane have?"
    adaptive = adapt(question, [CAST, OTHER], StepReader())
    assert adaptive is not None and adaptive.second.lookup
    names = adaptive.second.step.query.split("; ")
    assert "Tim Boyd" in names and len(names) <= LOOKUP_CANDIDATES
    assert (adaptive.second.step.top_k or 0) >= 2 * len(names)  # deep enough for each page


def test_a_lookup_ranks_the_pages_by_the_questions_words() -> None:
    """Several names have pages: the bridge's first, then the page holding most of the
    question's words ("British", "1965", "boxer"), one page per entity."""
    question = "Which British actor born in 1965 was a boxer before acting?"
    found = hits(MARSH, PIKE, BOYD, BOYD)
    query = "Jo Marsh; Sam Pike; Tim Boyd"
    ranked = looked_up(query, found, question, StepReader())
    assert [p.n for p in ranked] == [1, 3, 2]  # Jo Marsh read as the bridge, then Tim Boyd
    assert [p.n for p in looked_up("Sam Pike; Tim Boyd", found, question, StepReader())][:1] == [2]
    pages, read = lookup("Ned Moss; Tim Boyd; Sam Pike", found, question, StepReader())
    assert [p.n for p in pages] == [3, 2] and read is not None
    assert read.text == "Tim Boyd; Sam Pike"


def test_a_page_about_what_the_question_describes_is_a_first_hop() -> None:
    """ "the fast-food chain specializing in seafood": the top hit is a page about it, by a
    title its first sentence opens with; its names are looked up (the novel)."""
    chain = (
        "Harbor Jack's\n\nHarbor Jack's LLC is an American fast-food restaurant chain that "
        'specializes in seafood. The brand\'s name is derived from the novel "Salt Compass" by '
        "Mira Dunn."
    )
    novel = "Salt Compass\n\nSalt Compass is an adventure novel by Mira Dunn."
    assert described_page(passage(1, chain))
    question = "What genre is the novel from which the seafood fast-food chain derives its name?"
    adaptive = adapt(question, [chain, OTHER], StepReader())
    assert adaptive is not None and adaptive.second.lookup
    assert "Salt Compass" in adaptive.second.step.query.split("; ")
    assert [p.n for p in looked_up(adaptive.second.step.query, hits(novel))] == [1]
    # not described pages: a section, one common word, a title the text does not open with,
    # a Korean title
    for text in (
        "## Remote Work\n\nRemote Work is allowed two days a week.",
        "Equipment\n\nEquipment is lent to every employee.",
        "Bluewave Logistics partnership\n\nBluewave Logistics is a partner.",
        "Safety Audit\n\nThe audit of the plant found two issues.",
        "# 한빛로보틱스 회사 소개\n\n한빛로보틱스 회사 소개 자료이다.",
    ):
        assert not described_page(passage(1, text)), text


def test_a_covered_who_question_looks_its_person_up() -> None:
    """One page holds every word asked and names the person: their own page is looked up
    (extractively, no step read); a covered question asking for no person gets no step."""
    freeman = (
        "Paul Orme (cryptozoologist)\n\nPaul Orme was an American tracker. The plaster casts "
        "Orme made were thought critical pieces of evidence by the anthropologist Ben "
        "Ardley of Lakeside University."
    )
    question = (
        "Who was the anthropologist who thought the plaster casts made by Paul Orme were "
        "critical pieces of evidence?"
    )
    reader = CountingReader()
    adaptive = adapt(question, [freeman, OTHER], reader)
    assert adaptive is not None and adaptive.second.lookup and reader.reads == 0
    assert adaptive.second.step.query == "Ben Ardley of Lakeside University"
    ardley = passage(1, "Benjamin Ardley\n\nBenjamin Ardley is a professor of anthropology.")
    assert own_passage(adaptive.second.step.query, ardley)  # Ben for Benjamin
    assert not own_passage("Ben Ardley", passage(1, "Benjamin Arden\n\nAn actor."))
    when = "When were the plaster casts Paul Orme made thought critical pieces of evidence?"
    assert adapt(when, [freeman + " He made them in 1982.", OTHER], reader) is None


HARBOR = (
    "Harbor Bay University\n\nHarbor Bay University is an accredited private university in "
    "Westport. It was founded by scholars of public universities. Its head of research is "
    "Professor Ana Reyes, who served as Professor of Lindell University."
)


def test_an_alternative_answered_by_its_subjects_sentence_gets_no_step() -> None:
    reader = CountingReader()
    assert adapt("Is Harbor Bay University public or private?", [HARBOR, OTHER], reader) is None
    assert adapt("Harbor Bay University: public or private?", [HARBOR, OTHER], reader) is None


def test_an_alternative_follows_the_subjects_sentence_to_the_page_it_names() -> None:
    """ "public or private" is no comparison of two subjects: the sentence about the question's
    person says no value, and names the university whose own page does — though one page
    holds every word of the question ("public" and "private" in two other sentences)."""
    question = "Ana Reyes is a professor at a university that is public or private?"
    adaptive = adapt(question, [HARBOR, OTHER], StepReader(), shaped=True)
    assert adaptive is not None and adaptive.second.lookup
    assert "Lindell University" in adaptive.second.step.query.split("; ")
    assert adaptive.first.record.answer is not None
    assert "Ana Reyes" in adaptive.first.record.answer.sentence


def test_an_alternative_on_a_kb_without_entity_pages_searches_the_bridge_with_the_values() -> None:
    question = "한빛로보틱스에 투자한 회사는 상장사인가요 비상장사인가요?"
    doc = (Path(__file__).resolve().parents[1] / "fixtures/ko_company/investment.md").read_text()
    adaptive = adapt(question, [doc], StepReader(), shaped=True)
    assert adaptive is not None and not adaptive.second.lookup
    assert adaptive.second.step.query == "{{s1.answer}} 상장사 비상장사"
    assert adaptive.first.record.answer is not None
    assert adaptive.first.record.answer.text in ("동해캐피털", "푸른벤처스")
    # a Korean alternative the sentence answers: no step ("대전에" is in the sentence)
    company = Path(__file__).resolve().parents[1] / "fixtures/ko_company/hanbit_company.md"
    asked = "한빛로보틱스 본사는 대전에 있나요 서울에 있나요?"
    assert adapt(asked, [company.read_text()], StepReader(), shaped=True) is None
