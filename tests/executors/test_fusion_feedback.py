"""Real asks' feedback to the fusion weights: the legs' ranks of cited passages, blended into
the calibrated weight with a confidence (issue 25)."""

from __future__ import annotations

import random

from planrag.core.types import LegFeedback
from planrag.executors.calibration import FLOOR, MIN_FEEDBACK_ASKS, Weighting, with_feedback
from planrag.executors.hybrid import ranks
from planrag.services.answers import Citation, LegRanks, Passage
from planrag.services.fusion_feedback import evidence

CALIBRATED = Weighting(0.4, 0.6, "calibrated (…)")


def asks(observations: list[tuple[float, float]]) -> LegFeedback:
    """The sums LegFeedback keeps, from (dense rr, lexical rr) per ask."""
    return LegFeedback(
        asks=len(observations),
        dense_rr=sum(d for d, _ in observations),
        lexical_rr=sum(lex for _, lex in observations),
        diff_sq=sum((d - lex) ** 2 for d, lex in observations),
    )


def test_no_or_too_little_feedback_keeps_the_calibrated_weight() -> None:
    assert with_feedback(CALIBRATED, None) == (CALIBRATED, 0.0)
    few = asks([(1.0, 0.1)] * (MIN_FEEDBACK_ASKS - 1))
    weighting, confidence = with_feedback(CALIBRATED, few)
    assert (weighting.dense, confidence) == (0.4, 0.0)
    assert "not used yet" in weighting.reason


def test_feedback_moves_the_weight_toward_the_leg_that_found_what_was_cited() -> None:
    dense_led = [(1.0, 0.25), (0.5, 0.2), (1.0, 0.5), (0.5, 0.33)]
    moved, confidence = with_feedback(CALIBRATED, asks(dense_led * 3))
    assert moved.dense > CALIBRATED.dense and 0 < confidence < 1
    assert "cited passages of 12 asks" in moved.reason and "confidence" in moved.reason
    more, more_confidence = with_feedback(CALIBRATED, asks(dense_led * 30))
    assert more_confidence > confidence and more.dense > moved.dense  # more asks, more trust
    assert more.dense <= 1 - FLOOR  # bounded like the calibration
    lexical_led = [(lex, d) for d, lex in dense_led]
    down, _ = with_feedback(CALIBRATED, asks(lexical_led * 30))
    assert FLOOR <= down.dense < CALIBRATED.dense
    # noisy evidence (the legs take turns) moves it less than consistent evidence
    noisy = [(1.0, 0.1), (0.1, 1.0), (1.0, 0.1), (0.2, 0.9)] * 3 + [(1.0, 0.5)] * 12
    consistent = [(0.9, 0.5)] * 12 + [(0.5, 0.3)] * 12
    assert (
        with_feedback(CALIBRATED, asks(noisy))[1] < with_feedback(CALIBRATED, asks(consistent))[1]
    )


def test_feedback_does_not_depend_on_the_asks_order() -> None:
    rng = random.Random(7)
    observed = [(1 / rng.randint(1, 9), 1 / rng.randint(1, 9)) for _ in range(40)]
    shuffled = observed[:]
    rng.shuffle(shuffled)
    first, _ = with_feedback(CALIBRATED, asks(observed))
    second, _ = with_feedback(CALIBRATED, asks(shuffled))
    assert round(first.dense, 9) == round(second.dense, 9)


def test_ranks_share_ties() -> None:
    assert ranks({"a": 0.9, "b": 0.5, "c": 0.9, "d": 0.1}) == {"a": 1, "c": 1, "b": 3, "d": 4}
    assert ranks({}) == {}


def passage(n: int, kb: str, dense: int, lexical: int, script: str = "hangul") -> Passage:
    return Passage(
        n=n,
        chunk_id=f"c{n}",
        doc_id=f"d{n}",
        knowledge_base=kb,
        score=0.5,
        content="…",
        leg_ranks=LegRanks(dense=dense, lexical=lexical, script=script),
    )


def test_one_ask_gives_one_piece_of_evidence_per_kb_and_script() -> None:
    passages = [passage(1, "a", 1, 4), passage(2, "a", 2, 1), passage(3, "b", 5, 1)]
    passages.append(
        Passage(
            n=4,
            chunk_id="c4",
            doc_id="d4",
            knowledge_base="a",
            score=0.1,
            content="found by ann alone: no leg ranks",
        )
    )
    cited = [Citation(n=n, chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="a") for n in (1, 2, 4)]
    found = evidence(cited, passages, {"a": "kb-a", "b": "kb-b"})
    assert [(e.kb_id, e.script) for e in found] == [("kb-a", "hangul")]
    assert found[0].dense_rr == (1 + 1 / 2) / 2 and found[0].lexical_rr == (1 / 4 + 1) / 2
    # the leg ranks are the server's own: never in the passages a client is sent
    assert "leg_ranks" not in passages[0].model_dump()
