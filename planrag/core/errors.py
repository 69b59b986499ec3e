"""One error hierarchy with stable codes. `app/errors.py` maps it to HTTP in one place."""

from __future__ import annotations

from typing import Any


class PlanragError(Exception):
    """Base of every domain error. `code` is stable and documented; `status` is the HTTP status."""

    code = "internal_error"
    status = 500

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidInput(PlanragError):
    code = "invalid_input"
    status = 400


class EmptyUpload(InvalidInput):
    code = "empty_upload"


class NotFound(PlanragError):
    code = "not_found"
    status = 404


class KnowledgeBaseNotFound(NotFound):
    code = "knowledge_base_not_found"


class DocumentNotFound(NotFound):
    code = "document_not_found"


class Conflict(PlanragError):
    code = "conflict"
    status = 409


class KnowledgeBaseExists(Conflict):
    code = "knowledge_base_exists"


class UploadTooLarge(PlanragError):
    code = "upload_too_large"
    status = 413


class UnsupportedFileType(PlanragError):
    code = "unsupported_file_type"
    status = 415


class ParseError(PlanragError):
    """A file could not be read (corrupt PDF, undecodable text). Marks that document `error`."""

    code = "parse_error"
    status = 422


class EmbeddingMismatch(PlanragError):
    """Vectors of another model or dimension than the knowledge base records."""

    code = "embedding_mismatch"
    status = 409


class NotAvailable(PlanragError):
    """A feature that is routed but not available yet (or not in this deployment)."""

    code = "not_available"
    status = 501


class InvalidEmbedding(PlanragError):
    """A caller-supplied vector no knowledge base can take (wrong dimension, zero vector)."""

    code = "invalid_embedding"
    status = 422


class ModelUnavailable(PlanragError):
    """A model cannot be loaded (offline hub, wrong path). Names the setting to change."""

    code = "model_unavailable"
    status = 503


class StoreUnavailable(PlanragError):
    code = "store_unavailable"
    status = 503


class LLMUnavailable(PlanragError):
    """No LLM is configured, or the configured one failed (unreachable, timeout, bad reply)."""

    code = "llm_unavailable"
    status = 503


class Forbidden(PlanragError):
    """The caller may not read this knowledge base (or document)."""

    code = "forbidden"
    status = 403


def error_for_code(code: str, message: str) -> PlanragError:
    """The domain error a stable code names (the base error for an unknown code), so an error
    reported as data (an SSE `error` event) can be raised again with its own HTTP status."""
    pending: list[type[PlanragError]] = [PlanragError]
    while pending:
        cls = pending.pop()
        if cls.code == code:
            return cls(message)
        pending.extend(cls.__subclasses__())
    return PlanragError(message)
