"""Which files `planrag ingest` uploads, which it skips (and why), and each file's metadata:
the command's options, then a Markdown file's front matter, then a sidecar `NAME.meta.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planrag.core.errors import InvalidInput, PlanragError

SIDECAR_SUFFIX = ".meta.json"
METADATA_FIELDS = ("title", "author", "domain", "date", "info", "tags")


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


def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a Markdown text (`---` lines around it), else {}."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "..."))
    except StopIteration:
        return {}
    import yaml

    try:
        found = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise InvalidInput(f"front matter is not valid YAML: {exc}") from exc
    return found if isinstance(found, dict) else {}


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


def _known(values: dict[str, Any]) -> dict[str, Any]:
    """The metadata fields of a front matter or sidecar (other keys are ignored), normalised."""
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


def file_metadata(path: Path, defaults: dict[str, Any]) -> dict[str, Any]:
    """The metadata of one file: options < front matter < sidecar; tags from all three."""
    layers = [_known(defaults)]
    if path.suffix.lower() in (".md", ".markdown"):
        layers.append(_known(front_matter(path.read_text(encoding="utf-8", errors="replace"))))
    layers.append(_known(_sidecar(path)))
    merged: dict[str, Any] = {}
    tags: list[str] = []
    for layer in layers:
        tags += [t for t in layer.pop("tags", []) if t not in tags]
        merged |= layer
    return {**merged, "tags": tags}
