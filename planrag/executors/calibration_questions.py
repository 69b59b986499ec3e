"""Calibration questions written by an LLM, when one is configured: for each sampled passage,
a question a user might ask that the passage answers (issue 25: pseudo-queries cut from the
passage itself reward near-duplicate matching, real questions paraphrase).

The LLM sees passages in batches; each usable question becomes a (question, passage) pair for
`calibration.measure`. An LLM that is unreachable, times out or answers nothing usable gives
None and the calibration falls back to its own pseudo-queries: writing questions never fails an
indexing.
"""

from __future__ import annotations

import json
import logging

from pydantic import BaseModel, ValidationError

from planrag.core.errors import LLMUnavailable
from planrag.llm.chat import ChatClient
from planrag.prompts import render

log = logging.getLogger(__name__)

BATCH = 8
MAX_PASSAGE = 1200
MAX_QUESTION = 300
SCHEMA = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "question": {"type": "string"}},
                "required": ["n", "question"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["questions"],
    "additionalProperties": False,
}


class _Question(BaseModel):
    n: int
    question: str


class _Questions(BaseModel):
    questions: list[_Question]


class QuestionWriter:
    """Questions for calibration passages from the configured LLM (none configured: None)."""

    def __init__(self, chat: ChatClient, timeout_s: float) -> None:
        self._chat = chat
        self._timeout_s = timeout_s

    @property
    def configured(self) -> bool:
        return self._chat.configured

    def pairs(self, passages: list[str]) -> list[tuple[str, str]] | None:
        """(question, passage) for every passage the LLM wrote a usable question for, in the
        passages' order; None when no LLM is configured or it fails."""
        if not self.configured or not passages:
            return None
        out: list[tuple[str, str]] = []
        for start in range(0, len(passages), BATCH):
            batch = passages[start : start + BATCH]
            try:
                raw = self._chat.complete_json(
                    _messages(batch), SCHEMA, "calibration_questions", self._timeout_s
                )
            except LLMUnavailable as exc:
                log.info("calibration questions: %s; using pseudo-queries", exc)
                return None
            out.extend(_usable(raw, batch))
        return out or None


def _messages(batch: list[str]) -> list[dict[str, str]]:
    numbered = "\n\n".join(f"[{i}] {text[:MAX_PASSAGE]}" for i, text in enumerate(batch, 1))
    return [
        {"role": "system", "content": render("calibration_questions_system")},
        {"role": "user", "content": render("calibration_questions_user", passages=numbered)},
    ]


def _usable(raw: str, batch: list[str]) -> list[tuple[str, str]]:
    """The answer's questions that name a passage of the batch, are short and are not copied
    from their passage; a malformed answer gives none."""
    try:
        written = _Questions.model_validate(json.loads(raw)).questions
    except (ValueError, ValidationError):
        log.info("calibration questions: malformed LLM answer ignored")
        return []
    out: dict[int, tuple[str, str]] = {}
    for item in written:
        question = " ".join(item.question.split())
        if not 1 <= item.n <= len(batch) or item.n in out:
            continue
        passage = batch[item.n - 1]
        if 2 <= len(question) <= MAX_QUESTION and question not in " ".join(passage.split()):
            out[item.n] = (question, passage)
    return [out[n] for n in sorted(out)]
