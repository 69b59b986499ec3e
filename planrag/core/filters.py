"""One filter model from plan to store.

`RetrieveFilters` holds the metadata conditions of a search, whether the retrieve API or a plan
(`planner.schema.Filters.to_retrieve()`) gave them; its `to_filter()` is the one way to the typed
tree below, which every store renders in its own module: Milvus expressions
(`stores/milvus_filter.py`), SQL with bound parameters (`stores/sql_filter.py`), in-memory records
(`stores/record_filter.py`); graph stores render it next to their queries.

Field names come from a fixed whitelist and values are typed; a backend renders values as bound
parameters or escaped typed literals. A value a user or an LLM wrote never becomes query text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from planrag.core.types import PlainText, normalise_date

StringField = Literal["doc_id", "chunk_id", "title", "author", "domain"]
IntField = Literal["date"]


class Eq(BaseModel):
    op: Literal["eq"] = "eq"
    field: StringField
    value: str


class In(BaseModel):
    op: Literal["in"] = "in"
    field: StringField
    values: list[str] = Field(max_length=100_000)


class NotIn(BaseModel):
    """The field's value is none of `values` (documents still being indexed are hidden so)."""

    op: Literal["not_in"] = "not_in"
    field: StringField
    values: list[str] = Field(max_length=100_000)


class Contains(BaseModel):
    """Substring match (`LIKE '%v%'`)."""

    op: Literal["contains"] = "contains"
    field: Literal["title", "text"]
    value: str = Field(min_length=1, max_length=500)


UNDATED = 0  # the stored `date` of a document without one


class Range(BaseModel):
    """Inclusive integer range, e.g. dates as YYYYMMDD.

    A range matches dated values only: an undated document (stored as `UNDATED`) is in no range,
    open-start ones ("before March 11") included. Every renderer uses `lower()` for that.
    """

    op: Literal["range"] = "range"
    field: IntField
    gte: int | None = None
    lte: int | None = None

    def lower(self) -> int:
        """The inclusive lower bound every store applies: `gte`, and never below a real date."""
        return max(self.gte if self.gte is not None else UNDATED + 1, UNDATED + 1)


class And(BaseModel):
    op: Literal["and"] = "and"
    items: list[Filter]


class Or(BaseModel):
    op: Literal["or"] = "or"
    items: list[Filter]


Filter = Annotated[Eq | In | NotIn | Contains | Range | And | Or, Field(discriminator="op")]
And.model_rebuild()
Or.model_rebuild()


# Tags → the ids of the documents carrying any of them (the metadata DB knows documents' tags).
TagResolver = Callable[[list[str]], list[str]]
_DATE = r"^\d{4}-?\d{2}-?\d{2}$"


class RetrieveFilters(BaseModel):
    """Metadata conditions of a search (documents' ids, authors, domains, dates, title, tags)."""

    model_config = ConfigDict(extra="forbid")

    doc_ids: list[PlainText] | None = Field(default=None, max_length=1000)
    authors: list[PlainText] | None = Field(default=None, max_length=100)
    domains: list[PlainText] | None = Field(default=None, max_length=100)
    date_from: str | None = Field(default=None, pattern=_DATE)
    date_to: str | None = Field(default=None, pattern=_DATE)
    title_contains: PlainText | None = Field(default=None, min_length=1, max_length=200)
    tags: list[PlainText] | None = Field(
        default=None,
        max_length=20,
        description="documents carrying any of these tags (case-insensitive)",
    )

    @field_validator("date_from", "date_to")
    @classmethod
    def _real_date(cls, value: str | None) -> str | None:
        """A calendar date, as uploads require (2024-13-45 is refused, not matched by nothing)."""
        return None if value is None else normalise_date(value)

    def to_filter(self, tagged: TagResolver | None = None) -> Filter | None:
        """The typed tree. Tags become the ids of the documents carrying them (`tagged`), so
        every store applies them the same way."""
        items: list[Filter] = []
        if self.doc_ids:
            items.append(In(field="doc_id", values=self.doc_ids))
        if self.authors:
            items.append(In(field="author", values=self.authors))
        if self.domains:
            items.append(In(field="domain", values=self.domains))
        if self.date_from or self.date_to:
            items.append(
                Range(
                    field="date",
                    gte=int(self.date_from.replace("-", "")) if self.date_from else None,
                    lte=int(self.date_to.replace("-", "")) if self.date_to else None,
                )
            )
        if self.title_contains:
            items.append(Contains(field="title", value=self.title_contains))
        if self.tags:
            if tagged is None:
                raise ValueError("filters.tags needs the documents' tags (a TagResolver)")
            items.append(In(field="doc_id", values=tagged(self.tags)))
        if not items:
            return None
        return items[0] if len(items) == 1 else And(items=items)


def has_tag(tags: list[str], wanted: list[str]) -> bool:
    """Whether a document's tags include any wanted one (case-insensitive)."""
    folded = {t.casefold() for t in wanted}
    return any(t.casefold() in folded for t in tags)
