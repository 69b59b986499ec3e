"""Ranking metrics (trec_eval conventions): nDCG@k with graded gains, recall@k, MRR@k."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def ndcg_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    gains = [qrels.get(doc, 0) for doc in ranking[:k]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains) if g > 0)
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    relevant = {doc for doc, rel in qrels.items() if rel > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranking[:k])) / len(relevant)


def all_found_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """1 when every relevant document is in the top k (multi-hop: both gold paragraphs)."""
    relevant = {doc for doc, rel in qrels.items() if rel > 0}
    return 1.0 if relevant and relevant <= set(ranking[:k]) else 0.0


def mrr_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    for i, doc in enumerate(ranking[:k]):
        if qrels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), q in [0, 100]."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
