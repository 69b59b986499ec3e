"""The stores one query reads, as a bundle: executors see protocols, never concrete classes."""

from __future__ import annotations

from dataclasses import dataclass

from planrag.stores.graph import GraphStore
from planrag.stores.lexical import LexicalStore
from planrag.stores.vector import VectorStore


@dataclass(frozen=True)
class StoreBundle:
    vector: VectorStore
    lexical: LexicalStore
    graph: GraphStore | None = None  # the knowledge base's graph, when it has one
