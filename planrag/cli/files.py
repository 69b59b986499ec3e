"""Which files `planrag ingest` uploads, which it skips (and why), and each file's metadata:
the command's options, then a Markdown file's front matter, then a sidecar `NAME.meta.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planrag.core.errors import InvalidInput, PlanragError

SIDECAR_SUFFIX = ".meta.json"


def collect_files(
    paths: list[Path],
) -> tuple[list[Path], list[tuple[Path, str]], list[tuple[Path, str]]]:
    """(files to upload, failures, skipped). A path named on the command line that is missing
    or unsupported is a failure; files inside folders that cannot be ingested are skipped and
    listed with the reason, never silently."""
    from planrag.ingest.parsers import detect_file_type

    files: list[Path] = []
    failures: list[tuple[Path, str]] = []
    skipped: list[tuple[Path, str]] = []
    for path in paths:
        if not path.exists():
            failures.append((path, "not found"))
            continue
        if not path.is_dir():
            try:
                detect_file_type(path.name)
                files.append(path)
            except PlanragError as exc:
                failures.append((path, exc.message))
            continue
        for candidate in sorted(p for p in path.rglob("*") if p.is_file()):
            if candidate.name.endswith(SIDECAR_SUFFIX):
                continue  # the metadata of another file
            if candidate.name.startswith("."):
                skipped.append((candidate, "hidden file"))
                continue
            try:
                detect_file_type(candidate.name)
            except PlanragError as exc:
                skipped.append((candidate, exc.message))
                continue
            files.append(candidate)
    return files, failures, skipped


def _sidecar(path: Path) -> dict[str, Any]:
    sidecar = path.with_name(path.name + SIDECAR_SUFFIX)
    if not sidecar.exists():
        return {}
    try:
        found = json.loads(sidecar.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise InvalidInput(f"{sidecar.name} is not a JSON object: {exc}") from exc
    if not isinstance(found, dict):
        raise InvalidInput(f"{sidecar.name} is not a JSON object")
    return found


def file_metadata(path: Path, defaults: dict[str, Any]) -> dict[str, Any]:
    """The metadata of one file: options < front matter < sidecar; tags from all three."""
    from planrag.ingest.front_matter import front_matter, is_markdown, known_fields

    layers = [known_fields(defaults)]
    if is_markdown(path.name):
        layers.append(
            known_fields(front_matter(path.read_text(encoding="utf-8", errors="replace")))
        )
    layers.append(known_fields(_sidecar(path)))
    merged: dict[str, Any] = {}
    tags: list[str] = []
    for layer in layers:
        tags += [t for t in layer.pop("tags", []) if t not in tags]
        merged |= layer
    return {**merged, "tags": tags}
