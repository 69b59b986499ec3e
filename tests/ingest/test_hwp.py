"""HWP 5 (.hwp) files to text: every file is built here (tests/ingest/hwp_files.py, in our own
compound file writer) and first checked to open in `olefile` without a single defect."""

from __future__ import annotations

import io
import random

import olefile
import pytest

from planrag.core.errors import ParseError
from planrag.ingest.hwp import (
    PROTECTED_DISTRIBUTION,
    PROTECTED_PASSWORD,
    hwp_text,
    paragraph_text,
)
from planrag.ingest.parsers import detect_file_type, parse_document
from tests.ingest.hwp_files import (
    COLUMN_DEF,
    DISTRIBUTION,
    FIELD_END,
    FIELD_START,
    FIXED_SPACE,
    HYPHEN,
    LINE_BREAK,
    PARA_TEXT,
    PASSWORD,
    SECTION_DEF,
    TAB,
    Table,
    make_hwp,
    record,
)

REGULATION = [
    [SECTION_DEF, COLUMN_DEF, "제1조(목적) 이 규정은 연차 휴가를 정한다."],
    ["첫째 줄", LINE_BREAK, "둘째 줄"],
    [],  # an empty paragraph: no PARA_TEXT record at all
    ["항목", TAB, "Annual leave is 15 days."],
    ["자세한 내용은 ", FIELD_START, "규정집", FIELD_END, " 참고"],
    ["근속별 일수:", Table([["근속", "일수"], ["3년", "16일"]])],
    ["e", HYPHEN, "mail", FIXED_SPACE, "주소"],
]
REGULATION_TEXT = (
    "제1조(목적) 이 규정은 연차 휴가를 정한다.\n\n첫째 줄\n둘째 줄\n\n"
    "항목\tAnnual leave is 15 days.\n\n자세한 내용은 규정집 참고\n\n"
    "근속별 일수:\n\n근속\n\n일수\n\n3년\n\n16일\n\ne-mail 주소"
)


def long_korean(seed: int, length: int) -> str:
    """Syllables at random: deflate cannot shrink them much, so the section stays large."""
    rng = random.Random(seed)
    return "".join(chr(0xAC00 + rng.randrange(11172)) for _ in range(length))


def open_strictly(data: bytes) -> olefile.OleFileIO:
    return olefile.OleFileIO(io.BytesIO(data), raise_defects=olefile.DEFECT_POTENTIAL)


def test_olefile_opens_the_built_files_mini_and_regular_streams() -> None:
    big = long_korean(1, 5000)
    for compressed in (True, False):
        data = make_hwp([REGULATION, [[SECTION_DEF, big]]], compressed=compressed)
        with open_strictly(data) as ole:
            assert sorted("/".join(p) for p in ole.listdir()) == [
                "BodyText/Section0", "BodyText/Section1", "DocInfo", "FileHeader", "PrvText",
            ]  # fmt: skip
            assert ole.get_size("BodyText/Section0") < 4096  # in the mini stream
            assert ole.get_size("BodyText/Section1") > 4096  # in regular sectors
            assert ole.openstream("FileHeader").read().startswith(b"HWP Document File")


@pytest.mark.parametrize("compressed", [True, False])
def test_text_is_extracted_exactly(compressed: bool) -> None:
    data = make_hwp([REGULATION], compressed=compressed)
    assert hwp_text(data) == REGULATION_TEXT
    parsed = parse_document(data, "hwp").text  # cleaned: the tab becomes a space
    assert parsed == REGULATION_TEXT.replace("\t", " ")


@pytest.mark.parametrize("compressed", [True, False])
def test_sections_in_order_and_a_large_section(compressed: bool) -> None:
    big = long_korean(2, 6000)
    sections = [[[SECTION_DEF, f"{n}번 구역"]] for n in range(12)]  # Section10 after Section9
    sections[3].append([big])
    text = hwp_text(make_hwp(sections, compressed=compressed))
    paragraphs = text.split("\n\n")
    assert paragraphs[:4] == ["0번 구역", "1번 구역", "2번 구역", "3번 구역"]
    assert paragraphs[4] == big
    assert paragraphs[5:] == [f"{n}번 구역" for n in range(4, 12)]


def test_control_characters_one_by_one() -> None:
    def units(*pieces: int | str | bytes) -> bytes:
        return b"".join(
            p if isinstance(p, bytes)
            else p.encode("utf-16-le") if isinstance(p, str)
            else p.to_bytes(2, "little")
            for p in pieces
        )  # fmt: skip

    inline = units(9, "가나다라마바", 9)  # a tab: eight WCHARs, shown as a tab
    extended = units(11, b" lbt", "사아자차", 11)  # a table control: eight WCHARs, no text
    assert paragraph_text(units("앞", inline, "뒤", 13)) == "앞\t뒤"
    assert paragraph_text(units("표", extended, "끝", 13)) == "표끝"
    assert paragraph_text(units("a", 10, "b", 24, "c", 30, "d", 31, "e", 13)) == "a\nb-c d e"
    assert paragraph_text(units("보임", 13, "안 보임")) == "보임"  # nothing after the break
    assert paragraph_text(units("😀 이모지", 13)) == "😀 이모지"  # surrogate pairs kept


def test_protected_files_are_refused_with_the_reason() -> None:
    with pytest.raises(ParseError) as password:
        parse_document(make_hwp([REGULATION], flags=PASSWORD), "hwp")
    assert password.value.message == PROTECTED_PASSWORD
    assert password.value.message.startswith("password-protected HWP")
    with pytest.raises(ParseError) as distribution:
        parse_document(make_hwp([REGULATION], flags=DISTRIBUTION), "hwp")
    assert distribution.value.message == PROTECTED_DISTRIBUTION
    assert "save it as HWPX or HWP without protection" in distribution.value.message
    view_text_only = make_hwp([REGULATION], body_storage="ViewText")  # flag missing, text hidden
    with pytest.raises(ParseError, match="distribution-protected HWP"):
        parse_document(view_text_only, "hwp")


def test_files_that_are_not_hwp_5() -> None:
    good = make_hwp([REGULATION])
    cases = {
        b"just some bytes named .hwp": "not an HWP 5 / OLE2 compound file",
        b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05": "HWP 3.x files are not supported",
        b"PK\x03\x04 a zip": "name it .hwpx",
        good[:1024]: "damaged or truncated",
    }
    for data, reason in cases.items():
        with pytest.raises(ParseError, match=reason.replace(".", r"\.")):
            parse_document(data, "hwp")


def test_damaged_body_is_an_error_naming_the_section() -> None:
    not_deflate = make_hwp([REGULATION], raw_sections=[b"\x07\xff\xff"])  # invalid block type
    with pytest.raises(ParseError, match="BodyText/Section1 cannot be inflated"):
        parse_document(not_deflate, "hwp")
    cut = record(PARA_TEXT, 1, "잘린 문단".encode("utf-16-le"))[:-2]
    truncated = make_hwp([REGULATION], compressed=False, raw_sections=[cut])
    with pytest.raises(ParseError, match="BodyText/Section1 ends inside a record"):
        parse_document(truncated, "hwp")
    long_record = record(PARA_TEXT, 1, ("긴 문단" * 1000 + "\r").encode("utf-16-le"))
    assert long_record[2:4] == b"\xf0\xff"  # size 0xFFF: the 32-bit size follows
    extended = make_hwp([], compressed=False, raw_sections=[long_record])
    assert hwp_text(extended) == "긴 문단" * 1000


def test_the_extension_is_recognised() -> None:
    assert detect_file_type("공문.hwp") == "hwp"
    assert detect_file_type("공문.HWP") == "hwp"
