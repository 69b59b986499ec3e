"""/api/knowledge-bases/{kb_id}/graph: a knowledge base's entity graph, for the console's graph
view (neighbourhoods, the most connected entities, the passages behind an entity)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import GraphExplorerDep
from planrag.services.graph_view import EntitySources, GraphNeighbourhood

router = APIRouter(prefix="/api/knowledge-bases/{kb_id}/graph", tags=["knowledge-bases"])


@router.get("", response_model=GraphNeighbourhood)
def graph_neighbourhood(
    kb_id: str,
    graph: GraphExplorerDep,
    principal: PrincipalDep,
    entity: Annotated[str | None, Query(max_length=500)] = None,
    hops: Annotated[int, Query(ge=1, le=3)] = 1,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> GraphNeighbourhood:
    """The neighbourhood of an entity (matched by its normalised name, else fuzzily) within
    `hops`, at most `limit` nodes; without `entity`, the most connected entities. 400 for a
    knowledge base without a graph. On a per-user knowledge base with auth on, only what the
    caller's own documents mention (admins see everything)."""
    return graph.neighbourhood(kb_id, entity, hops, limit, principal)


@router.get("/entities/{entity_id}/sources", response_model=EntitySources)
def entity_sources(
    kb_id: str,
    entity_id: str,
    graph: GraphExplorerDep,
    principal: PrincipalDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> EntitySources:
    """The chunks that mention an entity (its id from a graph response), with their document."""
    return graph.sources(kb_id, entity_id, limit, principal)
