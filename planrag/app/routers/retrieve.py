"""POST /api/knowledge-bases/{kb_id}/retrieve."""

from __future__ import annotations

from fastapi import APIRouter

from planrag.app.dependencies import RetrievalDep
from planrag.core.types import Hit
from planrag.services.retrieval import RetrieveRequest

router = APIRouter(prefix="/api/knowledge-bases/{kb_id}", tags=["retrieval"])


@router.post("/retrieve", response_model=list[Hit])
def retrieve(kb_id: str, body: RetrieveRequest, retrieval: RetrievalDep) -> list[Hit]:
    """Chunks best first; `score` is cosine similarity in [0, 1] whatever the KB metric."""
    return retrieval.retrieve(kb_id, body)
