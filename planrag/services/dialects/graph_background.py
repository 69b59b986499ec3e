"""Spec 004's `background_search` entities and relationships: what the question reaches in the
knowledge bases' graphs, each entity typed and described from its own sentences (the first
defining sentence, `GraphExplorer.describe`), with the other names it goes by; each relationship
described by the sentence it was read from (spec 001's provenance) and who found it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planrag.core.types import KnowledgeBase
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.graph_view import GraphExplorer


@dataclass(frozen=True)
class Graph:
    """Where background_search finds entities and relationships, and how far it walks."""

    explorer: GraphExplorer
    hops: int


def graph_of(
    question: str, kbs: list[KnowledgeBase], graph: Graph, access: KnowledgeBaseAccess
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Spec 004's entities and relationships: what the question reaches in the KBs' graphs."""
    entities: dict[str, dict[str, Any]] = {}
    relationships: dict[tuple[str, str, str], dict[str, Any]] = {}
    for kb in kbs:
        owned = access.owned(kb)
        found, edges, read = graph.explorer.about(kb, question, graph.hops, documents=owned)
        described = graph.explorer.describe(
            kb, [e for e in found if e.key not in entities], documents=owned
        )
        for entity in found:
            about = described.get(entity.key)
            entities.setdefault(
                entity.key,
                {
                    "id": len(entities) + 1,
                    "entity": entity.name,
                    "type": (about.type if about else entity.type).lower(),
                    "description": about.description if about else "",
                    "aliases": about.aliases if about else entity.aliases,
                },
            )
        for edge in edges:
            key = (edge.source.key, edge.type, edge.target.key)
            kept = read.get(key)
            relationships.setdefault(
                key,
                {
                    "id": len(relationships) + 1,
                    "entity1": edge.source.name,
                    "entity2": edge.target.name,
                    "type": edge.type,
                    # the sentence it was read from; a graph written before sentences were
                    # kept has only the triple to say
                    "description": (kept.sentence if kept else "")
                    or f"{edge.source.name} {edge.type} {edge.target.name}",
                    "extracted_by": kept.extracted_by if kept else "",
                },
            )
    return list(entities.values()), list(relationships.values())
