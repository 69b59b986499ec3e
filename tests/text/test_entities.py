"""Entity names: one key for every spelling of a name, mentions found in Korean and English."""

from __future__ import annotations

import pytest

from planrag.text.entities import find_mentions, normalize, strip_particles


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("일론 머스크가", "일론_머스크"),
        ("일론 머스크는", "일론_머스크"),
        ("  Elon   Musk ", "elon_musk"),
        ("ELON MUSK", "elon_musk"),
        ("The Beatles", "beatles"),
        ("U.S. Army", "us_army"),
        ("Procter & Gamble", "procter_and_gamble"),
        ("Ｓｐａｃｅ Ｘ", "space_x"),  # full-width (NFKC)
        ('"SpaceX",', "spacex"),
        ("Jay-Z", "jay_z"),
    ],
)
def test_spellings_share_one_key(spelling: str, key: str) -> None:
    assert normalize(spelling) == key


def test_particles_are_stripped_only_after_a_word() -> None:
    assert strip_particles("테슬라의") == "테슬라"
    assert strip_particles("삼성전자에서") == "삼성전자"
    assert strip_particles("이가") == "이가"  # nothing would be left
    assert strip_particles("Tesla") == "Tesla"


def names(text: str) -> list[str]:
    return [m.name for m in find_mentions(text)]


def test_korean_proper_nouns_without_particles() -> None:
    assert names("일론 머스크가 CEO인 회사는?") == ["일론 머스크"]
    assert names("SK하이닉스와 삼성전자가 HBM을 만든다") == ["SK하이닉스", "삼성전자", "HBM"]
    assert names("공자의 제자 안회는 노나라 사람이다") == ["공자", "안회", "노나라"]


def test_english_capitalised_spans() -> None:
    text = (
        "The Bank of America hired Tim Burton. In 2004, the U.S. Army met Elon Musk, CEO of SpaceX."
    )
    assert names(text) == ["Bank of America", "Tim Burton", "U.S. Army", "Elon Musk", "SpaceX"]
    assert names("Who founded the company that makes the iPhone?") == ["iPhone"]
    assert names("Johnson & Johnson") == ["Johnson & Johnson"]


def test_offsets_point_at_the_text() -> None:
    text = "어제 일론 머스크가 말했다"
    [mention] = find_mentions(text)
    assert text[mention.start : mention.end] == "일론 머스크"


def test_a_lone_nationality_language_or_month_is_no_entity() -> None:
    text = (
        "Scott Derrickson is an American director. He moved to Mexican and British films in May. "
        "Americans love the American Civil War, British Airways and January Jones."
    )
    assert names(text) == [
        "Scott Derrickson",
        "American Civil War",
        "British Airways",
        "January Jones",
    ]
    assert names("Ed Wood was an American-born filmmaker") == ["Ed Wood"]
    assert names("일론 머스크가 American 회사를 세웠다") == ["일론 머스크"]


def test_new_opens_a_name_and_sentence_openers_do_not() -> None:
    text = "Born in New York City, she moved to New Jersey. Following the war, Apple, Inc. grew."
    assert names(text) == ["New York City", "New Jersey", "Apple"]
    assert names("New members joined. Originally, Old Trafford was small.") == ["Old Trafford"]


def test_a_name_never_runs_over_a_line_break() -> None:
    assert names("Ken Pruitt\n\nKen Pruitt is a Republican member of the Florida Senate.") == [
        "Ken Pruitt",
        "Ken Pruitt",
        "Republican",
        "Florida Senate",
    ]
