"""/api/knowledge-bases: create, list, read, update, delete (spec 001 §4)."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from planrag.app.auth import ManagerDep
from planrag.app.dependencies import AccessDep, DocumentsDep, KnowledgeBasesDep, ReindexDep
from planrag.core.types import ReindexStatus
from planrag.services.knowledge_bases import (
    KnowledgeBaseCreate,
    KnowledgeBaseUpdate,
    KnowledgeBaseView,
)
from planrag.services.reindex import ReindexRequest

router = APIRouter(prefix="/api/knowledge-bases", tags=["knowledge-bases"])


@router.post("", status_code=status.HTTP_201_CREATED, response_model=KnowledgeBaseView)
def create_knowledge_base(
    body: KnowledgeBaseCreate, knowledge_bases: KnowledgeBasesDep, access: AccessDep
) -> KnowledgeBaseView:
    """Create a knowledge base. 409 when the name is taken; 403 for a name outside a scoped
    caller's knowledge bases."""
    access.check(body.name)
    return knowledge_bases.create(body)


@router.get("", response_model=list[KnowledgeBaseView])
def list_knowledge_bases(
    knowledge_bases: KnowledgeBasesDep, access: AccessDep
) -> list[KnowledgeBaseView]:
    """Every knowledge base the caller may read, with its document count, size and last update."""
    return [kb for kb in knowledge_bases.list() if access.allowed(kb.name)]


@router.get("/{kb_id}", response_model=KnowledgeBaseView)
def get_knowledge_base(kb_id: str, knowledge_bases: KnowledgeBasesDep) -> KnowledgeBaseView:
    return knowledge_bases.get(kb_id)


@router.patch("/{kb_id}", response_model=KnowledgeBaseView)
def update_knowledge_base(
    kb_id: str,
    body: KnowledgeBaseUpdate,
    knowledge_bases: KnowledgeBasesDep,
    documents: DocumentsDep,
    access: AccessDep,
    response: Response,
    _manager: ManagerDep,
) -> KnowledgeBaseView:
    """Rename or change retrieval defaults and chunking. New chunking re-chunks the existing
    documents in the background from their stored files (each goes pending → processing →
    completed, and is not searchable while it is processing); `X-Planrag-Notice` says how
    many. With auth on: an admin, or a key or user that may manage the KB (403 otherwise)."""
    if body.name is not None:
        access.check(body.name)  # a scoped caller cannot rename a KB out of its scope
    before = knowledge_bases.get(kb_id)
    kb = knowledge_bases.update(kb_id, body)
    if kb.chunking != before.chunking:
        queued = documents.rechunk(kb.id)
        if queued:
            response.headers["X-Planrag-Notice"] = (
                f"re-chunking {queued} document(s) in the background"
            )
    return kb


@router.delete("/{kb_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_knowledge_base(
    kb_id: str, knowledge_bases: KnowledgeBasesDep, _manager: ManagerDep
) -> None:
    """Delete the knowledge base with its documents, chunks, vectors and files (an admin, or a
    key or user that may manage it)."""
    knowledge_bases.delete(kb_id)


@router.post(
    "/{kb_id}/reindex",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ReindexStatus,
    responses={409: {"description": "a reindex of this knowledge base is running"}},
)
def reindex_knowledge_base(
    kb_id: str, reindex: ReindexDep, _manager: ManagerDep, body: ReindexRequest | None = None
) -> ReindexStatus:
    """Re-embed every chunk with another model (default: the configured one) in the background.
    The old vectors serve until the new ones are complete, then the KB switches at once. 409
    while one runs; 503 when the model cannot be loaded; 400 for a model off
    PLANRAG_EMBEDDING__ALLOWED_MODELS (decided on the name: nothing is probed or downloaded).
    Follow it with GET. An admin, or a key or user that may manage the KB."""
    return reindex.request(kb_id, body.embedding_model if body else None)


@router.get("/{kb_id}/reindex", response_model=ReindexStatus)
def reindex_status(kb_id: str, reindex: ReindexDep) -> ReindexStatus:
    """The last reindex: running (done/total chunks), completed or failed (with the reason)."""
    return reindex.status(kb_id)
