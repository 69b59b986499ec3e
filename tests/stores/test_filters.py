"""Filter rendering for Milvus: typed values become escaped literals, never query text."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planrag.stores.filters import And, Contains, Eq, In, Or, Range, render_milvus


def test_render_every_node() -> None:
    assert render_milvus(None) == ""
    assert render_milvus(Eq(field="author", value="김")) == 'author == "김"'
    assert render_milvus(In(field="doc_id", values=["a", "b"])) == 'doc_id in ["a", "b"]'
    assert render_milvus(Range(field="date", gte=20240101, lte=20241231)) == (
        "date >= 20240101 and date <= 20241231"
    )
    assert render_milvus(Range(field="date")) == ""
    assert render_milvus(Contains(field="text", value="50%_x")) == r'text like "%50\\%\\_x%"'
    tree = And(items=[Eq(field="domain", value="a"), Or(items=[Range(field="date", gte=1)])])
    assert render_milvus(tree) == '(domain == "a") and ((date >= 1))'


def test_quotes_and_backslashes_are_escaped() -> None:
    rendered = render_milvus(Eq(field="title", value='a" or "1"=="1\\'))
    assert rendered == 'title == "a\\" or \\"1\\"==\\"1\\\\"'


def test_control_characters_are_refused() -> None:
    with pytest.raises(ValueError):
        render_milvus(Eq(field="title", value="a\x00b"))


def test_fields_are_whitelisted() -> None:
    with pytest.raises(ValidationError):
        Eq(field="vector or 1", value="x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Range(field="title", gte=1)  # type: ignore[arg-type]
