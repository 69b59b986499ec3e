"""GET /healthz."""

from __future__ import annotations

from fastapi import APIRouter

from planrag import __version__
from planrag.app.dependencies import RuntimeDep

router = APIRouter(tags=["system"])


@router.get("/healthz")
def health(runtime: RuntimeDep) -> dict[str, object]:
    """Liveness, and whether the default embedding model is loaded (`ready`)."""
    return {
        "status": "ok",
        "ready": runtime.embedders.is_loaded(),
        "version": __version__,
        "knowledge_bases": len(runtime.metadata.list_kbs()),
        "embedding_model": runtime.embedders.default_model,
    }
