"""The filter tree as a SQL boolean expression (psycopg): whitelisted columns as quoted
identifiers, every value a bound parameter."""

from __future__ import annotations

from typing import Any

from psycopg import sql

from planrag.core.filters import And, Contains, Eq, Filter, In, NotIn, Or, Range


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
        case NotIn():
            return sql.SQL("NOT ({} = ANY(%s))").format(column), [list(node.values)]
        case Contains():
            return sql.SQL("{} LIKE %s").format(column), [_sql_like(node.value)]
        case Range():
            parts: list[sql.Composable] = []
            params: list[Any] = []
            for op, bound in ((">=", node.lower()), ("<=", node.lte)):  # dated values only
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
