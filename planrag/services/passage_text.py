"""Passages as plain text (`planrag.text.passage_text`), as the answer services import them: the
text layer holds them since the calibration (an executor) splits passages into sentences the way
the reader does (issue 25, session 12: the sentence-level evidence floor)."""

from planrag.text.passage_text import (
    Block,
    body_sentences,
    headed_sentences,
    plain_blocks,
    plain_text,
)

__all__ = ["Block", "body_sentences", "headed_sentences", "plain_blocks", "plain_text"]
