"""/api/knowledge-bases: create, list, read, update, delete (spec 001 §4)."""

from __future__ import annotations

from fastapi import APIRouter, status

from planrag.app.dependencies import AccessDep, RuntimeDep
from planrag.services.knowledge_bases import (
    KnowledgeBaseCreate,
    KnowledgeBaseUpdate,
    KnowledgeBaseView,
)

router = APIRouter(prefix="/api/knowledge-bases", tags=["knowledge-bases"])


@router.post("", status_code=status.HTTP_201_CREATED, response_model=KnowledgeBaseView)
def create_knowledge_base(
    body: KnowledgeBaseCreate, runtime: RuntimeDep, access: AccessDep
) -> KnowledgeBaseView:
    """Create a knowledge base. 409 when the name is taken; 403 for a name outside a scoped
    caller's knowledge bases."""
    access.check(body.name)
    return runtime.knowledge_bases.create(body)


@router.get("", response_model=list[KnowledgeBaseView])
def list_knowledge_bases(runtime: RuntimeDep, access: AccessDep) -> list[KnowledgeBaseView]:
    """Every knowledge base the caller may read, with its document count, size and last update."""
    return [kb for kb in runtime.knowledge_bases.list() if access.allowed(kb.name)]


@router.get("/{kb_id}", response_model=KnowledgeBaseView)
def get_knowledge_base(kb_id: str, runtime: RuntimeDep) -> KnowledgeBaseView:
    return runtime.knowledge_bases.get(kb_id)


@router.patch("/{kb_id}", response_model=KnowledgeBaseView)
def update_knowledge_base(
    kb_id: str, body: KnowledgeBaseUpdate, runtime: RuntimeDep, access: AccessDep
) -> KnowledgeBaseView:
    """Rename or change retrieval defaults and chunking (for documents uploaded afterwards)."""
    if body.name is not None:
        access.check(body.name)  # a scoped caller cannot rename a KB out of its scope
    return runtime.knowledge_bases.update(kb_id, body)


@router.delete("/{kb_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_knowledge_base(kb_id: str, runtime: RuntimeDep) -> None:
    """Delete the knowledge base with its documents, chunks, vectors and files."""
    runtime.knowledge_bases.delete(kb_id)
