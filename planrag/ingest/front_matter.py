"""A Markdown file's YAML front matter (`---` lines around `author: …`, `date: …`, `tags: …`):
read into the document's metadata and never indexed as text. One reader for every way in —
`planrag ingest`, HTTP and console uploads."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from planrag.core.errors import InvalidInput
from planrag.core.types import DocumentMetadata

METADATA_FIELDS = ("title", "author", "domain", "date", "info", "tags")
MARKDOWN_SUFFIXES = (".md", ".markdown")
HEAD_BYTES = 64 * 1024  # front matter longer than this is not front matter


def _block_end(lines: list[str]) -> int | None:
    """The index of the closing `---`/`...` line when `lines` open with a front-matter fence."""
    if not lines or lines[0].strip() != "---":
        return None
    return next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "...")), None)


def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a Markdown text, else {} (a body that is not a mapping, such as
    a thematic break `---` before ordinary text, is not front matter). Invalid YAML between
    the fences is refused with a clear error."""
    lines = text.lstrip("\ufeff").splitlines()
    end = _block_end(lines)
    if end is None:
        return {}
    import yaml

    try:
        found = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise InvalidInput(f"front matter is not valid YAML: {exc}") from exc
    return found if isinstance(found, dict) else {}


def strip_front_matter(text: str) -> str:
    """The text without its front matter (unchanged when it has none)."""
    try:
        if not front_matter(text):
            return text
    except InvalidInput:
        return text
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    end = _block_end([line.rstrip("\r\n") for line in lines])
    return "".join(lines[(end or 0) + 1 :]).lstrip("\r\n")


def known_fields(values: dict[str, Any]) -> dict[str, Any]:
    """The metadata fields of a front matter or sidecar (other keys are ignored), normalised
    to strings and a list of tags."""
    picked = {k: values[k] for k in METADATA_FIELDS if values.get(k) not in (None, "")}
    if "date" in picked:
        picked["date"] = str(picked["date"])  # YAML reads 2024-03-15 as a date
    if "tags" in picked:
        tags = picked["tags"]
        picked["tags"] = [str(t) for t in tags] if isinstance(tags, list) else [str(tags)]
    for key in ("title", "author", "domain", "info"):
        if key in picked:
            picked[key] = str(picked[key])
    return picked


def is_markdown(filename: str) -> bool:
    return filename.lower().endswith(MARKDOWN_SUFFIXES)


def with_front_matter(text: str, base: DocumentMetadata, filename: str) -> DocumentMetadata:
    """`base` (the upload's metadata, the same for every file of a request) overlaid with the
    file's front matter, as `planrag ingest` does: its fields win, tags are merged. A value
    the metadata cannot hold (a date that is not one) is refused naming the file."""
    try:
        found = known_fields(front_matter(text))
    except InvalidInput as exc:
        raise InvalidInput(f"'{filename}': {exc.message}", filename=filename) from exc
    if not found:
        return base
    tags = list(base.tags)
    tags += [t for t in found.pop("tags", []) if t not in tags]
    try:
        return DocumentMetadata.model_validate({**base.model_dump(), **found, "tags": tags})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(
            f"'{filename}': front matter has a value the metadata cannot hold ({problems})",
            filename=filename,
        ) from exc
