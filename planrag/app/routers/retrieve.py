"""POST /api/knowledge-bases/{kb_id}/retrieve."""

from __future__ import annotations

from fastapi import APIRouter, Response
from starlette.concurrency import run_in_threadpool

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import RetrievalDep, SettingsDep
from planrag.core.types import Hit
from planrag.services.ownership import acting_user
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
    settings: SettingsDep,
    principal: PrincipalDep,
    response: Response,
) -> list[Hit]:
    """Chunks best first; `score` is cosine similarity in [0, 1] whatever the KB metric. On a
    per-user knowledge base, only the caller's documents (with auth on; none with auth off)."""
    user = acting_user(settings.auth.enabled, principal.id, None)
    notes: list[str] = []
    hits = await run_in_threadpool(retrieval.retrieve_as, kb_id, body, user, notes)
    if notes:  # header values are Latin-1: anything else is escaped
        text = "; ".join(notes)
        response.headers[NOTICE_HEADER] = text.encode("ascii", "backslashreplace").decode()
    return hits
