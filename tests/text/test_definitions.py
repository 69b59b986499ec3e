"""The sentence that defines an entity, and the type its head noun implies (Kiwi for Korean)."""

from __future__ import annotations

import pytest

from planrag.text.definitions import definition, first_mention

TEXT = (
    "이 투자는 푸른벤처스가 주도했다. 푸른벤처스는 서울 강남구에 본사를 두고 있다. "
    "푸른벤처스는 2012년에 설립된 벤처캐피털로, 주로 로봇과 물류 기술 기업에 투자한다."
)


@pytest.mark.parametrize(
    ("names", "text", "sentence", "head", "type_"),
    [
        (["푸른벤처스"], TEXT, TEXT.split(". ")[-1], "벤처캐피털", "ORGANIZATION"),
        (
            ["한빛로보틱스"],
            "한빛로보틱스는 2015년에 설립되었다. 한빛로보틱스는 로봇을 만드는 회사이다.",
            "한빛로보틱스는 로봇을 만드는 회사이다.",
            "회사",
            "ORGANIZATION",
        ),
        (
            ["Nuritech", "누리테크"],
            "누리테크(Nuritech)는 물류 소프트웨어 기업이며 판교에 있다.",
            "누리테크(Nuritech)는 물류 소프트웨어 기업이며 판교에 있다.",
            "기업",
            "ORGANIZATION",
        ),
        (
            ["한지훈"],
            "한지훈은 푸른벤처스의 대표입니다.",
            "한지훈은 푸른벤처스의 대표입니다.",
            "대표",
            "PERSON",
        ),
        (
            ["SpaceX"],
            "SpaceX builds rockets. SpaceX is an American spacecraft manufacturer.",
            "SpaceX is an American spacecraft manufacturer.",
            "manufacturer",
            "ORGANIZATION",
        ),
    ],
)
def test_the_first_defining_sentence(
    names: list[str], text: str, sentence: str, head: str, type_: str
) -> None:
    found = definition(names, text)
    assert found is not None
    assert (found.sentence, found.head, found.type) == (sentence, head, type_)


@pytest.mark.parametrize(
    ("names", "text"),
    [
        (["한빛"], "한빛로보틱스는 회사이다."),  # a name inside a longer word
        (["서울"], "서울로 본사를 옮겼다, 작년에."),  # no subject particle
        (["푸른벤처스"], "이 투자는 푸른벤처스가 주도했다."),  # not the subject
        (["박지은"], "박지은은 매일 출근한다."),  # no noun predicate
    ],
)
def test_sentences_that_define_nothing(names: list[str], text: str) -> None:
    assert definition(names, text) is None


def test_first_mention() -> None:
    assert first_mention(["푸른벤처스"], TEXT) == "이 투자는 푸른벤처스가 주도했다."
    assert first_mention(["누리테크"], TEXT) is None
