"""Knowledge-base access by name: the one place the API dialects resolve knowledge bases.

Every dialect router (spec 000, 003, 004) reaches knowledge bases only through a
`KnowledgeBaseAccess`, built per request by `planrag.app.dependencies.get_kb_access`. A
caller's scope is the knowledge-base names of its API key or user (`planrag.app.auth`); None
means every knowledge base. Listings show only the scope; naming a knowledge base outside it is
a 403 (`Forbidden`).
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import suppress

from planrag.core.errors import Forbidden, KnowledgeBaseExists, KnowledgeBaseNotFound
from planrag.core.types import KnowledgeBase
from planrag.services.knowledge_bases import KnowledgeBaseCreate, KnowledgeBaseService
from planrag.stores.metadata import MetadataStore


class KnowledgeBaseAccess:
    def __init__(
        self,
        metadata: MetadataStore,
        knowledge_bases: KnowledgeBaseService,
        scope: Collection[str] | None = None,
    ) -> None:
        self._metadata = metadata
        self._knowledge_bases = knowledge_bases
        self._scope = None if scope is None else frozenset(scope)

    def allowed(self, name: str) -> bool:
        return self._scope is None or name in self._scope

    def readable(self) -> list[KnowledgeBase]:
        """Every knowledge base the caller may read, oldest first."""
        return [kb for kb in self._metadata.list_kbs() if self.allowed(kb.name)]

    def read(self, name: str) -> KnowledgeBase:
        """The knowledge base of that name; `KnowledgeBaseNotFound` if missing, `Forbidden`
        (403) if outside the caller's scope."""
        self.check(name)
        return self._metadata.get_kb_by_name(name)

    def name_of(self, name_or_id: str) -> str:
        """The name of the knowledge base with this id; the value itself otherwise (a name)."""
        try:
            return self._metadata.get_kb(name_or_id).name
        except KnowledgeBaseNotFound:
            return name_or_id

    def check(self, name: str) -> None:
        if not self.allowed(name):
            raise Forbidden(f"knowledge base '{name}' is outside this caller's scope", name=name)

    def find(self, name: str) -> KnowledgeBase | None:
        try:
            return self.read(name)
        except KnowledgeBaseNotFound:
            return None

    def write(self, name: str) -> KnowledgeBase:
        """The knowledge base of that name for writing, created with defaults on first use."""
        found = self.find(name)
        if found is not None:
            return found
        self.check(name)
        with suppress(KnowledgeBaseExists):  # a concurrent request created it: use that one
            self._knowledge_bases.create(KnowledgeBaseCreate(name=name))
        return self._metadata.get_kb_by_name(name)
