"""What an upload is before it is a document: the file, its checks, its metadata.

Every file of a request is checked (count, size, empty or blank) and its metadata read (a
Markdown file's front matter over the request's) before anything is stored, so a bad file
refuses the request and loses nothing. A file that is not text at all (bytes no encoding reads,
named .md or .txt) passes: its indexing marks that document `error` with the reason, as a
broken PDF's does, and the request's other files are indexed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, Field

from planrag.core.errors import EmptyUpload, InvalidInput, ParseError, UploadTooLarge
from planrag.core.types import Document, DocumentMetadata, FileType
from planrag.ingest.cleaning import clean_text
from planrag.ingest.front_matter import HEAD_BYTES, with_front_matter
from planrag.ingest.parsers import decode_text, detect_file_type

BLANK_CHECK_MAX_BYTES = 1 << 20


def blank_text(item: UploadItem, file_type: FileType) -> bool:
    """A text file (up to 1 MiB; larger ones are left to the parser) holding nothing but
    whitespace and invisible characters."""
    if file_type not in ("txt", "md") or item.size > BLANK_CHECK_MAX_BYTES:
        return False
    data = item.path.read_bytes() if item.path is not None else item.data
    try:
        return not clean_text(decode_text(data)).strip()
    except ParseError:  # not text at all: not blank, its indexing fails with the reason
        return False


class UploadItem(BaseModel):
    """A file to store: its bytes, or a file on disk (HTTP uploads are streamed there and are
    never read whole into memory: hashed and copied block by block)."""

    filename: str
    data: bytes = b""
    path: Path | None = None

    @property
    def size(self) -> int:
        return self.path.stat().st_size if self.path is not None else len(self.data)

    def sha256(self) -> str:
        if self.path is None:
            return hashlib.sha256(self.data).hexdigest()
        with self.path.open("rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()


class UploadedDocument(Document):
    duplicate: bool = False
    metadata_updated: list[str] = Field(
        default_factory=list,
        description="metadata fields this request changed (a re-upload with new metadata, or "
        "PATCH); the document is re-indexed so that filters see them",
    )


def file_metadata(
    item: UploadItem, file_type: FileType, metadata: DocumentMetadata | None
) -> DocumentMetadata | None:
    """The file's metadata: a Markdown file's front matter read into the request's."""
    if file_type != "md":
        return metadata
    if item.path is not None:
        with item.path.open("rb") as stream:
            head = stream.read(HEAD_BYTES)
    else:
        head = item.data[:HEAD_BYTES]
    try:
        text = _decode_head(head)
    except ParseError:  # not text: indexing marks the document `error` with the reason
        return metadata
    return with_front_matter(text, metadata or DocumentMetadata(), item.filename)


def _decode_head(head: bytes) -> str:
    """The text of a file's first bytes, which may end inside a multi-byte character (a Korean
    Markdown file longer than HEAD_BYTES otherwise failed to decode at all)."""
    if len(head) < HEAD_BYTES:
        return decode_text(head)
    for cut in range(3):
        try:
            return decode_text(head[: len(head) - cut])
        except ParseError:
            continue
    return decode_text(head[:-3])


def metadata_changes(current: DocumentMetadata, given: DocumentMetadata) -> DocumentMetadata:
    """`current` with every field `given` carries (non-empty) taken from `given`."""
    update = {
        k: v
        for k, v in given.model_dump().items()
        if k in given.model_fields_set and v not in (None, "", [])
    }
    return current.model_copy(update=update)


def check_uploads(items: list[UploadItem], *, max_files: int, max_bytes: int) -> list[FileType]:
    """Check every file before anything is stored; returns their file types."""
    if not items:
        raise InvalidInput("no files: send one or more multipart fields named 'files'")
    if len(items) > max_files:
        raise InvalidInput(f"too many files: at most {max_files} per request")
    types: list[FileType] = []
    for item in items:
        types.append(detect_file_type(item.filename))
        size = item.size
        if not size:
            raise EmptyUpload(f"'{item.filename}' is empty", filename=item.filename)
        if blank_text(item, types[-1]):  # one rule: nothing to index is an empty file
            raise EmptyUpload(
                f"'{item.filename}' is empty (only whitespace)", filename=item.filename
            )
        check_size(item.filename, size, max_bytes)
    return types


def check_size(filename: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise UploadTooLarge(
            f"'{filename}' is {size} bytes; the limit is {max_bytes}"
            " (PLANRAG_INGEST__MAX_UPLOAD_MB)",
            filename=filename,
        )
