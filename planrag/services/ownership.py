"""Per-user documents (spec 002 `user_id`): who is asking or uploading, and which documents of
each knowledge base an ask may search.

With auth on, the user is the authenticated principal (`Principal.id`): a body naming anyone else
is refused (403). With auth off, the body's `user_id` is trusted, as spec 002's clients send it.
On a `per_user` knowledge base an ask searches only the documents the user owns; no user, no
documents. `category_ids` (spec 002) are the plan's `tags` filter: documents carrying one of them.
Both become a document-id restriction per knowledge base, resolved from the metadata DB and
applied through the plan's doc-id filter on every store."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Engine, select

from planrag.core.errors import Forbidden
from planrag.core.types import Document, KnowledgeBase
from planrag.stores.tables import DocumentRow

# kb id → the ids of the documents an ask may search there (absent: no restriction)
Restriction = dict[str, frozenset[str]]


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

    def restriction(
        self, kbs: Iterable[KnowledgeBase], user_id: str | None, tags: list[str]
    ) -> Restriction:
        """The documents each chosen KB leaves: the user's own on per-user KBs, those carrying
        one of `tags` when there are tags. KBs needing neither are not restricted."""
        wanted = set(tags)
        result: Restriction = {}
        for kb in kbs:
            if not kb.per_user and not wanted:
                continue
            if kb.per_user and user_id is None:
                result[kb.id] = frozenset()
                continue
            query = select(DocumentRow.id, DocumentRow.tags).where(DocumentRow.kb_id == kb.id)
            if kb.per_user:
                query = query.where(DocumentRow.user_id == user_id)
            with self._engine.connect() as conn:
                rows = conn.execute(query).all()
            result[kb.id] = frozenset(
                doc_id for doc_id, doc_tags in rows if not wanted or wanted & set(doc_tags or [])
            )
        return result
