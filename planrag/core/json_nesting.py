"""How deep a JSON text nests, found without parsing it, and `loads` with a nesting limit.

Python's `json` parser recurses once per level: a body of 100,000 `[` raises `RecursionError`
(not a `ValueError`), which code catching decode errors lets through as a 500. Every JSON text
from a caller is measured first: request bodies by `planrag.app.limits.JsonNestingLimit`
(`PLANRAG_INGEST__MAX_JSON_DEPTH`), JSON inside a field (a form's tags, a query's filter, a
stored `info`) by `loads`.

The scan works on whole buffers with C-speed steps, never character by character in Python:
escaped backslashes out, then escaped quotes, then strings, then everything but brackets; then
the innermost pairs, one level a pass. Brackets inside strings do not count; the cost is
linear in the text's length (times the depth, at most the limit, for its brackets).
"""

from __future__ import annotations

import json
import re
from typing import Any

_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# JSON carried inside one field: a handful of levels is all any of them needs.
FIELD_DEPTH = 32


class JsonTooDeep(ValueError):
    """The text nests deeper than the limit (a ValueError: callers treat it as bad JSON)."""


def nesting_depth(raw: bytes | str, limit: int = 1000) -> int:
    """The deepest nesting of arrays and objects in the text (counting stops past `limit`).

    Each pass removes the innermost `[]` and `{}` pairs of the text's brackets, so a well
    nested text is gone after as many passes as it is deep; what cannot be paired (broken JSON)
    counts its opening brackets on top."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")  # escaped backslashes, then quotes
    skeleton = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    depth = 0
    while skeleton and depth <= limit:
        # one level: innermost pairs become a mark first, so no pair formed by a removal goes
        marked = skeleton.replace(b"[]", b"x").replace(b"{}", b"x")
        paired = marked.replace(b"x", b"")
        if len(paired) == len(skeleton):  # nothing pairs up: not JSON
            return depth + skeleton.count(b"[") + skeleton.count(b"{")
        skeleton, depth = paired, depth + 1
    return depth


def check_depth(raw: bytes | str, limit: int, what: str = "JSON") -> None:
    if nesting_depth(raw, limit) > limit:
        raise JsonTooDeep(f"{what} nests deeper than {limit} levels")


def loads(raw: bytes | str, limit: int = FIELD_DEPTH, what: str = "JSON") -> Any:
    """`json.loads` for text from outside: `JsonTooDeep` past `limit` levels of nesting."""
    check_depth(raw, limit, what)
    return json.loads(raw)
