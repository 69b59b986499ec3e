"""File type detection and parsing of uploads into clean text: TXT, Markdown, PDF, and (in
`formats.py` and `hwp.py`) Word .docx, HWPX, HWP 5, HTML and CSV."""

from __future__ import annotations

import bisect
import io
import os
import unicodedata

import charset_normalizer
import pypdf
from pydantic import BaseModel

from planrag.core.errors import ParseError, UnsupportedFileType
from planrag.core.types import FileType
from planrag.ingest.cleaning import clean_text
from planrag.ingest.front_matter import strip_front_matter
from planrag.ingest.inflation import InflationBudget, ReadLimits

_EXTENSIONS: dict[str, FileType] = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "md",
    ".markdown": "md",
    ".pdf": "pdf",
    ".docx": "docx",
    ".hwpx": "hwpx",
    ".hwp": "hwp",
    ".html": "html",
    ".htm": "html",
    ".csv": "csv",
}
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(_EXTENSIONS)
PAGE_SEPARATOR = "\n\n"
# Share of control characters above which decoded bytes are taken to be binary, not text.
_MAX_CONTROL_RATIO = 0.01
_BINARY_SAMPLE_CHARS = 100_000


class PageSpan(BaseModel):
    """Where one PDF page lies in the parsed text: 1-based page, [start, end) char offsets."""

    page: int
    start: int
    end: int


class ParsedDocument(BaseModel):
    """Clean text of a document; `pages` is empty for formats without pages (TXT, MD)."""

    text: str
    pages: list[PageSpan] = []

    def page_at(self, offset: int) -> int | None:
        """The page holding `offset`; an offset between two pages belongs to the earlier one."""
        if not self.pages:
            return None
        index = bisect.bisect_right(self.pages, offset, key=lambda span: span.start) - 1
        return self.pages[max(index, 0)].page


def detect_file_type(filename: str) -> FileType:
    """The file type from the file name's extension (case-insensitive)."""
    extension = os.path.splitext(filename.strip())[1].lower()
    file_type = _EXTENSIONS.get(extension)
    if file_type is None:
        supported = ", ".join(SUPPORTED_EXTENSIONS)
        shown = extension or "no extension"
        raise UnsupportedFileType(
            f"unsupported file type ({shown}) for {filename!r}; supported: {supported}",
            filename=filename,
            supported=list(SUPPORTED_EXTENSIONS),
        )
    return file_type


def parse_document(
    data: bytes, file_type: FileType, limits: ReadLimits | None = None
) -> ParsedDocument:
    """Bytes of an upload to clean text (and page spans for PDF). Raises `ParseError`, also
    when the document inflates past `limits` (`inflation.py`)."""
    budget = InflationBudget((limits or ReadLimits()).max_inflated_bytes)
    if file_type == "pdf":
        document = _parse_pdf(data, budget)
    elif file_type == "md":
        # Markdown is kept as written (the context-aware chunker needs its headings), but its
        # front matter is the document's metadata (read at upload), never indexed text.
        budget.take(len(data), "the text")
        document = ParsedDocument(text=clean_text(strip_front_matter(decode_text(data))))
    elif file_type == "txt":
        budget.take(len(data), "the text")
        document = ParsedDocument(text=clean_text(decode_text(data)))
    elif file_type in ("docx", "hwpx", "hwp", "html", "csv"):
        document = ParsedDocument(text=clean_text(_other_format(data, file_type, budget)))
    else:
        raise UnsupportedFileType(f"unsupported file type: {file_type!r}")
    if not document.text:
        raise ParseError("document is empty", reason="empty")
    return document


def _other_format(data: bytes, file_type: FileType, budget: InflationBudget) -> str:
    from planrag.ingest import formats

    if file_type == "docx":
        return formats.docx_text(data, budget)
    if file_type == "hwpx":
        return formats.hwpx_text(data, budget)
    if file_type == "hwp":
        from planrag.ingest.hwp import hwp_text

        return hwp_text(data, budget)
    budget.take(len(data), "the text")
    if file_type == "html":
        return formats.html_text(decode_text(data))
    return formats.csv_text(decode_text(data))


def decode_text(data: bytes) -> str:
    """UTF-8 (BOM or not), then CP949 (a superset of EUC-KR), then charset-normalizer's guess.

    Valid UTF-8 is taken as is (cleaning drops stray control characters); text from any other
    decoding that is full of control characters is binary content, not text.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = _decode_or_none(data, "utf-16")
    else:
        text = _decode_or_none(data, "utf-8-sig")
        if text is not None:
            return text
        if b"\x00" not in data:  # NUL bytes: UTF-16/32 without a BOM, or binary; not CP949
            text = _decode_or_none(data, "cp949")
        if text is None:
            text = _guess(data)
    if text is None:
        raise ParseError(
            "cannot decode text: not UTF-8, CP949/EUC-KR or any known encoding", reason="encoding"
        )
    if _looks_binary(text):
        raise ParseError("not a text file: the content is binary", reason="binary")
    return text


def _decode_or_none(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def _guess(data: bytes) -> str | None:
    best = charset_normalizer.from_bytes(data).best()
    return None if best is None else str(best)


def _looks_binary(text: str) -> bool:
    sample = text[:_BINARY_SAMPLE_CHARS]
    if not sample:
        return False
    controls = sum(
        1 for ch in sample if unicodedata.category(ch) == "Cc" and ch not in "\n\r\t\f\v"
    )
    return controls / len(sample) > _MAX_CONTROL_RATIO


def _parse_pdf(data: bytes, budget: InflationBudget) -> ParsedDocument:
    if not data.strip():
        raise ParseError("document is empty", reason="empty")
    if b"%PDF-" not in data[:1024]:
        raise ParseError("not a valid PDF: the %PDF header is missing", reason="not_pdf")
    pages = _pdf_page_texts(data, budget)
    if not any(text.strip() for text in pages):
        raise ParseError("PDF has no extractable text (scanned image?)", reason="pdf_no_text")
    text, spans = _join_pages([clean_text(page) for page in pages])
    return ParsedDocument(text=text, pages=spans)


def _pdf_page_texts(data: bytes, budget: InflationBudget) -> list[str]:
    """Raw text of every page. pypdf raises many exception types on damaged files (its own
    PdfReadError, but also KeyError, ValueError, TypeError, RecursionError...), so any exception
    while reading untrusted bytes becomes a ParseError with pypdf's reason attached."""
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            _decrypt(reader)
        pages = reader.pages
    except ParseError:
        raise
    except Exception as exc:  # see docstring
        raise ParseError(
            f"not a valid PDF: {_reason(exc)} (damaged or truncated?)", reason="pdf_damaged"
        ) from exc
    texts: list[str] = []
    for number, page in enumerate(pages, start=1):
        try:
            texts.append(page.extract_text() or "")
        except Exception as exc:  # see docstring
            reason = f"page {number}: {_reason(exc)}"
            raise ParseError(
                f"not a valid PDF: {reason} (damaged or truncated?)", reason="pdf_damaged"
            ) from exc
        budget.take(len(texts[-1].encode("utf-8", "surrogatepass")), f"page {number}")
    return texts


def _decrypt(reader: pypdf.PdfReader) -> None:
    """Open a PDF encrypted with an empty user password (common: print/copy restrictions only)."""
    try:
        result = reader.decrypt("")
    except Exception as exc:  # missing crypto backend, unknown algorithm
        raise ParseError(
            f"PDF is encrypted and cannot be decrypted: {_reason(exc)}", reason="pdf_encrypted"
        ) from exc
    if result == pypdf.PasswordType.NOT_DECRYPTED:
        raise ParseError("PDF is encrypted (password protected)", reason="pdf_encrypted")


def _reason(exc: Exception) -> str:
    return str(exc).strip() or type(exc).__name__


def _join_pages(page_texts: list[str]) -> tuple[str, list[PageSpan]]:
    """Join cleaned pages with a blank line, recording each non-empty page's span (1-based)."""
    parts: list[str] = []
    spans: list[PageSpan] = []
    offset = 0
    for number, page_text in enumerate(page_texts, start=1):
        if not page_text:
            continue
        if parts:
            parts.append(PAGE_SEPARATOR)
            offset += len(PAGE_SEPARATOR)
        spans.append(PageSpan(page=number, start=offset, end=offset + len(page_text)))
        parts.append(page_text)
        offset += len(page_text)
    return "".join(parts), spans
