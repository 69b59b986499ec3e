"""A typed filter tree over the filterable metadata fields, rendered per backend.

Field names come from a fixed whitelist and values are typed; a backend renders values as bound
parameters (SQL) or as escaped typed literals (Milvus Lite has no filter templates). A value a user
or an LLM wrote never becomes query text.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from psycopg import sql
from pydantic import BaseModel, Field

StringField = Literal["doc_id", "chunk_id", "title", "author", "domain"]
IntField = Literal["date"]


class Eq(BaseModel):
    op: Literal["eq"] = "eq"
    field: StringField
    value: str


class In(BaseModel):
    op: Literal["in"] = "in"
    field: StringField
    values: list[str] = Field(max_length=1000)


class Contains(BaseModel):
    """Substring match (`LIKE '%v%'`)."""

    op: Literal["contains"] = "contains"
    field: Literal["title", "text"]
    value: str = Field(min_length=1, max_length=500)


class Range(BaseModel):
    """Inclusive integer range, e.g. dates as YYYYMMDD."""

    op: Literal["range"] = "range"
    field: IntField
    gte: int | None = None
    lte: int | None = None


class And(BaseModel):
    op: Literal["and"] = "and"
    items: list[Filter]


class Or(BaseModel):
    op: Literal["or"] = "or"
    items: list[Filter]


Filter = Annotated[Eq | In | Contains | Range | And | Or, Field(discriminator="op")]
And.model_rebuild()
Or.model_rebuild()


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
        case Contains():
            return f"{node.field} like {_like_pattern(node.value)}"
        case Range():
            parts = []
            if node.gte is not None:
                parts.append(f"{node.field} >= {int(node.gte)}")
            if node.lte is not None:
                parts.append(f"{node.field} <= {int(node.lte)}")
            return " and ".join(parts)
        case And() | Or():
            joiner = " and " if isinstance(node, And) else " or "
            inner = [part for part in (render_milvus(item) for item in node.items) if part]
            return joiner.join(f"({part})" for part in inner)
    raise TypeError(f"unknown filter node {node!r}")


def _sql_like(value: str) -> str:
    # PostgreSQL's LIKE escapes with a backslash by default: user wildcards match literally.
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def render_sql(node: Filter | None) -> tuple[sql.Composable, list[Any]]:
    """Render a filter as a SQL boolean expression with `%s` placeholders and its parameters.

    Column names are the whitelisted field names (quoted identifiers); every value is a bound
    parameter. No filter renders as `TRUE`. Matching is case-sensitive, as in Milvus.
    """
    if node is None:
        return sql.SQL("TRUE"), []
    column = sql.Identifier(node.field) if not isinstance(node, And | Or) else None
    match node:
        case Eq():
            return sql.SQL("{} = %s").format(column), [node.value]
        case In():
            return sql.SQL("{} = ANY(%s)").format(column), [list(node.values)]
        case Contains():
            return sql.SQL("{} LIKE %s").format(column), [_sql_like(node.value)]
        case Range():
            parts: list[sql.Composable] = []
            params: list[Any] = []
            for op, bound in ((">=", node.gte), ("<=", node.lte)):
                if bound is not None:
                    parts.append(sql.SQL("{} " + op + " %s").format(column))
                    params.append(int(bound))
            return (sql.SQL(" AND ").join(parts) if parts else sql.SQL("TRUE")), params
        case And() | Or():
            rendered = [render_sql(item) for item in node.items]
            if not rendered:
                return sql.SQL("TRUE"), []
            joiner = sql.SQL(" AND " if isinstance(node, And) else " OR ")
            text = joiner.join(sql.SQL("({})").format(part) for part, _ in rendered)
            return text, [p for _, params in rendered for p in params]
    raise TypeError(f"unknown filter node {node!r}")


def matches(node: Filter, record: dict[str, object]) -> bool:
    """Evaluate a filter on one record in Python (for indexes without a query language)."""
    match node:
        case Eq():
            return record.get(node.field) == node.value
        case In():
            return record.get(node.field) in node.values
        case Contains():
            return node.value.lower() in str(record.get(node.field) or "").lower()
        case Range():
            value = record.get(node.field)
            if not isinstance(value, int):
                return False
            return (node.gte is None or value >= node.gte) and (
                node.lte is None or value <= node.lte
            )
        case And():
            return all(matches(item, record) for item in node.items)
        case Or():
            return any(matches(item, record) for item in node.items)
    raise TypeError(f"unknown filter node {node!r}")
