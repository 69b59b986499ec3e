"""GET /healthz: liveness for anyone, details for admins."""

from __future__ import annotations

from fastapi import APIRouter

from planrag import __version__
from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import RuntimeDep

router = APIRouter(tags=["system"])


@router.get("/healthz")
def health(runtime: RuntimeDep, principal: PrincipalDep) -> dict[str, object]:
    """Liveness, and whether the default embedding model is loaded (`ready`). An admin caller
    (or anyone with authentication off) also gets the version, the number of knowledge bases
    and the embedding model; the public answer says nothing about the data."""
    body: dict[str, object] = {"status": "ok", "ready": runtime.embedders.is_loaded()}
    if principal.admin:
        body |= {
            "version": __version__,
            "knowledge_bases": len(runtime.metadata.list_kbs()),
            "embedding_model": runtime.embedders.default_model,
        }
    return body
