"""Reranking caller-supplied or retrieved passages with a reranker of a chosen kind."""

from __future__ import annotations

from pydantic import BaseModel, Field

from planrag.llm.rerankers import RerankerKind, RerankerRegistry


class Ranked(BaseModel):
    index: int = Field(ge=0, description="position of the passage in the input")
    score: float = Field(ge=0.0, le=1.0, description="reranker score")


class RerankService:
    def __init__(self, registry: RerankerRegistry) -> None:
        self._registry = registry

    def require(self, kind: RerankerKind = "configured") -> None:
        """Load the reranker now: a missing model is an error even when nothing is found."""
        self._registry.get(kind)

    def rank(
        self,
        query: str,
        texts: list[str],
        *,
        kind: RerankerKind = "configured",
        top_k: int | None = None,
        threshold: float = 0.0,
    ) -> list[Ranked]:
        """Passages best first by reranker score, at or above `threshold`, at most `top_k`."""
        if not texts:
            return []
        scores = self._registry.get(kind).score(query, texts)
        ranked = sorted(
            (Ranked(index=i, score=s) for i, s in enumerate(scores)),
            key=lambda r: (-r.score, r.index),
        )
        kept = [r for r in ranked if r.score >= threshold]
        return kept if top_k is None else kept[:top_k]
