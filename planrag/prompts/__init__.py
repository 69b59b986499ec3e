"""Prompt templates as files, loaded by name. Placeholders are `$name` (string.Template), so JSON
examples in a template need no escaping."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template

HERE = Path(__file__).resolve().parent


@cache
def template(name: str) -> Template:
    path = HERE / f"{name}.txt"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt template named {name!r} in {HERE}")
    return Template(path.read_text(encoding="utf-8"))


def render(name: str, **values: object) -> str:
    """The template filled in; a missing placeholder is an error, not a silent blank."""
    return template(name).substitute({k: str(v) for k, v in values.items()})
