"""Per-user documents (spec 002 `user_id`): who is asking or uploading, and which documents of
each knowledge base an ask may search.

With auth on, the user is the authenticated principal (`Principal.id`): a body naming anyone else
is refused (403). With auth off, the body's `user_id` is trusted, as spec 002's clients send it.
On a `per_user` knowledge base an ask searches only the documents the user owns; no user, no
documents. That becomes a document-id restriction per knowledge base, resolved from the metadata
DB and applied through the retrieve filters' `doc_ids` on every store (and the listing's SQL)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Engine, select

from planrag.core.errors import Forbidden, InvalidInput
from planrag.core.types import Document, KnowledgeBase
from planrag.stores.catalog import Restriction
from planrag.stores.tables import DocumentRow

__all__ = [
    "MAX_RESTRICTED_IDS",
    "OwnershipResolver",
    "Restriction",
    "acting_user",
    "check_owner",
    "restricted_ids",
]

MAX_RESTRICTED_IDS = 1000  # RetrieveFilters.doc_ids' bound


def acting_user(auth_enabled: bool, principal_id: str, user_id: str | None) -> str | None:
    """The user an ask or upload acts for."""
    if not auth_enabled:
        return user_id or None
    if user_id and user_id != principal_id:
        raise Forbidden(
            f"user_id '{user_id}' is not the caller; with authentication on the user is the "
            f"authenticated principal ({principal_id})",
            user_id=user_id,
        )
    return principal_id


def check_owner(kb: KnowledgeBase, doc: Document, user_id: str | None) -> None:
    """Document mode on a per-user knowledge base: only the owner's document (403 otherwise)."""
    if kb.per_user and (user_id is None or doc.metadata.user_id != user_id):
        raise Forbidden(f"document '{doc.id}' belongs to another user", doc_id=doc.id)


class OwnershipResolver:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def restriction(self, kbs: Iterable[KnowledgeBase], user_id: str | None) -> Restriction:
        """The documents each chosen per-user KB leaves: the user's own (none without a user).
        Other KBs are not restricted."""
        result: Restriction = {}
        for kb in kbs:
            if not kb.per_user:
                continue
            if user_id is None:
                result[kb.id] = frozenset()
                continue
            query = select(DocumentRow.id).where(
                DocumentRow.kb_id == kb.id, DocumentRow.user_id == user_id
            )
            with self._engine.connect() as conn:
                result[kb.id] = frozenset(conn.execute(query).scalars())
        return result


def restricted_ids(wanted: list[str], allowed: frozenset[str]) -> list[str]:
    """The plan's document ids narrowed to the allowed ones (all allowed when it names none)."""
    ids = [d for d in wanted if d in allowed] if wanted else sorted(allowed)
    if len(ids) > MAX_RESTRICTED_IDS:
        raise InvalidInput(
            f"this ask may search {len(ids)} documents of one per-user knowledge base; at "
            f"most {MAX_RESTRICTED_IDS} are supported"
        )
    return ids
