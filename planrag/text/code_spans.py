"""Where a text writes a model code whole ("DK-250", "S2", "X100"): a number inside one is part
of a name, not an amount ("DK-250 무게 얼마야?" asks no "250"). Codes written with a space
("PC 30대") are left out: there the number is usually a count."""

from __future__ import annotations

import re

__all__ = ["code_pattern", "glued_codes"]


def code_pattern(joint: str) -> str:
    """A model code's shape — letters, then `joint` (what may part them), then digits and at
    most two letters: "DK-250", "S2", "X100K" — for every reader of codes to share."""
    return rf"[A-Za-z]{{1,5}}{joint}\d{{1,5}}[A-Za-z]{{0,2}}"


_GLUED_CODE = re.compile(rf"(?<![A-Za-z0-9]){code_pattern('-?')}(?![A-Za-z0-9])")


def glued_codes(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each model code the text writes without a space."""
    return [m.span() for m in _GLUED_CODE.finditer(text)]
