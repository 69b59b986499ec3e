"""Flat L2 (spec 001 §3.6): exact Euclidean distance between the query vector and each
candidate's stored vector; keep distances ≤ threshold, score = 1 / (1 + distance), best first,
`top_k` kept. Both the score and `l2_distance` are returned."""

from __future__ import annotations

import numpy as np

from planrag.executors.context import Candidate


def flat_l2(
    candidates: list[Candidate],
    query: list[float],
    vectors: dict[str, list[float]],
    top_k: int,
    threshold: float,
) -> list[Candidate]:
    q = np.asarray(query, dtype=np.float64)
    scored = []
    for cand in candidates:
        vector = vectors.get(cand.chunk_id)
        if vector is None:
            continue
        distance = float(np.linalg.norm(np.asarray(vector, dtype=np.float64) - q))
        if distance <= threshold:
            score = 1.0 / (1.0 + distance)
            scored.append(cand.model_copy(update={"score": score, "l2_distance": distance}))
    scored.sort(key=lambda c: c.score, reverse=True)
    return scored[:top_k]
