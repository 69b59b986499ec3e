"""Rerankers behind one protocol: a local cross-encoder, an HTTP rerank service, an LLM.

Every backend returns one score per passage normalised to [0, 1]. A missing model or an
unreachable service is a `ModelUnavailable` (503) naming the setting to change.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import httpx

from planrag.core.errors import LLMUnavailable, ModelUnavailable
from planrag.core.settings import LLMSettings, RerankSettings
from planrag.llm.chat import ChatClient

log = logging.getLogger(__name__)

MAX_PASSAGE_CHARS = 2000


@runtime_checkable
class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: list[str]) -> list[float]: ...


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


HUB_PROBE_TIMEOUT_S = 1.5


def _in_hub_cache(model: str) -> bool:
    """Whether the hub model's files are in the local cache already (no network needed)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(model, "config.json"), str)
    except Exception:
        return False


def _hub_unreachable() -> str | None:
    """Why the model hub cannot be reached (offline mode, or no answer within a second and a
    half); None when it answers."""
    if os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("TRANSFORMERS_OFFLINE") == "1":
        return "HF_HUB_OFFLINE=1"
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    try:
        httpx.head(endpoint, timeout=HUB_PROBE_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return f"the model hub {endpoint} does not answer ({type(exc).__name__})"
    return None


# The files a cross-encoder's weights come in (sentence-transformers / transformers names).
WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)


def _has_weights(directory: Path) -> bool:
    return any((directory / name).is_file() for name in WEIGHT_FILES)


def _cached_with_weights(model: str) -> bool:
    """Whether the hub model's config and weights are in the local cache (no network needed)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = [try_to_load_from_cache(model, name) for name in ("config.json", *WEIGHT_FILES)]
    except Exception:
        return False
    return isinstance(found[0], str) and any(isinstance(f, str) for f in found[1:])


def cross_encoder_problem(model: str) -> str | None:
    """Why the cross-encoder `model` cannot load, decided without importing the model stack
    (torch, transformers: seconds on a busy machine) — a directory without weights, a hub name
    neither cached nor reachable; None when loading may work."""
    path = Path(model)
    if path.exists():
        if path.is_dir() and not _has_weights(path):
            return (
                f"reranker model directory '{model}' has no weights (model.safetensors or "
                "pytorch_model.bin): set PLANRAG_RERANK__MODEL to a complete model directory, "
                "or PLANRAG_RERANK__BACKEND=http"
            )
        return None
    if _in_hub_cache(model) and _cached_with_weights(model):
        return None
    offline = _hub_unreachable()  # fails in milliseconds, not after the hub's retries
    if offline:
        return (
            f"reranker model '{model}' is not a local path nor in the model cache, and "
            f"{offline}: set PLANRAG_RERANK__MODEL to a model directory, or "
            "PLANRAG_RERANK__BACKEND=http"
        )
    return None


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder by local path or hub name; logits → sigmoid."""

    def __init__(self, model: str, batch_size: int = 32) -> None:
        problem = cross_encoder_problem(model)  # before the (slow) import below
        if problem is not None:
            raise ModelUnavailable(problem, setting="PLANRAG_RERANK__MODEL")
        from sentence_transformers import CrossEncoder

        self.name = model
        self.batch_size = batch_size
        self._lock = threading.Lock()
        local = Path(model).exists() or _in_hub_cache(model)
        try:
            self._model = CrossEncoder(model, device="cpu", local_files_only=local)
        except Exception as exc:
            raise ModelUnavailable(
                f"cannot load reranker model '{model}': {exc}. Set PLANRAG_RERANK__MODEL to a "
                "local cross-encoder directory or a reachable hub name",
                setting="PLANRAG_RERANK__MODEL",
            ) from exc

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        pairs = [(query, p[:MAX_PASSAGE_CHARS]) for p in passages]
        with self._lock:
            logits = self._model.predict(
                pairs, batch_size=self.batch_size, show_progress_bar=False, activation_fn=None
            )
        return [sigmoid(float(x)) for x in logits]


class HttpReranker:
    """An external rerank service: `POST {url}/rerank` in the TEI or Jina/Cohere shape.

    TEI: {"query", "texts"} → [{"index", "score"}]; Jina/Cohere: {"model", "query",
    "documents", "top_n"} → {"results": [{"index", "relevance_score"}]}. Timeout and retries
    come from the settings (30 s, 2 retries by default).
    """

    def __init__(self, settings: RerankSettings) -> None:
        if not settings.url:
            raise ModelUnavailable(
                "rerank backend 'http' needs PLANRAG_RERANK__URL", setting="PLANRAG_RERANK__URL"
            )
        self.name = f"http:{settings.url}"
        self._settings = settings
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._client = httpx.Client(
            base_url=settings.url.rstrip("/"), timeout=settings.timeout_s, headers=headers
        )

    def _body(self, query: str, passages: list[str]) -> dict[str, Any]:
        texts = [p[:MAX_PASSAGE_CHARS] for p in passages]
        if self._settings.api_format == "jina":
            return {
                "model": self._settings.model,
                "query": query,
                "documents": texts,
                "top_n": len(texts),
            }
        return {"query": query, "texts": texts, "raw_scores": False}

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        payload = self._post(self._body(query, passages))
        items = payload.get("results", payload) if isinstance(payload, dict) else payload
        scores = [0.0] * len(passages)
        try:
            for item in items:
                value = item.get("relevance_score", item.get("score"))
                scores[int(item["index"])] = float(value)
        except (TypeError, KeyError, ValueError, IndexError) as exc:
            raise ModelUnavailable(
                f"rerank service answered in an unexpected shape: {str(payload)[:200]}",
                setting="PLANRAG_RERANK__API_FORMAT",
            ) from exc
        return [s if 0.0 <= s <= 1.0 else sigmoid(s) for s in scores]

    def _post(self, body: dict[str, Any]) -> Any:
        attempts = self._settings.retries + 1
        for attempt in range(attempts):
            try:
                response = self._client.post("/rerank", json=body)
                if response.status_code < 500:
                    response.raise_for_status()
                    return response.json()
                error = f"HTTP {response.status_code}"
            except httpx.HTTPStatusError as exc:
                raise ModelUnavailable(
                    f"rerank service refused the request: {exc.response.status_code} "
                    f"{exc.response.text[:200]}",
                    setting="PLANRAG_RERANK__URL",
                ) from exc
            except (httpx.TransportError, ValueError) as exc:
                error = f"{type(exc).__name__}: {exc}"
            log.warning("rerank attempt %d/%d failed: %s", attempt + 1, attempts, error)
            if attempt + 1 < attempts:
                time.sleep(0.2 * 2**attempt)
        raise ModelUnavailable(
            f"rerank service at {self._settings.url} unreachable after {attempts} attempts "
            f"({error})",
            setting="PLANRAG_RERANK__URL",
        )


_LLM_PROMPT = (
    "Rate how well each passage answers the question, from 0 (irrelevant) to 10 (answers it "
    'fully). Reply with JSON only: {{"scores": [one number per passage, in order]}}.\n\n'
    "Question: {query}\n\n{passages}"
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class LLMReranker:
    """Asks the OpenAI-compatible chat model (through `llm/chat.py`, like every LLM call) for a
    0–10 relevance score per passage."""

    def __init__(self, chat: ChatClient, timeout_s: float) -> None:
        if not chat.configured:
            raise ModelUnavailable(
                "rerank backend 'llm' needs PLANRAG_LLM__MODEL and PLANRAG_LLM__BASE_URL",
                setting="PLANRAG_LLM__BASE_URL",
            )
        self.name = f"llm:{chat.settings.model}"
        self._chat = chat
        self._timeout_s = timeout_s

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        listing = "\n\n".join(
            f"[{i}] {p[:MAX_PASSAGE_CHARS]}" for i, p in enumerate(passages, start=1)
        )
        prompt = _LLM_PROMPT.format(query=query, passages=listing)
        try:
            text = self._chat.complete(
                [{"role": "user", "content": prompt}], self._timeout_s, temperature=0.0
            )
        except LLMUnavailable as exc:
            raise ModelUnavailable(
                f"LLM reranker failed: {exc.message}", setting="PLANRAG_LLM__BASE_URL"
            ) from exc
        return _parse_scores(text, len(passages))


def _parse_scores(text: str, n: int) -> list[float]:
    match = _JSON_OBJECT.search(text)
    try:
        values = json.loads(match.group(0))["scores"] if match else None
        scores = [min(10.0, max(0.0, float(v))) / 10.0 for v in values][:n]  # type: ignore[union-attr]
    except (ValueError, TypeError, KeyError) as exc:
        raise ModelUnavailable(
            f"LLM reranker answered without usable scores: {text[:200]!r}",
            setting="PLANRAG_LLM__MODEL",
        ) from exc
    if len(scores) != n:
        raise ModelUnavailable(
            f"LLM reranker scored {len(scores)} of {n} passages", setting="PLANRAG_LLM__MODEL"
        )
    return scores


RerankerKind = Literal["configured", "model", "llm"]


class RerankerRegistry:
    """Rerankers created on first use (models are large, services optional).

    `get()` is the configured backend; `get("model")` a model-based one (the configured
    cross-encoder or HTTP service, or the cross-encoder of PLANRAG_RERANK__MODEL when the
    configured backend is the LLM); `get("llm")` the LLM whatever the configured backend.
    """

    def __init__(
        self, settings: RerankSettings, llm: LLMSettings, chat: ChatClient | None = None
    ) -> None:
        self._settings = settings
        self._chat = chat or ChatClient(llm)
        self._rerankers: dict[str, Reranker] = {}
        # A reranker that could not be created fails again at once, without another attempt,
        # until the settings change (a new registry): no 45 s hub timeout per request.
        self._failures: dict[str, ModelUnavailable] = {}
        self._lock = threading.Lock()

    @property
    def backend(self) -> str:
        return self._settings.backend

    def get(self, kind: RerankerKind = "configured") -> Reranker:
        backend = self._settings.backend if kind == "configured" else kind
        if backend == "model":
            backend = "cross-encoder" if self._settings.backend == "llm" else self._settings.backend
        with self._lock:
            if backend in self._failures:
                failed = self._failures[backend]
                raise ModelUnavailable(failed.message, **failed.details)
            if backend not in self._rerankers:
                try:
                    self._rerankers[backend] = self._create(backend)
                except ModelUnavailable as exc:
                    self._failures[backend] = exc
                    raise
            return self._rerankers[backend]

    def unavailable(self, kind: RerankerKind = "configured") -> ModelUnavailable | None:
        """Why the reranker cannot be used (trying to create it once), else None."""
        try:
            self.get(kind)
        except ModelUnavailable as exc:
            return exc
        return None

    def _create(self, backend: str) -> Reranker:
        if backend == "http":
            return HttpReranker(self._settings)
        if backend == "llm":
            return LLMReranker(self._chat, self._settings.timeout_s)
        return CrossEncoderReranker(self._settings.model, self._settings.batch_size)
