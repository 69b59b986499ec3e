"""Setup for an indexing helper process whose every passage embedding dies (imported by the
child, so it imports nothing heavy)."""

from __future__ import annotations

import os
import signal


def kill_on_embed() -> None:
    """Run in the child: passage embedding kills the process; tokens are plain words, so that
    no time goes to loading Kiwi."""
    import planrag.llm.embed_process as embed_process
    import planrag.text.tokenizer as tokenizer

    def crash(spec: object, texts: list[str]) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    embed_process.embed_passages = crash  # type: ignore[assignment]
    tokenizer.tokenize_texts = lambda words, texts: [t.split() for t in texts]  # type: ignore[assignment]
