"""One limit on what every format inflates to (PLANRAG_INGEST__MAX_INFLATED_MB), checked before
the inflated bytes are held: a DOCX whose document.xml deflates ~1000:1, an HWPX, an HWP section,
a PDF's pages and plain text formats (issue 22 #5). Every file is built here."""

from __future__ import annotations

import io
import zipfile

import pytest

from planrag.core.errors import ParseError
from planrag.ingest.inflation import MB, ReadLimits
from planrag.ingest.parsers import parse_document
from tests.ingest.hwp_files import make_hwp
from tests.ingest.pdfs import make_pdf
from tests.ingest.test_formats import make_docx, make_hwpx

SMALL = ReadLimits(max_inflated_bytes=1 * MB)
PARAGRAPH = "<w:p><w:r><w:t>연차 휴가는 15일이다. 반복되는 문단.</w:t></w:r></w:p>"


def inflating_docx(inflated: int) -> bytes:
    """A real DOCX whose word/document.xml is about `inflated` bytes of one paragraph repeated
    (it deflates ~100:1 and more)."""
    source = zipfile.ZipFile(io.BytesIO(make_docx()))
    original = source.read("word/document.xml").decode()
    head, tail = original.split("<w:body>", 1)
    repeats = inflated // len(PARAGRAPH.encode())
    body = f"{head}<w:body>{PARAGRAPH * repeats}{tail}"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target:
        for info in source.infolist():
            data = body.encode() if info.filename == "word/document.xml" else source.read(info)
            target.writestr(info.filename, data)
    return buffer.getvalue()


def test_an_inflating_docx_fails_before_it_is_parsed() -> None:
    bomb = inflating_docx(2 * MB)
    assert len(bomb) < 100_000  # a small upload
    with pytest.raises(ParseError, match="MAX_INFLATED_MB") as caught:
        parse_document(bomb, "docx", SMALL)
    assert "1 MB" in caught.value.message
    # Under the limit the same kind of file is read.
    assert "연차 휴가" in parse_document(inflating_docx(200_000), "docx", SMALL).text


def test_hwpx_and_hwp_take_the_same_limit() -> None:
    big = "가나다라 " * 150_000  # ~1.8 MB of UTF-8 in one paragraph
    with pytest.raises(ParseError, match="MAX_INFLATED_MB"):
        parse_document(make_hwpx([(big, "a", "b")]), "hwpx", SMALL)
    assert parse_document(make_hwpx([("짧은 문단", "a", "b")]), "hwpx", SMALL).text
    for compressed in (True, False):  # UTF-16: ~1.5 MB a section
        hwp = make_hwp([[big[:750_000]]], compressed=compressed)
        with pytest.raises(ParseError, match="MAX_INFLATED_MB"):
            parse_document(hwp, "hwp", SMALL)
        assert parse_document(make_hwp([["짧은 문단"]]), "hwp", SMALL).text == "짧은 문단"


def test_pdf_pages_and_text_formats_take_the_same_limit() -> None:
    tiny = ReadLimits(max_inflated_bytes=200)
    pdf = make_pdf(["첫 쪽의 글입니다. " * 10, "둘째 쪽의 글입니다. " * 10])
    with pytest.raises(ParseError, match="page 2 inflates past"):
        parse_document(pdf, "pdf", ReadLimits(max_inflated_bytes=400))
    text = ("한 줄의 글입니다.\n" * 50).encode()
    for kind in ("txt", "md", "html", "csv"):
        with pytest.raises(ParseError, match="MAX_INFLATED_MB"):
            parse_document(text, kind, tiny)  # type: ignore[arg-type]
        assert parse_document(text, kind, SMALL).text  # type: ignore[arg-type]
