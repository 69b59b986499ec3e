"""Filter rendering: Milvus gets escaped typed literals, SQL gets bound parameters; a value
never becomes query text."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planrag.core.filters import And, Contains, Eq, In, Or, Range
from planrag.stores.milvus_filter import render_milvus
from planrag.stores.sql_filter import render_sql


def test_render_every_node() -> None:
    assert render_milvus(None) == ""
    assert render_milvus(Eq(field="author", value="김")) == 'author == "김"'
    assert render_milvus(In(field="doc_id", values=["a", "b"])) == 'doc_id in ["a", "b"]'
    assert render_milvus(Range(field="date", gte=20240101, lte=20241231)) == (
        "date >= 20240101 and date <= 20241231"
    )
    # a range matches dated documents only (undated ones are stored as 0)
    assert render_milvus(Range(field="date")) == "date >= 1"
    assert render_milvus(Range(field="date", lte=20240310)) == "date >= 1 and date <= 20240310"
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


def _sql(node) -> tuple[str, list]:  # type: ignore[no-untyped-def]
    composed, params = render_sql(node)
    return composed.as_string(None), params


def test_render_sql_binds_every_value() -> None:
    assert _sql(None) == ("TRUE", [])
    assert _sql(Eq(field="author", value="o'brien")) == ('"author" = %s', ["o'brien"])
    assert _sql(In(field="doc_id", values=["a", "b"])) == ('"doc_id" = ANY(%s)', [["a", "b"]])
    assert _sql(Range(field="date", gte=20240101, lte=20241231)) == (
        '"date" >= %s AND "date" <= %s',
        [20240101, 20241231],
    )
    assert _sql(Range(field="date")) == ('"date" >= %s', [1])
    assert _sql(Range(field="date", lte=20240310)) == (
        '"date" >= %s AND "date" <= %s',
        [1, 20240310],
    )
    assert _sql(Contains(field="text", value="50%_x\\")) == ('"text" LIKE %s', ["%50\\%\\_x\\\\%"])
    tree = And(items=[Eq(field="domain", value="a"), Or(items=[Range(field="date", gte=1)])])
    assert _sql(tree) == ('("domain" = %s) AND (("date" >= %s))', ["a", 1])
    assert _sql(Or(items=[])) == ("TRUE", [])
