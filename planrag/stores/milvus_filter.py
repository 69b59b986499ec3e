"""The filter tree as a Milvus boolean expression: values as escaped typed literals (Milvus Lite
has no filter templates), field names from the tree's whitelist."""

from __future__ import annotations

import json

from planrag.core.filters import And, Contains, Eq, Filter, In, NotIn, Or, Range


def milvus_string(value: str) -> str:
    """A Milvus string literal: double-quoted with C-style escapes, control characters refused."""
    # json.dumps escapes quotes, backslashes and control characters in a form Milvus accepts
    # for the common cases; anything json would write as \\uXXXX is refused instead.
    if any(ord(ch) < 0x20 and ch not in "\n\r\t" for ch in value):
        raise ValueError("control characters are not allowed in filter values")
    return json.dumps(value, ensure_ascii=False)


def _like_pattern(value: str) -> str:
    # LIKE wildcards in user text are matched literally.
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return milvus_string(f"%{escaped}%")


def render_milvus(node: Filter | None) -> str:
    """Render a filter as a Milvus boolean expression ("" for no filter)."""
    if node is None:
        return ""
    match node:
        case Eq():
            return f"{node.field} == {milvus_string(node.value)}"
        case In():
            return f"{node.field} in [{', '.join(milvus_string(v) for v in node.values)}]"
        case NotIn():
            if not node.values:
                return ""
            return f"{node.field} not in [{', '.join(milvus_string(v) for v in node.values)}]"
        case Contains():
            return f"{node.field} like {_like_pattern(node.value)}"
        case Range():
            parts = [f"{node.field} >= {int(node.lower())}"]  # dated values only
            if node.lte is not None:
                parts.append(f"{node.field} <= {int(node.lte)}")
            return " and ".join(parts)
        case And() | Or():
            joiner = " and " if isinstance(node, And) else " or "
            inner = [part for part in (render_milvus(item) for item in node.items) if part]
            return joiner.join(f"({part})" for part in inner)
    raise TypeError(f"unknown filter node {node!r}")
