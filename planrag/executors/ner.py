"""NER filter (spec 001 §3.5): chunks that mention none of the question's entities get their
score × 0.3, then everything is re-sorted. The entities come from `planrag.text.entities`."""

from __future__ import annotations

from planrag.executors.context import Candidate

PENALTY = 0.3


def ner_filter(
    candidates: list[Candidate], entities: list[str], texts: dict[str, str]
) -> list[Candidate]:
    if not entities:
        return candidates
    lowered = [e.lower() for e in entities]
    adjusted = []
    for cand in candidates:
        text = texts.get(cand.chunk_id, "").lower()
        if not any(e in text for e in lowered):
            cand = cand.model_copy(update={"score": cand.score * PENALTY})
        adjusted.append(cand)
    return sorted(adjusted, key=lambda c: c.score, reverse=True)
