"""How much one document may become while it is read (PLANRAG_INGEST__MAX_INFLATED_MB,
PLANRAG_INGEST__MAX_CHUNKS): one limit for every format.

A few hundred kilobytes of upload can inflate to gigabytes: a DOCX or HWPX is a zip whose XML
parts deflate ~1000:1, an HWP's sections are deflated streams, a PDF's pages are compressed
content streams. Each parser takes what it inflates or decodes from one `InflationBudget`
*before* holding it (a zip member's declared size — `zipfile` never inflates past it — an HWP
section through a bounded inflate, a PDF page's text, a text file's bytes), so a bomb fails at
once with a clear reason instead of filling memory; the chunk count is checked before anything
is embedded.
"""

from __future__ import annotations

import zipfile

from pydantic import BaseModel

from planrag.core.errors import ParseError

MB = 1024 * 1024


class ReadLimits(BaseModel):
    max_inflated_bytes: int = 64 * MB
    max_chunks: int = 5000


class InflationBudget:
    """The bytes a document may still inflate to; `take` refuses what would pass it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)

    def take(self, size: int, what: str) -> None:
        if self.used + size > self.limit:
            raise ParseError(
                f"{what} inflates past the limit of {_size(self.limit)} per document "
                f"({self.used + size} bytes; PLANRAG_INGEST__MAX_INFLATED_MB): a compression "
                "bomb, or a document to split",
                limit=self.limit,
            )
        self.used += size

    def take_zip(self, archive: zipfile.ZipFile, names: list[str] | None = None) -> None:
        """Every member (or those named) at its declared inflated size, before any is read."""
        members = archive.infolist() if names is None else [archive.getinfo(n) for n in names]
        self.take(sum(m.file_size for m in members), "the archive")


def _size(limit: int) -> str:
    return f"{limit / MB:g} MB" if limit >= MB else f"{limit} bytes"


def check_chunks(count: int, limit: int) -> None:
    if count > limit:
        raise ParseError(
            f"the document splits into {count} chunks or more, past the limit of {limit} "
            "(PLANRAG_INGEST__MAX_CHUNKS): split it into several documents",
            chunks=count,
            limit=limit,
        )
