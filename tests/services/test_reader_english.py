"""English reading rules of the extractive reader: a year after an English word is no model
number ("a 2014 film" is not model "A2014"), and function words the search's stop list keeps
("had", "also") are not question terms the evidence check counts. Invented texts."""

from __future__ import annotations

from planrag.services.answers import Passage
from planrag.services.reader import Reader
from planrag.text.answer_types import model_codes


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
