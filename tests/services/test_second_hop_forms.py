"""The second hop (`services/second_hop.py`), session 13: words asking for the answer's form
("the title of", "what type of") are not what the second sentence must add, and a lead from a
passage naming none of the question's names does not hold off a pair whose first hop names
them."""

from __future__ import annotations

from planrag.services.answers import Passage
from planrag.services.extractive import Extractor


def passage(n: int, content: str, title: str) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


FILLERS = [
    "The Orland Assembly meets in the old town hall every spring and autumn.",
    "A masquerade was held in the town square of Orland in 1971 for the harvest.",
    "The Brisk House is a museum of farm tools opened in 1972 near the river.",
    "Publishers in the north held a convention in 1998 to choose a leader.",
]


def test_the_title_asked_is_not_a_word_the_second_hop_must_hold() -> None:
    # "title" is in no sentence stating a title; the memoir's sentence holds "memoir" alone of
    # the words the first hop (the gala's honoree) lacks.
    gala = passage(
        1,
        "The Harbor Gala was a masquerade ball held in 1966 in honor of the publisher Kate Gray. "
        "It was hosted by the author Tom Reyes at the Plaza Hotel in Varnland City.",
        "Harbor Gala",
    )
    gray = passage(
        6,
        "Kate Gray (1917–2001) was a Varnland newspaper publisher. "
        'Her memoir, "Private Pages", won a national prize in 1998.',
        "Kate Gray",
    )
    fillers = [passage(n, text, f"Filler {n}") for n, text in enumerate(FILLERS, 2)]
    question = (
        "What is the title of the memoir written by the honoree of the Harbor Gala masquerade "
        "ball in 1966?"
    )
    reading = Extractor().read(question, [gala, *fillers, gray])
    assert reading.lead is not None and "Private Pages" in reading.lead.text, reading.text()
    assert [s.n for s in reading.support] == [1]


def test_a_lead_naming_none_of_the_question_s_names_gives_way_to_the_second_hop() -> None:
    # The Varn people's sentence holds every asked word ("ethnic group", "speak", "language")
    # and nothing the question names; the drummer's passage names his people, whose passage
    # says what they speak.
    varn = passage(
        1,
        "The Varn people are an ethnic group of the eastern hills. "
        "As an ethnic group, they speak the Varn language and keep its songs.",
        "Varn people",
    )
    elling = passage(
        2,
        "Tor Elling (born 7 August 1966) is a Norlandic drummer and music producer.",
        "Tor Elling",
    )
    norland = passage(
        3,
        "Norlanders are a Germanic people native to Norland. "
        "They share a common culture and speak the Norlandic language.",
        "Norlanders",
    )
    question = "What language does the ethnic group of the drummer Tor Elling speak?"
    reading = Extractor().read(question, [varn, elling, norland])
    assert reading.lead is not None and "Norlandic language" in reading.lead.text, reading.text()
    assert [s.n for s in reading.support] == [2]
