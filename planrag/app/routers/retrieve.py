"""POST /api/knowledge-bases/{kb_id}/retrieve."""

from __future__ import annotations

from fastapi import APIRouter, Response
from starlette.concurrency import run_in_threadpool

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import RetrievalDep, RuntimeDep
from planrag.core.filters import RetrieveFilters
from planrag.core.types import Hit
from planrag.services.ownership import OwnershipResolver, acting_user
from planrag.services.plan_execution import restricted_ids
from planrag.services.retrieval import RetrieveRequest

router = APIRouter(prefix="/api/knowledge-bases/{kb_id}", tags=["retrieval"])


NOTICE_HEADER = "X-Planrag-Notice"


@router.post(
    "/retrieve",
    response_model=list[Hit],
    responses={
        200: {
            "headers": {
                NOTICE_HEADER: {
                    "description": "what was skipped and why (e.g. 2-stage without a reranker: "
                    "the first stage's hits, not reranked)",
                    "schema": {"type": "string"},
                }
            }
        }
    },
)
async def retrieve(
    kb_id: str,
    body: RetrieveRequest,
    retrieval: RetrievalDep,
    runtime: RuntimeDep,
    principal: PrincipalDep,
    response: Response,
) -> list[Hit]:
    """Chunks best first; `score` is cosine similarity in [0, 1] whatever the KB metric. On a
    per-user knowledge base, only the caller's documents (with auth on; none with auth off)."""
    kb = await run_in_threadpool(runtime.metadata.get_kb, kb_id)
    if kb.per_user:
        user = acting_user(runtime.settings.auth.enabled, principal.id, None)
        owners = OwnershipResolver(runtime.metadata.engine)
        allowed = (await run_in_threadpool(owners.restriction, [kb], user))[kb.id]
        filters = body.filters or RetrieveFilters()
        ids = restricted_ids(filters.doc_ids or [], allowed)
        if not ids:
            return []
        body = body.model_copy(update={"filters": filters.model_copy(update={"doc_ids": ids})})
    notes: list[str] = []
    hits = await run_in_threadpool(retrieval.retrieve, kb_id, body, notes)
    if notes:  # header values are Latin-1: anything else is escaped
        text = "; ".join(notes)
        response.headers[NOTICE_HEADER] = text.encode("ascii", "backslashreplace").decode()
    return hits
