"""What the server tells people about their documents, as a stable code and its parameters
beside the English text: the console renders the code in the user's language (Korean or
English, `web/src/i18n/serverMessages.ts`) and shows the text for a code it does not know.

Errors carry the code of their class in `core/errors.py` and their details as parameters; the
progress of indexing has its own codes below. Codes are part of the API: never rename one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from planrag.core.errors import PlanragError

Param = str | int | float

PROGRESS_TEXTS = {
    "chunks_embedded": "chunks embedded {done}/{total}",
    "graph_extracting": "graph: extracting {done}/{total} chunks ({extractor})",
    "graph_writing": "graph: writing {mentions} entity mentions",
    "graph_skipped": "indexed without graph: {reason}",
    "indexing_abandoned": (
        "indexing was started {attempts} times and never finished (the worker stopped each "
        "time); upload the file again to retry"
    ),
}


class Message(BaseModel):
    """One message for people: `code` (stable), `params` (what fills it in), `text` (English)."""

    code: str = Field(examples=["chunks_embedded"])
    params: dict[str, Param] = Field(default_factory=dict, examples=[{"done": 16, "total": 52}])
    text: str = Field(examples=["chunks embedded 16/52"])


def message(code: str, **params: Param) -> Message:
    """A progress message by its code (`PROGRESS_TEXTS`)."""
    return Message(code=code, params=params, text=PROGRESS_TEXTS[code].format(**params))


def params_of(details: dict[str, Any]) -> dict[str, Param]:
    """The details of an error that can fill in a message (strings and numbers)."""
    return {k: v for k, v in details.items() if isinstance(v, str | int | float)}


def error_message(exc: Exception) -> Message:
    """An error as a message: a domain error's code and details, else `internal_error` with
    the exception's type (a bug or a failing library, named so it can be reported)."""
    if isinstance(exc, PlanragError):
        return Message(code=exc.code, params=params_of(exc.details), text=exc.message)
    return Message(code="internal_error", params={}, text=f"{type(exc).__name__}: {exc}")
