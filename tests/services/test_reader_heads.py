"""What an English which/what question describes its answer with (its wh-phrase): a lead
holding that description is not replaced by a second hop that does not; and, since session 13,
the description is no scoring signal of its own (it drew leads to other pages of the described
class on held-out questions). Invented texts."""

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


SERIES = passage(
    1,
    'Steel Harbor is a 2002 action film directed by Lin Kwok. It follows "Iron Harbor" (1997) '
    'in the "Harbor" series.',
    "Steel Harbor",
)
OTHER_FILM = passage(
    2,
    'Harbor Lights 3 is a 1994 comedy film and the third and final film of the "Harbor Lights" '
    "series of films.",
    "Harbor Lights 3",
)


def test_the_asked_class_does_not_pull_the_lead_to_another_page_of_that_class() -> None:
    """Session 12 weighted a sentence holding the wh-phrase's words ("film") by 1.5; held out
    it drew the lead to another film's defining sentence (session 13: dropped as a signal)."""
    question = 'Which film does "Steel Harbor" follow in the "Harbor" series?'
    reading = Reader().read(question, [SERIES, OTHER_FILM])
    assert reading.lead is not None and "Iron Harbor" in reading.lead.text, reading.lead


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
