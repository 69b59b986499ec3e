"""English reading rules of the extractive reader: a year after an English word is no model
number ("a 2014 film" is not model "A2014"), and function words the search's stop list keeps
("had", "also") are not question terms the evidence check counts; an irregular verb is its base
form ("found" is "find") and a "What did X find?" question asks for its verb; a person's page
that writes the name otherwise ("Victor James Hale" on "Victor Hale") heads the answer with its
title; a bridge passage is read past its defining sentence. Invented texts, and our English
fixture documents."""

from __future__ import annotations

from planrag.llm.e5 import E5Embedder
from planrag.services.answers import Passage
from planrag.services.extractive import Extractor
from planrag.services.reader import Reader
from planrag.text.answer_types import asked_verb, model_codes
from planrag.text.english_verbs import base_form
from planrag.text.tokenizer import tokenizer_for
from tests.services.ko_passages import passages


def passage(n: int, content: str, title: str | None = None) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


def test_a_year_after_an_english_word_is_no_model_number() -> None:
    assert model_codes("Lena Moor plays Ada Vell in a 2014 film set in what state?") == set()
    assert model_codes("It was nominated at the 1995 ceremony.") == set()
    assert model_codes("The 1990 season opened early.") == set()
    # capitals, joined codes and Korean text keep theirs
    assert model_codes("the KF 21 jet and the X-15") == {"KF21", "X15"}
    assert model_codes("누리봇 s 3의 배터리") == {"S3"}


def test_a_films_year_does_not_rule_out_the_sentence_naming_the_actor() -> None:
    """ "the 1995 film" made the question ask for model THE1995: the sentence naming the cast
    (after one holding "a 1995 …", read as model A1995) lost to one naming "the 1995 ceremony"."""
    reader = Reader()
    question = "Which English actor starred in the 1995 drama film Harbor Lights with Lena Moor?"
    assert reader.question(question).codes == set()
    film = passage(
        1,
        "Harbor Lights is a 1995 drama film set in Maine. It stars Lena Moor, Victor "
        "Hale and Ada Brink. It was nominated for two awards at the 1995 ceremony.",
        title="Harbor Lights (1995 film)",
    )
    reading = reader.read(question, [film])
    assert reading.lead is not None and "Victor Hale" in reading.lead.text


def test_function_words_are_no_question_terms() -> None:
    """ "What actor … also had a role …": "also" and "had" counted as terms kept the actor's
    own page below the evidence floor, and the answer said nothing was found."""
    reader = Reader()
    question = "What actor from the show Harbor Lights also had a role in a show with Dana Pike?"
    assert not {"also", "had"} & reader.terms(question)
    actor = passage(
        1,
        "Victor Hale is an American actor. He is known for his role as Sam on the sitcom Harbor "
        "Lights.",
        title="Victor Hale (actor)",
    )
    assert reader.evidence(question, [actor]) == [1]
    reading = reader.read(question, [actor])
    assert reading.lead is not None and reading.passage is not None


def test_an_irregular_verb_is_its_base_form_in_content_terms_only() -> None:
    """ "found" shares nothing with "find" once stemmed; the content terms fold it, the BM25
    index's terms do not (an index built before stays valid), and "founded" stays "found"."""
    tokenizer = tokenizer_for()
    assert "find" in tokenizer.tokenize("Two issues were found.")
    assert "found" in tokenizer.tokenize("The company was founded in 1990.")
    assert "found" in tokenizer.index_tokens("Two issues were found.")
    assert base_form("led") == "lead" and base_form("left") == "left"  # "left": not folded


def test_the_asked_verb_of_an_english_question() -> None:
    assert asked_verb("What did the safety audit find?") == "find"
    assert asked_verb("Which university did Ada Brink attend?") == "attend"
    assert asked_verb("Where did Ada Brink play football in college?") is None
    assert asked_verb("Which actor do the two films have in common?") is None
    assert asked_verb("Did Ada Brink publish a novel?") is None


def test_what_the_audit_found_leads_over_its_date() -> None:
    """Our English fixture: the date sentence repeats "safety audit" and named Icheon; the
    finding holds the asked verb ("found" is "find")."""
    reader = Reader()
    docs = passages("en_safety_audit.md", "en_trade_fair.md", "en_partner_report.md")
    reading = reader.read("What did the safety audit find?", docs)
    assert reading.lead is not None and "fire exit" in reading.lead.text


def test_a_person_page_that_writes_the_name_otherwise_heads_the_answer() -> None:
    """ "Victor James Hale (born …) is a British actor." on the page "Victor Hale": the lead
    opens with the page's title."""
    reader = Reader()
    question = "Which British actor born 3 May 1971 starred in Harbor Lights?"
    actor = passage(
        1,
        "Victor James Hale (born 3 May 1971) is a British actor. He starred in Harbor Lights.",
        title="Victor Hale",
    )
    reading = reader.read(question, [actor])
    assert reading.lead is not None and reading.lead.text.startswith("Victor James Hale")
    assert reading.headline == "Victor Hale"


def test_the_second_hop_reads_the_bridge_passage_past_its_defining_sentence() -> None:
    """The bridge passage's first sentence defines it and holds most of the question's words
    ("Kelso is one of the 12 provinces … situated in the western part …"): the reader's best
    sentence of that passage; the one holding what the first hop lacks ("capital") answers."""
    question = (
        "Dunmore District is situated in the western part of a province whose capital is what?"
    )
    docs = [
        passage(
            1,
            "Dunmore District is situated in the western part of Kelso Province, Freedonia. It "
            "borders Arden Province to the west.",
            title="Dunmore District",
        ),
        passage(
            2,
            "Kelso is one of the 12 provinces of Freedonia, situated in the western part of the "
            "country. It is divided into seven districts. Its capital is Tarin.",
            title="Kelso Province",
        ),
    ]
    reading = Extractor().read(question, docs)
    assert reading.lead is not None and "Tarin" in reading.lead.text


# A new user's product FAQ: each answer sits under the question it answers.
_FAQ = """# Lumen X200 smart projector — FAQ

## What is the brightness of the X200?
The Lumen X200 delivers 2,400 ANSI lumens. The cheaper X100 model delivers 1,500 ANSI lumens.

## How long does the lamp last?
The X200 uses an LED light source rated for 30,000 hours. The X100's LED is rated for 20,000 hours.

## Which streaming apps are supported?
Netflix, YouTube and Disney+ are preinstalled on the X200.
"""


def _faq() -> list[Passage]:
    return [Passage(n=1, chunk_id="c1", doc_id="faq", knowledge_base="kb", score=1.0, content=_FAQ)]


def test_a_sections_heading_says_what_its_sentences_are_about() -> None:
    # "bright" is only in the heading over the sentence that answers; without it the lamp's
    # hours (X200 and a number too, and e5's nearest sentence) led.
    reading = Reader(embedder=E5Embedder(1)).read("How bright is the X200?", _faq())
    assert reading.lead is not None and "2,400 ANSI lumens" in reading.lead.text


def test_a_relation_its_heading_states_is_not_missing() -> None:
    # "long" and "last" are together only in the heading "How long does the lamp last?".
    reading = Extractor(floor=0.5).read("How long does the X100 LED last?", _faq())
    assert reading.lead is not None and "20,000 hours" in reading.lead.text
    assert reading.absent is None


_SYNC = """# Weekly sync — Search team

Attendees: Priya Nair (lead), Tom Becker, Mina Cho, Luis Ortega.

## Decisions
- Code freeze for the summer release starts on 30 June.
- Priya will present the search roadmap at the all-hands meeting on 12 June.

## Action items
- Tom: write the Kubernetes runbook.
"""


def test_a_first_name_its_page_gives_in_full_is_a_person() -> None:
    # "Priya" alone is no full name, but the page names Priya Nair: the sentence holds a
    # person, and the attendee list (full names, none of the asked words) does not lead.
    shown = [Passage(n=1, chunk_id="c1", doc_id="s", knowledge_base="kb", score=1.0, content=_SYNC)]
    reading = Reader().read("Who will present the search roadmap?", shown)
    assert reading.lead is not None and reading.lead.text.startswith("Priya will present")
    reading = Reader().read("Who is responsible for the Kubernetes runbook?", shown)
    assert reading.lead is not None and reading.lead.text.startswith("Tom: write")
