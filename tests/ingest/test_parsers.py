from __future__ import annotations

import io

import pypdf
import pytest

from planrag.core.errors import ParseError, UnsupportedFileType
from planrag.core.types import ChunkingConfig
from planrag.ingest.chunkers import chunk_document
from planrag.ingest.parsers import (
    PageSpan,
    ParsedDocument,
    decode_text,
    detect_file_type,
    parse_document,
)
from tests.ingest.pdfs import make_pdf

KOREAN = (
    "대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다."
)


# --- file types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("notes.txt", "txt"),
        ("NOTES.TXT", "txt"),
        ("readme.text", "txt"),
        ("guide.md", "md"),
        ("Guide.Markdown", "md"),
        ("report.PDF", "pdf"),
        ("dir/sub/보고서.pdf", "pdf"),
        ("archive.tar.md", "md"),
    ],
)
def test_detect_file_type(filename: str, expected: str) -> None:
    assert detect_file_type(filename) == expected


@pytest.mark.parametrize("filename", ["report.xlsx", "noextension", "report.pdf.exe", "x.", ".md"])
def test_unsupported_extension(filename: str) -> None:
    with pytest.raises(UnsupportedFileType) as caught:
        detect_file_type(filename)
    message = str(caught.value)
    for extension in (".txt", ".md", ".pdf"):
        assert extension in message
    assert caught.value.code == "unsupported_file_type"


# --- text decoding ------------------------------------------------------------------------------


def test_utf8_korean() -> None:
    doc = parse_document(KOREAN.encode("utf-8"), "txt")
    assert doc.text == KOREAN
    assert doc.pages == []
    assert doc.page_at(0) is None


def test_utf8_with_bom() -> None:
    doc = parse_document(b"\xef\xbb\xbf" + KOREAN.encode("utf-8"), "txt")
    assert doc.text == KOREAN


def test_cp949_korean_with_extension_syllables() -> None:
    # 똠, 뷁 exist only in CP949's extension: they are not valid EUC-KR (KS X 1001) bytes.
    text = "똠방각하가 뷁 하고 말했다. " + KOREAN
    data = text.encode("cp949")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert parse_document(data, "txt").text == text


def test_euc_kr_korean() -> None:
    data = KOREAN.encode("euc-kr")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert parse_document(data, "txt").text == KOREAN


def test_utf16_with_bom() -> None:
    assert parse_document(KOREAN.encode("utf-16"), "txt").text == KOREAN


def test_neither_utf8_nor_cp949_falls_back_to_detection() -> None:
    # Latin-1 bytes here are invalid UTF-8 and invalid CP949; charset-normalizer takes over.
    text = "Über die Brücke gehen Müller und Schäfer. Größe und Straße sind schön. " * 3
    assert decode_text(text.encode("latin-1")) == text


def test_text_is_cleaned() -> None:
    doc = parse_document("첫 줄  \r\n\r\n\r\n\r\n둘째\t\t줄\x00".encode(), "txt")
    assert doc.text == "첫 줄\n\n둘째 줄"


def test_binary_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        parse_document(bytes(range(256)) * 8, "txt")


def test_markdown_keeps_headings() -> None:
    markdown = "# 개요\n\n본문 첫 문단.\n\n## 세부 사항\n\n- 항목 1\n- 항목 2\n"
    doc = parse_document(markdown.encode(), "md")
    assert doc.text == markdown.strip()
    assert doc.pages == []


@pytest.mark.parametrize("file_type", ["txt", "md", "pdf"])
@pytest.mark.parametrize("data", [b"", b"  \n\t\r\n  "])
def test_empty_document(data: bytes, file_type: str) -> None:
    with pytest.raises(ParseError, match="empty"):
        parse_document(data, file_type)  # type: ignore[arg-type]


def test_parse_error_code() -> None:
    with pytest.raises(ParseError) as caught:
        parse_document(b"", "txt")
    assert caught.value.code == "parse_error"
    assert caught.value.status == 422


# --- PDF ----------------------------------------------------------------------------------------


def test_korean_pdf_extracts_korean() -> None:
    doc = parse_document(make_pdf([KOREAN + "\nHello PDF 2024."]), "pdf")
    assert doc.text == KOREAN + "\nHello PDF 2024."
    assert doc.pages == [PageSpan(page=1, start=0, end=len(doc.text))]


def test_two_page_pdf_spans_and_page_at() -> None:
    first, second = "첫 번째 페이지의 내용입니다.", "두 번째 페이지의 내용입니다. Second page."
    doc = parse_document(make_pdf([first, second]), "pdf")
    assert doc.text == f"{first}\n\n{second}"
    assert [span.page for span in doc.pages] == [1, 2]
    for span, expected in zip(doc.pages, (first, second), strict=True):
        assert doc.text[span.start : span.end] == expected
    assert doc.page_at(0) == 1
    assert doc.page_at(len(first) - 1) == 1
    assert doc.page_at(doc.pages[1].start) == 2
    assert doc.page_at(len(doc.text) - 1) == 2


def test_pdf_chunks_carry_their_page() -> None:
    pages = [
        " ".join(f"{name}쪽 {n}번째 문장입니다." for n in range(1, 30)) for name in ("일", "이")
    ]
    doc = parse_document(make_pdf(pages), "pdf")
    chunks = chunk_document(doc, ChunkingConfig(chunk_size=120, chunk_overlap=20), "doc")
    assert {chunk.page for chunk in chunks} == {1, 2}
    for chunk in chunks:
        if "이쪽" not in chunk.text:
            assert chunk.page == 1
        if "일쪽" not in chunk.text:
            assert chunk.page == 2
        assert chunk.page == doc.page_at(chunk.start)


def test_blank_pdf_page_keeps_later_page_numbers() -> None:
    doc = parse_document(make_pdf(["첫 페이지.", "", "셋째 페이지."]), "pdf")
    assert doc.text == "첫 페이지.\n\n셋째 페이지."
    assert [span.page for span in doc.pages] == [1, 3]
    assert doc.page_at(doc.text.index("셋째")) == 3


def test_pdf_without_text() -> None:
    with pytest.raises(ParseError, match="no extractable text"):
        parse_document(make_pdf(["", ""]), "pdf")


@pytest.mark.parametrize(
    "data",
    [
        b"this is not a pdf at all",
        b"%PDF-1.4\n1 0 obj garbage",
        b"\x89PNG\r\n\x1a\n" + bytes(200),
    ],
)
def test_corrupt_pdf(data: bytes) -> None:
    with pytest.raises(ParseError, match="not a valid PDF: "):
        parse_document(data, "pdf")


def test_truncated_pdf() -> None:
    data = make_pdf([KOREAN])
    with pytest.raises(ParseError, match="not a valid PDF: "):
        parse_document(data[: len(data) // 2], "pdf")


def _encrypted(data: bytes, user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(data))
    writer.encrypt(user_password, owner_password="owner-secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_password_protected_pdf() -> None:
    with pytest.raises(ParseError, match="encrypted"):
        parse_document(_encrypted(make_pdf([KOREAN]), "user-secret"), "pdf")


def test_pdf_encrypted_with_empty_user_password_is_read() -> None:
    doc = parse_document(_encrypted(make_pdf([KOREAN]), ""), "pdf")
    assert doc.text == KOREAN


def test_page_at_without_pages() -> None:
    assert ParsedDocument(text="abc").page_at(1) is None
