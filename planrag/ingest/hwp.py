"""Text of HWP 5.x files (.hwp, the binary Hangul Word Processor format), after Hancom's published
"HWP 5.0 document file format" (revision 1.3).

An .hwp file is an OLE2 compound file (read with `olefile`). Its `FileHeader` stream holds the
signature, the version and a flags word (bit 0 compressed, bit 1 password, bit 2 distribution
document, bit 4 DRM). The text lives in the `BodyText/Section0..N` streams (raw deflate when
compressed): a sequence of records, each with a 32-bit header (tag id 10 bits, level 10 bits,
size 12 bits; size 0xFFF means a 32-bit size follows). `HWPTAG_PARA_TEXT` records hold a
paragraph's text in UTF-16LE with control characters in it: "char" controls take one WCHAR,
"inline" and "extended" controls take eight (the code, six WCHARs of data or a pointer to the
control's object, the code again). Tables, text boxes, headers and footnotes keep their text in
nested paragraphs that follow their control in the same stream, so walking every PARA_TEXT record
in stream order yields them as paragraphs of their own.

Protected files are refused with a reason the user can act on: a password-protected file is
encrypted, and a distribution document keeps its text encrypted in `ViewText` instead of
`BodyText`. The `PrvText` stream (a preview of the first ~1,000 characters) is deliberately not
used as a fallback: indexing a preview would mark a document `completed` while most of it cannot
be found; a damaged body is an error naming the damaged stream instead.
"""

from __future__ import annotations

import io
import re
import struct
import sys
import zlib
from array import array
from collections.abc import Iterator

import olefile
from pydantic import BaseModel

from planrag.core.errors import ParseError
from planrag.ingest.inflation import InflationBudget, ReadLimits

SIGNATURE = b"HWP Document File"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
HWPTAG_BEGIN = 0x010
HWPTAG_PARA_TEXT = HWPTAG_BEGIN + 51

_COMPRESSED, _PASSWORD, _DISTRIBUTION, _DRM = 1 << 0, 1 << 1, 1 << 2, 1 << 4
# Control codes below 32. "char" controls are one WCHAR (mapped to what they stand for); the
# others are inline (4-9, 19-20) or extended (1-3, 11-12, 14-18, 21-23) controls of eight WCHARs.
_CHAR_CONTROLS: dict[int, str] = {
    0: "", 10: "\n", 13: "", 24: "-", 25: "", 26: "", 27: "", 28: "", 29: "", 30: " ", 31: " ",
}  # fmt: skip
_WIDE_CONTROL_UNITS = 8
_TAB = 9
_PARAGRAPH_BREAK = 13
_SECTION_NAME = re.compile(r"Section(\d+)")

PROTECTED_PASSWORD = "password-protected HWP: remove the password in Hangul and upload it again"
PROTECTED_DISTRIBUTION = "distribution-protected HWP: save it as HWPX or HWP without protection"
PROTECTED_DRM = "DRM-protected HWP: save it without DRM (as HWPX or HWP) and upload it again"


class HwpHeader(BaseModel):
    """What the `FileHeader` stream says about the file."""

    version: tuple[int, int, int, int]
    flags: int

    @property
    def compressed(self) -> bool:
        return bool(self.flags & _COMPRESSED)


def hwp_text(data: bytes, budget: InflationBudget | None = None) -> str:
    """The paragraphs of every body section, in order, separated by blank lines; a line break
    inside a paragraph is a newline and a tab a tab. Raises `ParseError` with the reason."""
    _check_container(data)
    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except Exception as exc:  # olefile raises OSError and others on damaged containers
        raise ParseError(f"not a valid .hwp file: {_reason(exc)} (damaged or truncated?)") from exc
    with ole:
        header = read_header(_stream(ole, "FileHeader"))
        _refuse_protected(header, ole)
        paragraphs: list[str] = []
        budget = budget or InflationBudget(ReadLimits().max_inflated_bytes)
        for name in section_names(ole):
            stream = _stream(ole, name)
            paragraphs.extend(section_paragraphs(stream, header.compressed, name, budget))
    return "\n\n".join(paragraphs)


def _check_container(data: bytes) -> None:
    if data.startswith(OLE_MAGIC):
        return
    if data.startswith(SIGNATURE):
        raise ParseError("HWP 3.x files are not supported: save it as HWPX or HWP 5 (Hangul 2002+)")
    if data.startswith(b"PK\x03\x04"):
        raise ParseError("not a valid .hwp file: this is a zip archive (HWPX?): name it .hwpx")
    raise ParseError("not a valid .hwp file (not an HWP 5 / OLE2 compound file)")


def read_header(stream: bytes) -> HwpHeader:
    """Signature, version (major, minor, build, revision) and flags of a `FileHeader` stream."""
    if len(stream) < 40 or not stream.startswith(SIGNATURE):
        raise ParseError("not a valid .hwp file: the FileHeader signature is missing")
    version_word, flags = struct.unpack_from("<II", stream, 32)
    version = (version_word >> 24, (version_word >> 16) & 0xFF, (version_word >> 8) & 0xFF,
               version_word & 0xFF)  # fmt: skip
    if version[0] != 5:
        raise ParseError(f"HWP version {'.'.join(map(str, version))} is not supported (5.x is)")
    return HwpHeader(version=version, flags=flags)


def _refuse_protected(header: HwpHeader, ole: olefile.OleFileIO) -> None:
    if header.flags & _PASSWORD:
        raise ParseError(PROTECTED_PASSWORD)
    if header.flags & _DRM:
        raise ParseError(PROTECTED_DRM)
    has_body = ole.exists("BodyText")
    if header.flags & _DISTRIBUTION or (not has_body and ole.exists("ViewText")):
        raise ParseError(PROTECTED_DISTRIBUTION)
    if not has_body:
        raise ParseError("not a valid .hwp file: no BodyText storage")


def section_names(ole: olefile.OleFileIO) -> list[str]:
    """`BodyText/SectionN` stream paths in section order (Section10 after Section9)."""
    numbered: list[tuple[int, str]] = []
    for path in ole.listdir(streams=True, storages=False):
        if len(path) == 2 and path[0] == "BodyText":
            match = _SECTION_NAME.fullmatch(path[1])
            if match:
                numbered.append((int(match.group(1)), "/".join(path)))
    if not numbered:
        raise ParseError("not a valid .hwp file: BodyText has no Section streams")
    return [name for _, name in sorted(numbered)]


def _stream(ole: olefile.OleFileIO, name: str) -> bytes:
    try:
        return ole.openstream(name).read()  # type: ignore[no-any-return]
    except OSError as exc:
        raise ParseError(f"not a valid .hwp file: no {name} stream") from exc
    except Exception as exc:  # a broken sector chain
        raise ParseError(f"not a valid .hwp file: {name} is damaged ({_reason(exc)})") from exc


def section_paragraphs(
    stream: bytes, compressed: bool, name: str, budget: InflationBudget
) -> list[str]:
    """The non-blank paragraph texts of one section stream (its inflated size taken from the
    document's budget)."""
    if compressed:
        body = _inflate(stream, name, budget)
    else:
        budget.take(len(stream), name)
        body = stream
    paragraphs: list[str] = []
    for tag, payload in records(body, name):
        if tag == HWPTAG_PARA_TEXT:
            text = paragraph_text(payload).strip()
            if text:
                paragraphs.append(text)
    return paragraphs


def _inflate(stream: bytes, name: str, budget: InflationBudget) -> bytes:
    """The section inflated, never more than the budget leaves (plus one byte to tell)."""
    inflater = zlib.decompressobj(-15)
    try:
        body = inflater.decompress(stream, budget.remaining + 1)
    except zlib.error as exc:
        raise ParseError(f"not a valid .hwp file: {name} cannot be inflated ({exc})") from exc
    budget.take(len(body), name)  # cut at one byte past the budget: refused
    return body


def records(body: bytes, name: str) -> Iterator[tuple[int, memoryview]]:
    """(tag id, payload) of every record of a section stream, in order."""
    view = memoryview(body)
    position = 0
    while position < len(body):
        if position + 4 > len(body):
            raise ParseError(f"not a valid .hwp file: {name} ends inside a record header")
        (word,) = struct.unpack_from("<I", body, position)
        tag, size = word & 0x3FF, word >> 20
        position += 4
        if size == 0xFFF:
            if position + 4 > len(body):
                raise ParseError(f"not a valid .hwp file: {name} ends inside a record header")
            (size,) = struct.unpack_from("<I", body, position)
            position += 4
        if position + size > len(body):
            raise ParseError(f"not a valid .hwp file: {name} ends inside a record (truncated?)")
        yield tag, view[position : position + size]
        position += size


def paragraph_text(payload: bytes | memoryview) -> str:
    """A PARA_TEXT record to text: controls resolved, eight-WCHAR controls skipped whole."""
    units = array("H")
    units.frombytes(bytes(payload[: len(payload) // 2 * 2]))
    if sys.byteorder == "big":
        units.byteswap()
    parts: list[str] = []
    run_start = index = 0
    count = len(units)
    while index < count:
        code = units[index]
        if code >= 32:
            index += 1
            continue
        parts.append(_decode(units[run_start:index]))
        if code in _CHAR_CONTROLS:
            parts.append(_CHAR_CONTROLS[code])
            index += 1
        else:
            parts.append("\t" if code == _TAB else "")
            index += _WIDE_CONTROL_UNITS
        run_start = index
        if code == _PARAGRAPH_BREAK:
            break
    else:
        parts.append(_decode(units[run_start:count]))
    return "".join(parts)


def _decode(units: array) -> str:
    if sys.byteorder == "big":
        units = array("H", units)
        units.byteswap()
    return units.tobytes().decode("utf-16-le", errors="replace")


def _reason(exc: Exception) -> str:
    return str(exc).strip() or type(exc).__name__
