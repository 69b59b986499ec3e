"""What the answer leads with: the second hop's sentence for a question that describes its answer
through a name, the short answer before its sentence (the one span of the asked type, or the
titled subject of a pronoun sentence), never a passage's title line; and "in common" answers."""

from __future__ import annotations

from planrag.services.answers import Passage
from planrag.services.extractive import Extractor
from planrag.services.reader import read
from planrag.text.answer_types import answer_type
from planrag.text.question_shapes import Shared, is_bridge, shared


def passage(n: int, content: str, title: str | None = None) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


TOKAREV = (
    "Sergei Tokarev (29 December 1899 – 19 April 1985) was a Russian ethnographer, historian "
    "and professor at Moscow State University. Tokarev wrote on the religious beliefs of peoples."
)
MSU = (
    "Moscow State University is a coeducational public research university in Moscow. "
    "It was founded on January 25, 1755 by Mikhail Lomonosov."
)


def test_bridge_questions_are_told_by_their_shape() -> None:
    assert is_bridge(
        "In what year was the university where Sergei Tokarev was a professor founded?"
    )
    assert is_bridge("Where did Cale Gundy's brother play football in college?")
    assert not is_bridge("In what year was Moscow State University founded?")
    assert not is_bridge("한빛로보틱스를 이끄는 대표이사의 이름은?")  # Korean: the planner's steps


def test_a_bridge_question_leads_with_the_second_hop() -> None:
    # The first hop's sentence names the question's person and holds dates; the answer is in the
    # passage of the university it names.
    found = [passage(1, TOKAREV, "Sergei Tokarev"), passage(2, MSU, "Moscow State University")]
    question = "In what year was the university where Sergei Tokarev was a professor founded?"
    reading = read(question, found)
    assert reading.lead is not None and reading.lead.n == 2 and "1755" in reading.lead.text
    assert any(s.n == 1 for s in reading.support) or "1755" in reading.text()


def test_the_one_span_of_the_asked_type_leads() -> None:
    found = [passage(1, "The museum's first director was Anna Berg, appointed in 1921.")]
    text = read("Who was the museum's first director?", found).text()
    assert text.startswith("Anna Berg — The museum's first director was Anna Berg")
    # "the Time Quintet" is no person's name
    found = [passage(1, "It is a companion book and part of the Time Quintet.")]
    assert read("The book is part of a series written by who?", found).headline is None
    # two candidate names: no headline, the sentence alone
    found = [passage(1, "Anna Berg and Carl Lind ran the museum from 1921 until 1930.")]
    assert read("Who ran the museum?", found).text().startswith("Anna Berg and Carl Lind")


def test_a_pronoun_sentence_is_led_by_its_passage_subject() -> None:
    found = [
        passage(1, "Henry Lau\n\nHenry Lau is a Canadian singer and actor. He debuted in 2008 as "
                "a member of the boy band Super Junior-M.", "Henry Lau"),
    ]  # fmt: skip
    question = "Which actor debuted as a member of the boy band Super Junior-M in 2008?"
    text = read(question, found).text()
    assert text.startswith("Henry Lau — "), text


def test_a_title_line_is_never_the_answer() -> None:
    content = "No. 1455 Flight RAF\n\nIt was formed at RAF Tangmere, West Sussex in July 1941."
    found = [passage(1, content, "No. 1455 Flight RAF")]
    reading = read("What was No. 1455 Flight RAF?", found)
    assert reading.lead is not None and reading.lead.text.startswith("It was formed")


def test_what_kind_of_asks_for_a_kind() -> None:
    assert answer_type("What kind of musicians are Mark Gaudet and Jan Blomberg?") == "thing"
    assert answer_type("Which musician played the drums?") == "person"


def test_what_two_subjects_have_in_common_leads() -> None:
    assert shared("What type of art does The Consul and Arlecchino have in common?") == Shared(
        ("Consul", "Arlecchino")
    )
    assert shared("Are Phlebodium and Pieris both species of ferns?") is None  # a yes/no
    found = [
        passage(1, "Arlecchino\n\nArlecchino is a one-act opera by Ferruccio Busoni. It was first "
                "staged in Zurich in 1917.", "Arlecchino"),
        passage(2, "The Consul\n\nThe Consul is an opera in three acts by Gian Carlo Menotti. It "
                "opened in Philadelphia in 1950.", "The Consul"),
        passage(3, "Zurich\n\nZurich is the largest city in Switzerland.", "Zurich"),
    ]  # fmt: skip
    question = "What type of art does The Consul and Arlecchino have in common?"
    text = Extractor().answer(question, found, None)
    assert text.startswith("opera — The Consul is an opera"), text
    assert "[1]" in text and "[2]" in text


def test_no_headline_when_the_type_comes_only_from_the_attribute() -> None:
    # "비율" makes a number question, but no question word asks for one: "3" of "제3의" is no
    # answer to open with; "몇 명" asks for a number, "320명" leads.
    found = [passage(1, "연구개발의 결과로 논문은 많지만 제3의 연구자가 활용하는 비율은 낮다.")]
    assert read("특허를 활용하는 비율이 낮은 이유는?", found).headline is None
    found = [passage(1, "한빛로보틱스의 직원 수는 2024년 말 기준 320명이다.")]
    assert read("한빛로보틱스 직원은 몇 명인가?", found).headline == "320명"
