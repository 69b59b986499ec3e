"""The filter tree evaluated on one in-memory record (for indexes without a query language:
the BM25 index, graph candidates)."""

from __future__ import annotations

from planrag.core.filters import And, Contains, Eq, Filter, In, NotIn, Or, Range


def matches(node: Filter, record: dict[str, object]) -> bool:
    """Evaluate a filter on one record in Python (for indexes without a query language)."""
    match node:
        case Eq():
            return record.get(node.field) == node.value
        case In():
            return record.get(node.field) in node.values
        case NotIn():
            return record.get(node.field) not in node.values
        case Contains():
            return node.value.lower() in str(record.get(node.field) or "").lower()
        case Range():
            value = record.get(node.field)
            if not isinstance(value, int):
                return False
            return value >= node.lower() and (  # dated values only
                node.lte is None or value <= node.lte
            )
        case And():
            return all(matches(item, record) for item in node.items)
        case Or():
            return any(matches(item, record) for item in node.items)
    raise TypeError(f"unknown filter node {node!r}")
