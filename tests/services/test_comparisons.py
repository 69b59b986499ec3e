"""Comparison and yes/no answers: the question's shape (alternatives, what is compared, the
subjects of a verdict), and the answer that leads with the chosen alternative or Yes/No / 예/아니요,
its evidence cited — over our Korean fixtures (qa_choices.jsonl) and English passages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planrag.services.answers import Passage
from planrag.services.comparisons import shaped_reading
from planrag.services.extractive import Extractor
from planrag.services.reader import Reader
from planrag.text.question_shapes import Comparison, YesNo, comparison, yes_no

KO = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"
CHOICES = [json.loads(line) for line in (KO / "qa_choices.jsonl").open()]
DISTRACTORS = ["hr_policy.md", "org_chart.md", "places.md"]


def passage(n: int, content: str, title: str | None = None) -> Passage:
    return Passage(
        n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", title=title, score=1.0 / n,
        content=content,
    )  # fmt: skip


def test_comparison_shapes_in_english_and_korean() -> None:
    assert comparison("Between Greyia and Calibanus, which genus contains more species?") == (
        Comparison(("Greyia", "Calibanus"), "number", True)
    )
    assert comparison("Who was born first, Jane Doe or Maria Tan?") == Comparison(
        ("Jane Doe", "Maria Tan"), "date", False
    )
    assert comparison("Which dog is believed to dispel ghosts, Segugio Italiano or Sapsali?") == (
        Comparison(("Segugio Italiano", "Sapsali"), None, True)
    )
    assert comparison("한빛로보틱스와 푸른벤처스 중 어느 회사가 먼저 설립되었나?") == Comparison(
        ("한빛로보틱스", "푸른벤처스"), "date", False
    )
    assert comparison("누리봇 S1과 S2 중 최대 적재 중량이 더 큰 것은?") == Comparison(
        ("누리봇 S1", "S2"), "number", True
    )
    for other in (
        "Who founded Hanbit Robotics?",
        "한빛로보틱스의 대표는 누구인가?",
        "Tea or coffee",
    ):
        assert comparison(other) is None


def test_yes_no_shapes_in_english_and_korean() -> None:
    assert yes_no("Are Phlebodium and Pieris both species of ferns?") == YesNo(
        ("Phlebodium", "Pieris")
    )
    assert yes_no("Were Halldór Laxness and Timothy Leary from the same country?") == YesNo(
        ("Halldór Laxness", "Timothy Leary"), same=True
    )
    assert yes_no("김도윤과 박지은은 같은 대학교를 졸업했나요?") == YesNo(
        ("김도윤", "박지은"), True
    )
    assert yes_no("누리봇 S1과 S2는 모두 이천 공장에서 생산되나요?") == YesNo(("누리봇 S1", "S2"))
    assert yes_no("누리봇 S2의 최대 적재 중량은 500kg인가요?") is not None
    for other in (
        "한빛로보틱스의 대표는 누구인가요?",
        "Who released it first, U2 or Jai?",
        "S2 가격은?",
    ):
        assert yes_no(other) is None


@pytest.mark.parametrize("case", CHOICES, ids=[c["id"] for c in CHOICES])
def test_korean_choices_and_verdicts_lead_with_the_answer(case: dict[str, str]) -> None:
    names = [*case["docs"], *(d for d in DISTRACTORS if d not in case["docs"])]
    passages = [passage(i, (KO / name).read_text(), name) for i, name in enumerate(names, 1)]
    answer = Extractor().answer(case["question"], passages, None)
    assert answer.startswith(f"{case['answer']} — "), answer
    assert answer.count("[") >= 1  # the evidence is cited


GREYIA = "Greyia\n\nGreyia is a genus of plant in family Melianthaceae. It contains three species."
CALIBANUS = "Calibanus\n\nCalibanus is a genus of two species of flowering plants from Mexico."


def test_an_english_comparison_leads_with_the_winner_and_cites_both() -> None:
    passages = [passage(1, CALIBANUS, "Calibanus"), passage(2, GREYIA, "Greyia")]
    question = "Between Greyia and Calibanus, which genus contains more species?"
    text = Extractor().answer(question, passages, None)
    assert text.startswith("Greyia — It contains three species. [2]")
    assert "[1]" in text  # the loser's sentence is the evidence too
    fewer = Extractor().answer(question.replace("more", "fewer"), passages, None)
    assert fewer.startswith("Calibanus — ")


def test_a_choice_without_a_compared_value_goes_to_the_alternative_the_words_fit() -> None:
    passages = [
        passage(1, "Segugio Italiano\n\nThe Segugio Italiano is an Italian breed of scenthound.",
                "Segugio Italiano"),
        passage(2, "Sapsali\n\nThe Sapsali is a shaggy Korean breed of dog. Traditionally, these "
                "dogs were believed to dispel ghosts and evil spirits.", "Sapsali"),
    ]  # fmt: skip
    question = (
        "Which dog is believed to dispel ghosts and evil spirits, Segugio Italiano or Sapsali?"
    )
    assert Extractor().answer(question, passages, None).startswith("Sapsali — ")


def test_yes_or_no_rests_on_both_subjects_sentences() -> None:
    passages = [
        passage(1, "Phlebodium\n\nPhlebodium is a small genus of two to four species of ferns.",
                "Phlebodium"),
        passage(2, "Pieris (plant)\n\nPieris is a genus of seven species of shrubs in the "
                "family Ericaceae.", "Pieris (plant)"),
        passage(3, "Polypodium\n\nPolypodium is a genus of between 75 and 100 species of ferns.",
                "Polypodium"),
    ]  # fmt: skip
    # Pieris's sentence lacks "ferns": no evidence for "No" either, the ordinary answer
    unsettled = Extractor().answer(
        "Are Phlebodium and Pieris both species of ferns?", passages, None
    )
    assert not unsettled.startswith(("Yes", "No")) and unsettled
    yes = Extractor().answer("Are Phlebodium and Polypodium both species of ferns?", passages, None)
    assert yes.startswith("Yes — ")
    people = [
        passage(1, "Halldór Laxness\n\nHalldór Laxness was a twentieth-century Icelandic writer.",
                "Halldór Laxness"),
        passage(2, "Timothy Leary\n\nTimothy Leary was an American psychologist and writer.",
                "Timothy Leary"),
    ]  # fmt: skip
    question = "Were Halldór Laxness and Timothy Leary from the same country?"
    assert Extractor().answer(question, people, None).startswith("No — ")


def test_no_verdict_without_a_passage_for_each_subject() -> None:
    passages = [passage(1, "Phlebodium\n\nPhlebodium is a small genus of ferns.", "Phlebodium")]
    question = "Are Phlebodium and Pieris both species of ferns?"
    assert shaped_reading(Reader(), question, passages) is None
    assert Extractor().answer(question, passages, None).startswith("Phlebodium is a small genus")


def test_an_unsettled_comparison_still_answers_from_both_subjects_passages() -> None:
    # "a wider scope of profession" is in no passage: the evidence check on words fails, yet
    # both named alternatives have their passages, so the answer is read from them.
    passages = [
        passage(1, "Christopher Guest\n\nChristopher Guest is an English-American screenwriter, "
                "composer, musician, director, actor and comedian.", "Christopher Guest"),
        passage(2, "Roman Karmen\n\nRoman Karmen was a Soviet war cameraman and film director.",
                "Roman Karmen"),
    ]  # fmt: skip
    question = "Who has a wider scope of profession, Christopher Guest or Roman Karmen?"
    extractor = Extractor()
    assert not extractor.reader.evidence(question, passages)
    assert extractor.relevant(question, passages)
    assert extractor.answer(question, passages, None)
    assert not extractor.relevant("Who has a wider scope, Anna Berg or Carl Lind?", passages)


def test_a_number_inside_a_name_is_no_stated_value() -> None:
    # "코로나 19" names the pandemic: the question states no value, so no 예/아니요.
    passages = [passage(1, "코로나 19 사태 이후 금융의 디지털 전환 지수는 42로 빠르게 높아졌다.")]
    question = "코로나 19 사태 이후 금융에서도 디지털 전환이 빠르게 진행되었나요?"
    assert not Extractor().answer(question, passages, None).startswith(("예 — ", "아니요 — "))


def test_shapes_without_a_comma_with_of_the_inside_a_name_and_different() -> None:
    assert comparison("Which was built first Woolworth Building or 1 New York Plaza?") == (
        Comparison(("Woolworth Building", "1 New York Plaza"), "date", False)
    )
    assert comparison("Which came first the chicken or the egg?") is None  # no names
    question = "Are The Man from Snowy River II and Miracle of the White Stallions filmed in " \
        "different countries?"  # fmt: skip
    assert yes_no(question) == YesNo(
        ("The Man from Snowy River II", "Miracle of the White Stallions"), same=True, differ=True
    )


def test_different_countries_and_both_from_a_place_are_judged_by_nationality() -> None:
    films = [
        passage(1, "Harbor Lights\n\nHarbor Lights is a 1988 Australian drama film.",
                "Harbor Lights"),
        passage(2, "Song of the Valley\n\nSong of the Valley is a 1963 American family film.",
                "Song of the Valley"),
        passage(3, "Copper Town\n\nCopper Town is a 1990 Australian western film.",
                "Copper Town"),
    ]  # fmt: skip
    extractor = Extractor()
    differ = "Are Harbor Lights and Song of the Valley films from different countries?"
    assert extractor.answer(differ, films, None).startswith("Yes — ")
    alike = "Are Harbor Lights and Copper Town films from different countries?"
    assert extractor.answer(alike, films, None).startswith("No — ")
    people = [
        passage(1, "Ulla Brandt\n\nUlla Brandt is a German physicist and astronaut.",
                "Ulla Brandt"),
        passage(2, "Luc Moreau\n\nLuc Moreau is a French engineer and astronaut.", "Luc Moreau"),
        passage(3, "Karl Vogt\n\nKarl Vogt is a German chemist.", "Karl Vogt"),
    ]  # fmt: skip
    assert extractor.answer(
        "Were Ulla Brandt and Luc Moreau both from Germany?", people, None
    ).startswith("No — ")
    assert extractor.answer(
        "Were Ulla Brandt and Karl Vogt both from Germany?", people, None
    ).startswith("Yes — ")
