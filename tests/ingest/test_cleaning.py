from __future__ import annotations

import unicodedata

import pytest

from planrag.ingest.cleaning import clean_text


def test_nfc_composes_decomposed_hangul() -> None:
    decomposed = unicodedata.normalize("NFD", "한국어 문서")
    assert decomposed != "한국어 문서"
    assert clean_text(decomposed) == "한국어 문서"


def test_control_and_invisible_characters_removed() -> None:
    assert clean_text("가\x00나\x07다\x1b라\x7f마\ufeff바\u200b사") == "가나다라마바사"


def test_newlines_kept_tabs_collapse_with_spaces() -> None:
    assert clean_text("a\t\tb  \t c\nd") == "a b c\nd"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("one\r\ntwo\rthree", "one\ntwo\nthree"),
        ("page one\fpage two", "page one\npage two"),
        ("line\u2028next", "line\nnext"),
    ],
)
def test_line_breaks_normalised(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


def test_trailing_spaces_stripped_per_line() -> None:
    assert clean_text("첫 줄   \n둘째 줄\t\n셋째") == "첫 줄\n둘째 줄\n셋째"


def test_runs_of_blank_lines_collapse_to_one() -> None:
    assert clean_text("a\n\n\n\n\nb\n\nc\n \n \n\nd") == "a\n\nb\n\nc\n\nd"


def test_nbsp_and_ideographic_space_become_plain_spaces() -> None:
    assert clean_text("가\u00a0\u00a0나\u3000다") == "가 나 다"


def test_latin_hyphenated_line_break_joined() -> None:
    assert clean_text("an exam-\nple of hyphen-\n ation") == "an example of hyphenation"


@pytest.mark.parametrize(
    "kept",
    [
        "한국-\n어",  # Hangul is never hyphenated across lines
        "Jean-\nPaul",  # a capital after the break: a real hyphen, keep it
        "2020-\n2021",  # numbers
        "word -\nnext",  # a dash, not a hyphenated word
    ],
)
def test_other_line_end_hyphens_kept(kept: str) -> None:
    assert clean_text(kept) == kept


def test_leading_and_trailing_blank_space_removed() -> None:
    assert clean_text("\n\n  본문입니다.  \n\n\n") == "본문입니다."


def test_blank_text_is_empty() -> None:
    assert clean_text(" \t\n\r\n\x00 ") == ""


def test_idempotent() -> None:
    raw = "  제목\r\n\r\n\r\n본문\t\t내용  \n exam-\nple\x00 끝 \n\n\n"
    once = clean_text(raw)
    assert clean_text(once) == once


def test_markdown_structure_survives() -> None:
    markdown = "# 제목\n\n- 항목 하나\n- 항목 둘\n\n## 소제목\n본문"
    assert clean_text(markdown) == markdown
