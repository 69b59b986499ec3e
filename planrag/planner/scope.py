"""What a planner may plan over: the knowledge bases the caller may read (with their facets), the
strategies the executor registry allows, and the moment time words are resolved against."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from planrag.core.types import KbFacets


class KbInfo(BaseModel):
    id: str
    name: str
    description: str = ""
    has_graph: bool = False
    facets: KbFacets
    documents: frozenset[str] | None = Field(
        default=None,
        exclude=True,
        description="a per-user KB: the only documents the asker may see (facets and the "
        "relax check count only those); None: every document",
    )


class PlanScope(BaseModel):
    knowledge_bases: list[KbInfo] = Field(description="readable, and requested if any were")
    requested: bool = Field(default=False, description="the caller named the knowledge bases")
    strategies: list[str]
    now: datetime
    doc_id: str | None = Field(default=None, description="document mode: answer from this one")

    def names(self) -> list[str]:
        return [kb.name for kb in self.knowledge_bases]

    def by_name(self, name: str) -> KbInfo | None:
        return next((kb for kb in self.knowledge_bases if kb.name == name), None)

    def authors(self) -> list[str]:
        return _union(kb.facets.authors for kb in self.knowledge_bases)

    def domains(self) -> list[str]:
        return _union(kb.facets.domains for kb in self.knowledge_bases)

    def restriction(self) -> dict[str, frozenset[str]]:
        """kb id → the only documents the asker may see, for the per-user KBs."""
        return {kb.id: kb.documents for kb in self.knowledge_bases if kb.documents is not None}


def _union(lists) -> list[str]:  # type: ignore[no-untyped-def]
    return list(dict.fromkeys(value for values in lists for value in values))
