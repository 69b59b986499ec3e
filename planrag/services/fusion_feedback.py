"""Real asks' feedback to a knowledge base's fusion weights (issue 25): the passages an LLM's
answer cited are what the user needed; where a hybrid search found them, the rank each leg gave
them says which leg finds what this KB's users ask for. One ask gives, per knowledge base and
query script, the mean reciprocal rank of its cited passages in each leg; the calibrator keeps
their sums and blends them into the weight as they accumulate (`calibration.with_feedback`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from planrag.services.answers import Citation, LegRanks, Passage

# (kb_id, query script, dense leg's mean reciprocal rank, BM25's)
Learn = Callable[[str, str, float, float], None]


@dataclass(frozen=True)
class Evidence:
    kb_id: str
    script: str
    dense_rr: float
    lexical_rr: float


def evidence(
    citations: list[Citation], passages: list[Passage], kb_ids: dict[str, str]
) -> list[Evidence]:
    """One ask's evidence per (knowledge base, query script): its cited passages that a hybrid
    search ranked in both legs, each leg's mean reciprocal rank of them."""
    by_n = {p.n: p for p in passages}
    groups: dict[tuple[str, str], list[LegRanks]] = {}
    for n in sorted({c.n for c in citations}):
        passage = by_n.get(n)
        if passage is None or passage.leg_ranks is None:
            continue
        kb_id = kb_ids.get(passage.knowledge_base)
        if kb_id is not None:
            groups.setdefault((kb_id, passage.leg_ranks.script), []).append(passage.leg_ranks)
    return [
        Evidence(
            kb_id,
            script,
            sum(1.0 / r.dense for r in ranks) / len(ranks),
            sum(1.0 / r.lexical for r in ranks) / len(ranks),
        )
        for (kb_id, script), ranks in sorted(groups.items())
    ]
