"""GET /healthz: liveness for anyone, details for admins; GET /readyz: readiness."""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict

from planrag import __version__
from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import (
    DocumentsDep,
    EmbeddersDep,
    HealthDep,
    KnowledgeBasesDep,
)

router = APIRouter(tags=["system"])


@router.get("/healthz")
def health(
    embedders: EmbeddersDep, knowledge_bases: KnowledgeBasesDep, principal: PrincipalDep
) -> dict[str, object]:
    """Liveness, and whether the default embedding model is loaded (`ready`). An admin caller
    (or anyone with authentication off) also gets the version, the number of knowledge bases
    and the embedding model; the public answer says nothing about the data."""
    body: dict[str, object] = {"status": "ok", "ready": embedders.is_loaded()}
    if principal.admin:
        body |= {
            "version": __version__,
            "knowledge_bases": knowledge_bases.count(),
            "embedding_model": embedders.default_model,
        }
    return body


class Readiness(BaseModel):
    """Whether this process can serve: every required store reachable, the embedding model
    loaded and the ingestion queue accepting jobs. Component states only, no details (public)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "ready": True,
                    "components": {
                        "metadata": "up",
                        "vectors": "up",
                        "embedding": "up",
                        "llm": "not configured",
                        "queue": "up",
                    },
                }
            ]
        }
    )

    ready: bool
    components: dict[str, str]


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "not ready (a required part is down)"}},
)
def readiness(health: HealthDep, documents: DocumentsDep, response: Response) -> Readiness:
    """Readiness for load balancers and orchestrators: 200 when ready, 503 otherwise."""
    report = health.check()
    components: dict[str, str] = {n: str(c.status) for n, c in report.components.items()}
    components["queue"] = "up" if documents.accepting else "down"
    ready = (
        report.status != "down"
        and components.get("embedding") == "up"
        and components["queue"] == "up"
    )
    if not ready:
        response.status_code = 503
    return Readiness(ready=ready, components=components)
