"""What an English which/what question describes its answer with (its wh-phrase): the sentence
holding that description is the candidate answer ("… was a Dutch merchant and shipowner …"),
not the one repeating the words about what the answer relates to ("… is a historic mill located
at Ostend …"); and a lead holding it is not replaced by a second hop that does not. Invented
texts."""

from __future__ import annotations

from planrag.services.answers import Passage
from planrag.services.extractive import Extractor
from planrag.services.reader import Reader
from planrag.text.asked_heads import asked_head


def passage(n: int, content: str, title: str) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


def test_the_words_a_question_describes_its_answer_with() -> None:
    assert asked_head("Which Victorian poet was born in a castle?") == "Victorian poet"
    assert (
        asked_head("Which Dutch merchant and shipowner who worked in Leiden visited the mill?")
        == "Dutch merchant and shipowner"
    )
    assert asked_head("What was the slogan that came about from the idea?") == "slogan"
    assert asked_head("What type of television show did Ada Brink star in?") == "television show"
    assert asked_head("Victor Hale is associated with what type of realism?") == "realism"
    assert asked_head('Which "Harbor Lights" star is in Night Train?') == "Harbor Lights star"
    assert asked_head("Johnny Rand sang at what luxury hotel, casino and spa?") == "luxury hotel"
    assert asked_head("Who wrote the lyrics?") is None
    assert asked_head("Where did Ada Brink play football?") is None


MILL = passage(
    1,
    "The Grain House, also known as Voss Mill, is a historic mill located at Ostend, Ridder "
    "County, Delmar. It was built in 1790 by the miller Jan Voss. The mill was visited by "
    "Pieter de Kalve during his journey north.",
    "The Grain House",
)
PAINTER = passage(
    2,
    "Pieter de Kalve (1601 – 1660) was a Dutch merchant and shipowner who worked in Leiden. He "
    "is best known for his trade with Danzig.",
    "Pieter de Kalve",
)


def test_the_sentence_holding_the_described_answer_leads() -> None:
    """The mill's defining sentence repeats the question's words about the mill (located,
    Ostend, Ridder County, historic) and led; the painter is what the question describes."""
    question = (
        "Which Dutch merchant and shipowner who worked in Leiden visited this historic mill "
        "located at Ostend, Ridder County, known as The Grain House?"
    )
    reading = Reader().read(question, [MILL, PAINTER])
    assert reading.lead is not None and "Pieter de Kalve" in reading.lead.text


CASTLE = passage(
    1,
    "Kestrel Castle is a 15th-century castle built by Robert Lyle in Angus, Delmar. It is the "
    "home of the Earl of Dunmore.",
    "Kestrel Castle",
)
POET = passage(
    2,
    "Lady Ada Brink (22 July 1839 – 15 January 1880), born Ada Fell, was a Victorian poet born "
    "in Angus, possibly at Kestrel Castle.",
    "Lady Ada Brink",
)


def test_a_lead_holding_the_description_is_no_first_hop() -> None:
    """The poet's sentence names the castle, whose passage holds the question's other words
    (15th-century castle, home, Earl): the second hop led with the castle, though the poet's
    sentence is the answer."""
    question = "Which Victorian poet was born in a 15th-century castle home to the Earl of Dunmore?"
    answer = Extractor().read(question, [POET, CASTLE])
    assert answer.lead is not None and "Ada Fell" in answer.lead.text
