from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from planrag.text.korean import get_kiwi, split_sentences


def sentences(text: str) -> list[str]:
    spans = split_sentences(text)
    for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False):
        assert end <= next_start
    return [text[start:end] for start, end in spans]


def test_korean_sentences() -> None:
    text = "안녕하세요.  저는 학생입니다!\n\n이것은 테스트다 그리고 또 다른 문장이다. 끝인가요?"
    assert sentences(text) == [
        "안녕하세요.",
        "저는 학생입니다!",
        "이것은 테스트다",
        "그리고 또 다른 문장이다.",
        "끝인가요?",
    ]


def test_english_sentences_are_split_too() -> None:
    text = (
        "The quick brown fox jumps over the lazy dog. It was not amused! Was it? Yes. "
        "Dr. Smith said so. J. K. Rowling wrote it, e.g. in 1997. Pi is 3.14 and more."
    )
    assert sentences(text) == [
        "The quick brown fox jumps over the lazy dog.",
        "It was not amused!",
        "Was it?",
        "Yes.",
        "Dr. Smith said so.",
        "J. K. Rowling wrote it, e.g. in 1997.",
        "Pi is 3.14 and more.",
    ]


def test_mixed_korean_and_english() -> None:
    text = "Revenue grew 3.5%. Costs fell.\nNew line here. 한국어 문장도 있다. 그리고 끝."
    assert sentences(text) == [
        "Revenue grew 3.5%.",
        "Costs fell.",
        "New line here.",
        "한국어 문장도 있다.",
        "그리고 끝.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "😀😀 이모지 뒤의 문장입니다. 𠀀 확장 한자 뒤의 문장이다. 다음.",
        "  앞뒤 공백이 있는 문장이다.   다음.  ",
        "ｆｕｌｌ\u3000ｗｉｄｔｈ 전각 문자다. 다음.",
    ],
)
def test_offsets_are_exact_with_astral_and_wide_characters(text: str) -> None:
    spans = split_sentences(text)
    assert len(spans) >= 2
    for start, end in spans:
        piece = text[start:end]
        assert piece == piece.strip() and piece
    # together the sentences hold every non-space character, in order
    covered = "".join(text[start:end] for start, end in spans)
    assert "".join(covered.split()) == "".join(text.split())
    assert text[spans[-1][0] : spans[-1][1]] == "다음."


def test_blank_text_has_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\t ") == []


def test_one_sentence_without_punctuation() -> None:
    assert sentences("마침표 없는 한 문장") == ["마침표 없는 한 문장"]


def test_kiwi_is_created_once_even_under_concurrency() -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        instances = list(pool.map(lambda _: get_kiwi(), range(32)))
    assert all(instance is instances[0] for instance in instances)
    assert get_kiwi() is instances[0]


def test_long_text_is_split_exactly_across_blocks() -> None:
    korean = [
        "대한민국은 민주공화국이다.",
        "모든 국민은 법 앞에 평등하다.",
        "The committee met on Monday.",
        "국가는 재외국민을 보호할 의무를 진다.",
    ]
    expected = korean * 150
    text = " ".join(expected[:300]) + "\n" + " ".join(expected[300:])
    assert len(text) > 10_000  # many blocks for Kiwi
    assert sentences(text) == expected


def test_long_text_without_spaces_is_fully_covered() -> None:
    text = "가나다라마바사" * 1000
    spans = split_sentences(text)
    assert "".join(text[start:end] for start, end in spans) == text
