"""Calibration queries written by the LLM (the scripted server), and the fall-back to the
calibration's own pseudo-queries when it fails."""

from __future__ import annotations

import json

from planrag.core.settings import LLMSettings
from planrag.core.types import FusionCalibration, KnowledgeBase
from planrag.executors.calibration_questions import QuestionWriter
from planrag.executors.fusion import FusionCalibrator
from planrag.llm.chat import ChatClient
from planrag.runtime import question_writer
from tests.executors.test_fusion import ENGLISH
from tests.llm.fake_llm import Reply, Script, serve_llm

PASSAGES = [f"{a} {b}" for a, b in ENGLISH]  # 12 passages of two sentences: 2 batches of 8


def questions(numbers: range, extra: list[dict[str, object]] | None = None) -> Reply:
    items = [{"n": n, "question": f"What does passage {n} report?"} for n in numbers]
    return Reply(content=json.dumps({"questions": items + (extra or [])}))


def calibrate(embedders, writer: QuestionWriter | None) -> FusionCalibration:
    saved: list[FusionCalibration] = []
    kb = KnowledgeBase.model_construct(id="kb", user_words=[])
    calibrator = FusionCalibrator(
        lambda _kb, n, _seed: [(str(i), t) for i, t in enumerate(PASSAGES)][:n],
        lambda _kb, calibration: saved.append(calibration),
        lambda _kb: kb,
        lambda _kb: len(PASSAGES),
        embedders,
        writer,
    )
    return calibrator._measure(kb, embedders.get(), len(PASSAGES))


def test_llm_questions_become_the_calibration_queries(embedders) -> None:
    copied = {"n": 2, "question": ENGLISH[1][0]}  # a sentence of its passage: not a question
    script = Script(
        replies=[
            questions(range(1, 9), [{"n": 99, "question": "no such passage?"}, copied]),
            questions(range(1, 4)),  # the second batch's 4th passage gets none
        ]
    )
    with serve_llm(script) as url:
        chat = ChatClient(LLMSettings(base_url=url, model="test-model"))
        calibration = calibrate(embedders, QuestionWriter(chat, timeout_s=30))
    assert calibration.queries == "llm"
    assert calibration.scripts["latin"].queries == 11  # 8 + 3 usable questions
    assert len(script.requests) == 2
    sent = script.requests[0]["messages"][-1]["content"]
    assert "[1] The city museum is closed on Mondays." in sent and "[9]" not in sent


def test_a_failing_or_absent_llm_leaves_the_pseudo_queries(embedders) -> None:
    halves = calibrate(embedders, None)
    assert halves.queries == "halves"
    script = Script(replies=[Reply(status=500), Reply(status=500)])
    with serve_llm(script) as url:
        chat = ChatClient(LLMSettings(base_url=url, model="test-model"))
        failed = calibrate(embedders, QuestionWriter(chat, timeout_s=30))
    assert failed.queries == "halves"
    assert failed.scripts == halves.scripts
    unconfigured = QuestionWriter(ChatClient(LLMSettings()), timeout_s=30)
    assert calibrate(embedders, unconfigured).queries == "halves"


def test_the_setting_turns_the_llm_questions_off() -> None:
    llm = LLMSettings(base_url="http://127.0.0.1:9/v1", model="test-model")
    writer = question_writer(llm, ChatClient(llm))
    assert writer is not None and writer.configured
    off = llm.model_copy(update={"calibration_questions": False})
    assert question_writer(off, ChatClient(off)) is None
