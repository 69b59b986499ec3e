"""Knowledge-base access by name: the one place the API dialects resolve knowledge bases, and
whose documents of a per-user knowledge base the caller may see.

Every dialect router (spec 000, 003, 004) reaches knowledge bases only through a
`KnowledgeBaseAccess`, built per request by `planrag.app.dependencies.get_kb_access`. A
caller's scope is the knowledge-base names of its API key or user (`planrag.app.auth`); None
means every knowledge base. Listings show only the scope; naming a knowledge base outside it is
a 403 (`Forbidden`).

The caller (`Caller`) travels with it: on a `per_user` knowledge base every read through this
object sees only the user's documents (`owned`, `restriction`, `may_see`), resolved by the same
`OwnershipResolver` the ask paths use. With auth on the user is the principal; with auth off it
is the user a dialect's request names (`as_user`), and no user sees none of a per-user KB's
documents (as an ask without `user_id`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from contextlib import suppress

from pydantic import BaseModel, ConfigDict, ValidationError

from planrag.core.errors import (
    Forbidden,
    InvalidInput,
    KnowledgeBaseExists,
    KnowledgeBaseNotFound,
)
from planrag.core.types import Document, KnowledgeBase
from planrag.services.knowledge_bases import KnowledgeBaseCreate, KnowledgeBaseService
from planrag.services.ownership import OwnershipResolver, Restriction, acting_user
from planrag.stores.metadata import MetadataStore


class Caller(BaseModel):
    """Who a dialect request acts for."""

    model_config = ConfigDict(frozen=True)

    auth_enabled: bool = False
    principal_id: str = "anonymous"
    user: str | None = None  # the owner whose documents of a per-user KB are visible

    @classmethod
    def of(cls, auth_enabled: bool, principal_id: str) -> Caller:
        """With auth on the principal is the user; with auth off nobody until a request names
        one (`as_user`)."""
        user = principal_id if auth_enabled else None
        return cls(auth_enabled=auth_enabled, principal_id=principal_id, user=user)

    def as_user(self, user_id: str | None) -> Caller:
        """The caller acting for a user a request names (403 with auth on for anyone else)."""
        if not self.auth_enabled and not user_id:
            return self
        user = acting_user(self.auth_enabled, self.principal_id, user_id)
        return self.model_copy(update={"user": user})


class KnowledgeBaseAccess:
    def __init__(
        self,
        metadata: MetadataStore,
        knowledge_bases: KnowledgeBaseService,
        scope: Collection[str] | None = None,
        caller: Caller | None = None,
    ) -> None:
        self._metadata = metadata
        self._knowledge_bases = knowledge_bases
        self._scope = None if scope is None else frozenset(scope)
        self.caller = caller or Caller()
        self._owners = OwnershipResolver(metadata.engine)
        self._owned: dict[str, frozenset[str]] = {}

    @property
    def user(self) -> str | None:
        return self.caller.user

    def as_user(self, user_id: str | None) -> KnowledgeBaseAccess:
        """The same access acting for the user a request names (`Caller.as_user`)."""
        caller = self.caller.as_user(user_id)
        if caller == self.caller:
            return self
        return KnowledgeBaseAccess(self._metadata, self._knowledge_bases, self._scope, caller)

    # ------------------------------------------------------------------ documents

    def owned(self, kb: KnowledgeBase) -> frozenset[str] | None:
        """The only documents of `kb` this caller may see (a per-user KB: the user's own, none
        without a user); None when the KB is not per-user."""
        if not kb.per_user:
            return None
        if kb.id not in self._owned:
            self._owned[kb.id] = self._owners.restriction([kb], self.user)[kb.id]
        return self._owned[kb.id]

    def restriction(self, kbs: Iterable[KnowledgeBase]) -> Restriction:
        """kb id → visible document ids, for the per-user ones among `kbs`."""
        result: Restriction = {}
        for kb in kbs:
            owned = self.owned(kb)
            if owned is not None:
                result[kb.id] = owned
        return result

    def may_see(self, kb: KnowledgeBase, doc: Document) -> bool:
        return not kb.per_user or (self.user is not None and doc.metadata.user_id == self.user)

    # ------------------------------------------------------------------ knowledge bases

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
        try:
            request = KnowledgeBaseCreate(name=name)
        except ValidationError as exc:  # a name no knowledge base may have
            raise InvalidInput(f"'{name}' cannot name a knowledge base", name=name) from exc
        with suppress(KnowledgeBaseExists):  # a concurrent request created it: use that one
            self._knowledge_bases.create(request)
        return self._metadata.get_kb_by_name(name)
