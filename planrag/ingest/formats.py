"""Text of the office and web formats people in Korea send: Word (.docx, python-docx), HWPX (the
XML form of Hangul Word Processor files: a zip of OWPML sections), HTML (the standard library's
parser: visible text, block elements on their own lines) and CSV (one line per row, each value
labelled with its column). Binary HWP 5 (.hwp) is read by `hwp.py`."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from html.parser import HTMLParser
from xml.etree import ElementTree

from planrag.core.errors import ParseError
from planrag.ingest.inflation import InflationBudget


def docx_text(data: bytes, budget: InflationBudget) -> str:
    """Paragraphs and table rows in document order (headings become Markdown headings).
    python-docx reads every part of the zip: all of them count against the budget first."""
    try:
        budget.take_zip(zipfile.ZipFile(io.BytesIO(data)))
    except zipfile.BadZipFile as exc:
        raise ParseError("not a valid .docx file (not a zip archive)") from exc
    try:
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        document = docx.Document(io.BytesIO(data))
    except Exception as exc:
        raise ParseError(f"not a valid .docx file: {exc}") from exc
    lines: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            text = block.text.strip()
            style = (block.style.name if block.style is not None else "") or ""
            level = re.match(r"Heading (\d)", style)
            if text:
                lines.append(f"{'#' * int(level.group(1))} {text}" if level else text)
        elif isinstance(block, Table):
            for row in block.rows:
                cells = [c.text.strip() for c in row.cells]
                lines.append(" | ".join(dict.fromkeys(c for c in cells if c)))
    return "\n\n".join(line for line in lines if line)


def hwpx_text(data: bytes, budget: InflationBudget) -> str:
    """The paragraphs of every section of an HWPX file (`Contents/section*.xml`, `<hp:p>`)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError("not a valid .hwpx file (not a zip archive)") from exc
    sections = sorted(
        (n for n in archive.namelist() if re.fullmatch(r"Contents/section\d+\.xml", n)),
        key=lambda n: int(re.findall(r"\d+", n)[-1]),
    )
    if not sections:
        raise ParseError("not a valid .hwpx file: no Contents/section*.xml")
    budget.take_zip(archive, sections)
    paragraphs: list[str] = []
    for name in sections:
        try:
            root = ElementTree.fromstring(archive.read(name))
        except ElementTree.ParseError as exc:
            raise ParseError(f"{name} is not valid XML: {exc}") from exc
        for element in root.iter():
            if _local(element.tag) == "p":
                text = "".join(t.text or "" for t in element.iter() if _local(t.tag) == "t").strip()
                if text:
                    paragraphs.append(text)
    return "\n\n".join(paragraphs)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


class _VisibleText(HTMLParser):
    BLOCKS = {
        "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
        "header", "footer", "table", "ul", "ol", "blockquote", "pre", "title",
    }  # fmt: skip
    HIDDEN = {"script", "style", "noscript", "template", "head"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0
        self._title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._title = True
        elif tag in self.HIDDEN:
            self._hidden += 1
        if tag in self.BLOCKS:
            self.parts.append("\n")
        if tag in ("h1", "h2", "h3") and not self._hidden:
            self.parts.append("#" * int(tag[1]) + " ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._title = False
        elif tag in self.HIDDEN and self._hidden:
            self._hidden -= 1
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._title or not self._hidden:
            self.parts.append(data)


def html_text(text: str) -> str:
    """The visible text of an HTML page; block elements on their own lines."""
    parser = _VisibleText()
    parser.feed(text)
    parser.close()
    lines = (
        re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in "".join(parser.parts).split("\n")
    )
    return "\n".join(line for line in lines if line)


def csv_text(text: str) -> str:
    """One line per row, `column: value` pairs (the first row names the columns)."""
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel  # type: ignore[assignment]
    rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    if not rows:
        return ""
    header, body = [c.strip() for c in rows[0]], rows[1:]
    if not body:
        return " | ".join(header)
    lines = []
    for row in body:
        pairs = [
            f"{header[i] if i < len(header) and header[i] else f'column {i + 1}'}: {value.strip()}"
            for i, value in enumerate(row)
            if value.strip()
        ]
        lines.append("; ".join(pairs))
    return "\n".join(lines)
