"""Real HWP 5 files for tests, built from the published HWP 5.0 format (revision 1.3) in our own
compound file (`tests/ingest/cfb.py`): FileHeader, DocInfo, BodyText/SectionN (raw deflate or
stored), PrvText. Paragraphs are records (PARA_HEADER, PARA_TEXT, PARA_CHAR_SHAPE); a table is
an extended control in its paragraph's text followed by CTRL_HEADER, TABLE and one LIST_HEADER
plus paragraph per cell, one level deeper, as Hangul writes them.

The data of every eight-WCHAR control is filled with visible Hangul, so a reader that does not
skip a control whole shows it in the text.

Shared with other test packages: `from tests.ingest.hwp_files import make_hwp`.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from tests.ingest.cfb import compound_file

SIGNATURE = b"HWP Document File"
VERSION = 0x05010001  # 5.1.0.1
COMPRESSED, PASSWORD, DISTRIBUTION = 1 << 0, 1 << 1, 1 << 2
BEGIN = 0x010
DOCUMENT_PROPERTIES = BEGIN
PARA_HEADER, PARA_TEXT, PARA_CHAR_SHAPE = BEGIN + 50, BEGIN + 51, BEGIN + 52
CTRL_HEADER, LIST_HEADER, TABLE = BEGIN + 55, BEGIN + 56, BEGIN + 61
_LEAK = "숨은자료새면안됨"  # what a control's data reads as when not skipped


@dataclass(frozen=True)
class Control:
    """A control character: `code` < 32; `ctrl_id` names an extended control's object."""

    code: int
    ctrl_id: str = ""


LINE_BREAK = Control(10)
TAB = Control(9)  # inline: eight WCHARs
FIELD_END = Control(4)  # inline
SECTION_DEF = Control(2, "secd")  # extended
COLUMN_DEF = Control(2, "cold")  # extended
FIELD_START = Control(3, "%hlk")  # extended (a hyperlink field; its text follows)
HYPHEN = Control(24)  # char
FIXED_SPACE = Control(31)  # char


@dataclass(frozen=True)
class Table:
    """A table: rows of cell texts; its control sits in the paragraph holding it."""

    rows: list[list[str]]


Piece = str | Control | Table
Paragraph = list[Piece]


def make_hwp(
    sections: list[list[Paragraph]],
    *,
    compressed: bool = True,
    flags: int = 0,
    body_storage: str = "BodyText",
    raw_sections: list[bytes] | None = None,
) -> bytes:
    """An .hwp file of these sections; `flags` adds FileHeader bits (PASSWORD, DISTRIBUTION);
    `raw_sections` are section streams written as given (damaged ones), after `sections`."""
    flags |= COMPRESSED if compressed else 0
    header = SIGNATURE.ljust(32, b"\0") + struct.pack("<II", VERSION, flags)
    streams = {"FileHeader": header.ljust(256, b"\0")}
    properties = struct.pack("<7H3I", len(sections), *[1] * 6, 0, 0, 0)
    doc_info = record(DOCUMENT_PROPERTIES, 0, properties)
    streams["DocInfo"] = _deflate(doc_info) if compressed else doc_info
    for number, paragraphs in enumerate(sections):
        body = b"".join(_paragraph(p, level=0) for p in paragraphs)
        streams[f"{body_storage}/Section{number}"] = _deflate(body) if compressed else body
    for number, raw in enumerate(raw_sections or [], start=len(sections)):
        streams[f"{body_storage}/Section{number}"] = raw
    streams["PrvText"] = "미리보기".encode("utf-16-le")
    return compound_file(streams)


def record(tag: int, level: int, payload: bytes) -> bytes:
    """One record: 32-bit header (tag 10 bits, level 10 bits, size 12 bits) and payload."""
    if len(payload) >= 0xFFF:
        return struct.pack("<II", tag | level << 10 | 0xFFF << 20, len(payload)) + payload
    return struct.pack("<I", tag | level << 10 | len(payload) << 20) + payload


def _deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def _paragraph(pieces: Paragraph, level: int) -> bytes:
    text = b"".join(_units(piece) for piece in pieces) + struct.pack("<H", 13)
    chars = len(text) // 2
    header = struct.pack("<IIHBBHHHI", chars, 0, 0, 0, 0, 1, 0, 0, 0)
    out = record(PARA_HEADER, level, header)
    if chars > 1:  # Hangul writes no PARA_TEXT for a paragraph holding only its break
        out += record(PARA_TEXT, level + 1, text)
    out += record(PARA_CHAR_SHAPE, level + 1, struct.pack("<II", 0, 0))
    for piece in pieces:
        if isinstance(piece, Table):
            out += _table(piece, level + 1)
    return out


def _units(piece: Piece) -> bytes:
    if isinstance(piece, str):
        return piece.encode("utf-16-le")
    if isinstance(piece, Table):
        piece = Control(11, "tbl ")
    code = struct.pack("<H", piece.code)
    if piece.code in (0, 10, 13) or piece.code >= 24:  # char controls: one WCHAR
        return code
    leak = _LEAK.encode("utf-16-le")
    if piece.ctrl_id:  # extended: code, control id (4 bytes), 8 bytes of data, code
        return code + _chid(piece.ctrl_id) + leak[:8] + code
    return code + leak[:12] + code  # inline: code, 12 bytes of data, code


def _chid(name: str) -> bytes:
    """MAKE_4CHID(a, b, c, d) = a<<24 | b<<16 | c<<8 | d, stored little-endian."""
    a, b, c, d = (ord(ch) for ch in name)
    return struct.pack("<I", a << 24 | b << 16 | c << 8 | d)


def _table(table: Table, level: int) -> bytes:
    rows, cols = len(table.rows), max(len(r) for r in table.rows)
    out = record(CTRL_HEADER, level, _chid("tbl ") + struct.pack("<I", 0))
    sizes = struct.pack(f"<{rows}H", *[cols] * rows)
    out += record(TABLE, level + 1, struct.pack("<IHHH4H", 0, rows, cols, 0, 0, 0, 0, 0) + sizes)
    for row, cells in enumerate(table.rows):
        for col, cell in enumerate(cells):
            cell_header = struct.pack("<HIH", 1, 0, 0) + struct.pack("<HHHH", col, row, 1, 1)
            out += record(LIST_HEADER, level + 1, cell_header)
            out += _paragraph([cell], level + 1)
    return out
