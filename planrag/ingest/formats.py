"""Text of the office and web formats people in Korea send: Word (.docx, streamed with lxml),
HWPX (the XML form of Hangul Word Processor files: a zip of OWPML sections), HTML (the standard
library's parser: visible text, block elements on their own lines) and CSV (one line per row,
each value labelled with its column). Binary HWP 5 (.hwp) is read by `hwp.py`."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import IO
from xml.etree import ElementTree

from lxml import etree

from planrag.core.errors import ParseError
from planrag.ingest.inflation import InflationBudget

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# What a paragraph's text is made of, as Word shows it: text runs, tabs and line breaks.
_DOCX_TEXT = {f"{W}t": None, f"{W}tab": "\t", f"{W}br": "\n", f"{W}cr": "\n"}


def docx_text(data: bytes, budget: InflationBudget) -> str:
    """Paragraphs and table rows in document order (headings become Markdown headings).

    Every part of the zip counts against the budget first. The body is streamed with lxml's
    `iterparse`, each top-level paragraph or table read and then freed: python-docx builds a
    proxy per paragraph and looks its style up one by one, which took over ten minutes for a
    20 MB `document.xml` (bench/inflate.py); this reads it in seconds."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        budget.take_zip(archive)
        styles = _docx_style_names(archive)
        with archive.open("word/document.xml") as part:
            return "\n\n".join(_docx_blocks(part, styles))
    except zipfile.BadZipFile as exc:
        raise ParseError("not a valid .docx file (not a zip archive)") from exc
    except KeyError as exc:
        raise ParseError("not a valid .docx file: no word/document.xml") from exc
    except etree.XMLSyntaxError as exc:
        raise ParseError(f"not a valid .docx file: {exc}") from exc


def _docx_blocks(part: IO[bytes], styles: dict[str, str]) -> Iterator[str]:
    body = f"{W}body"
    for _, element in etree.iterparse(part, events=("end",), resolve_entities=False):
        parent = element.getparent()
        if parent is None or parent.tag != body:
            continue
        if element.tag == f"{W}p":
            text = _docx_paragraph(element).strip()
            style = element.find(f"{W}pPr/{W}pStyle")
            name = styles.get(style.get(f"{W}val", ""), "") if style is not None else ""
            level = re.match(r"[Hh]eading ?(\d)", name)
            if text:
                yield f"{'#' * int(level.group(1))} {text}" if level else text
        elif element.tag == f"{W}tbl":
            for row in element.iter(f"{W}tr"):
                cells = [
                    "\n".join(_docx_paragraph(p) for p in cell.iter(f"{W}p")).strip()
                    for cell in row.iter(f"{W}tc")
                ]
                line = " | ".join(dict.fromkeys(c for c in cells if c))
                if line:
                    yield line
        element.clear()
        while element.getprevious() is not None:
            del parent[0]


def _docx_paragraph(paragraph: etree._Element) -> str:
    parts = []
    for node in paragraph.iter(*_DOCX_TEXT):
        fixed = _DOCX_TEXT[node.tag]
        parts.append(node.text or "" if fixed is None else fixed)
    return "".join(parts)


def _docx_style_names(archive: zipfile.ZipFile) -> dict[str, str]:
    """Style id → name (`Heading1` → `heading 1`), from word/styles.xml when there is one."""
    try:
        root = etree.fromstring(archive.read("word/styles.xml"), _SAFE_XML)
    except KeyError:
        return {}
    except etree.XMLSyntaxError as exc:
        raise ParseError(f"not a valid .docx file: styles: {exc}") from exc
    names = {}
    for style in root.iter(f"{W}style"):
        name = style.find(f"{W}name")
        if name is not None:
            names[style.get(f"{W}styleId", "")] = name.get(f"{W}val", "")
    return names


_SAFE_XML = etree.XMLParser(resolve_entities=False, no_network=True)


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
