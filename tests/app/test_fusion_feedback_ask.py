"""Real asks' feedback to a knowledge base's fusion weights, end to end through POST /ai/v2/ask
(issue 25): an LLM answer's citations of hybrid-found passages accumulate each leg's rank of
them in the KB; from MIN_FEEDBACK_ASKS asks on they move the calibrated weight by their
confidence, shown in the search's fusion info (reason, feedback_asks, feedback_confidence).
Real stores (Milvus Lite, bm25s on Kiwi), e5, our fixture corpus; the LLM is the scripted one."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from planrag.core.types import FusionCalibration
from planrag.executors.calibration import MIN_FEEDBACK_ASKS, Weighting, weights_for, with_feedback
from planrag.llm.embedders import EmbedderRegistry
from tests.app.test_ask_answers import CORPUS, Served, _served, llm_plan
from tests.llm.fake_llm import Reply, Script, scripted_llm_settings, serve_llm

FILES = ["nuribot_products.md", "hanbit_company.md", "hr_policy.md", "investment.md"]
QUESTION = "누리봇 S2의 최대 적재 중량은?"
ANSWER = "누리봇 S2의 최대 적재 중량은 500kg입니다 [1]."


@pytest.fixture(scope="module")
def served(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    script = Script()
    with serve_llm(script) as llm_url:
        llm = scripted_llm_settings(llm_url, timeout_s=5.0)
        for served in _served(tmp_path_factory.mktemp("feedback"), embedders, llm, script, FILES):
            settled(served, len(FILES))
            yield served


def settled(served: Served, documents: int) -> None:
    """Wait for the KB's documents to be indexed and for the calibration that covers every
    chunk of them (made once nothing is left to index)."""
    deadline = time.monotonic() + 300
    kb_id = kb(served)["id"]
    while True:
        # the documents first: a KB read before them could predate the last one's completion
        listed = httpx.get(f"{served.url}/api/knowledge-bases/{kb_id}/documents").json()
        done = len(listed) == documents and all(d["status"] == "completed" for d in listed)
        found = kb(served)
        calibration = found.get("calibration") or {}
        if done and calibration.get("chunk_count") == found["stats"]["chunk_count"]:
            return
        assert time.monotonic() < deadline, found
        time.sleep(0.2)


def kb(served: Served) -> dict[str, Any]:
    listed = httpx.get(f"{served.url}/api/knowledge-bases", timeout=60).json()
    return next(k for k in listed if k["name"] == "company")


def calibration(served: Served) -> FusionCalibration:
    return FusionCalibration.model_validate(kb(served)["calibration"])


def llm_ask(served: Served, answer: Reply | None = None) -> dict[str, Any]:
    served.script.replies += [llm_plan("누리봇 S2 최대 적재 중량"), answer or Reply(ANSWER)]
    return served.ask(QUESTION)


def fusion_of(got: dict[str, Any]) -> dict[str, Any]:
    return dict(got["search_result"]["stages"]["fusion"]["company"])


def test_cited_passages_teach_the_weight(served: Served) -> None:
    first = llm_ask(served)
    assert first["end"]["answer_source"] == "llm" and first["end"]["citations"]
    calibrated = fusion_of(first)
    assert calibrated["feedback_asks"] is None  # nothing learnt before this ask
    learnt = calibration(served).feedback["hangul"]
    assert learnt.asks == 1
    # one cited passage: each leg's reciprocal rank of it, 1/rank
    assert (1 / learnt.dense_rr) == pytest.approx(round(1 / learnt.dense_rr))
    assert (1 / learnt.lexical_rr) == pytest.approx(round(1 / learnt.lexical_rr))

    for _ in range(MIN_FEEDBACK_ASKS - 2):
        llm_ask(served)
    last = fusion_of(llm_ask(served))  # searched with one ask too few learnt, then learnt
    assert last["feedback_asks"] == MIN_FEEDBACK_ASKS - 1
    assert last["feedback_confidence"] == 0.0 and "not used yet" in last["reason"]
    assert last["dense_weight"] == calibrated["dense_weight"]  # same question, same weight
    stored = calibration(served)
    assert stored.feedback["hangul"].asks == MIN_FEEDBACK_ASKS
    used = fusion_of(llm_ask(served))
    assert used["feedback_asks"] == MIN_FEEDBACK_ASKS
    assert used["feedback_confidence"] > 0
    assert f"cited passages of {MIN_FEEDBACK_ASKS} asks" in used["reason"]
    # the weight used is the calibrated one moved by the feedback's confidence
    base = weights_for(stored.scripts["hangul"])
    expected, confidence = with_feedback(base, stored.feedback["hangul"])
    assert used["feedback_confidence"] == pytest.approx(confidence, abs=1e-3)
    kb_weight = used["calibrated_dense_weight"] or used["dense_weight"]
    assert kb_weight == pytest.approx(expected.dense, abs=1e-4)
    assert kb_weight != pytest.approx(base.dense, abs=1e-4) or expected.dense == base.dense


def test_answers_without_llm_citations_teach_nothing(served: Served) -> None:
    before = calibration(served).feedback["hangul"].asks
    failed = llm_ask(served, Reply(status=500, content="down"))  # the LLM fails: extractive
    assert failed["end"]["answer_source"] != "llm"
    assert calibration(served).feedback["hangul"].asks == before


def test_feedback_survives_recalibration_not_a_change_of_leg(served: Served) -> None:
    before = calibration(served)
    assert before.feedback["hangul"].asks >= MIN_FEEDBACK_ASKS
    found = kb(served)
    # a new document: measured again once indexed, with the asks' evidence kept
    name = "nuritech.md"
    upload = [("files", (name, (CORPUS / name).read_bytes(), "text/markdown"))]
    documents = f"{served.url}/api/knowledge-bases/{found['id']}/documents"
    assert httpx.post(documents, files=upload, timeout=300).status_code == 202
    settled(served, len(FILES) + 1)
    after = calibration(served)
    assert after.calibrated_at > before.calibrated_at
    assert after.chunk_count > before.chunk_count
    assert after.feedback == before.feedback
    # new user words change how BM25 ranks: what was learnt of its old ranks is dropped
    response = httpx.patch(
        f"{served.url}/api/knowledge-bases/{found['id']}",
        json={"user_words": ["적재중량"]},
        timeout=600,
    )
    assert response.status_code == 200, response.text
    assert calibration(served).feedback == {}


def test_an_even_weighting_moves_toward_the_cited_leg() -> None:
    """The blend itself, on the sums the asks above store (see tests/executors for more)."""
    from planrag.core.types import LegFeedback

    dense_found = LegFeedback(asks=20, dense_rr=20.0, lexical_rr=5.0, diff_sq=20 * 0.75**2)
    moved, confidence = with_feedback(Weighting(0.5, 0.5, "even"), dense_found)
    assert moved.dense > 0.5 and confidence > 0.5
