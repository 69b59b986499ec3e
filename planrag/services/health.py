"""Health of every part the server depends on (spec 003 `GET /api/v1/health`).

Each component is `up`, `down` (with the reason) or `not configured`. The metadata DB and the
vector store are required: when one is down the server is `down`; anything else down makes it
`degraded`. Checks are cheap (a `SELECT 1`, a collection lookup, a model listing with a short
timeout) and never load a model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine, text

from planrag.llm.chat import ChatClient
from planrag.llm.embedders import EmbedderRegistry
from planrag.stores.router import VectorStoreRouter
from planrag.stores.vector import VectorStore

log = logging.getLogger(__name__)

ComponentStatus = Literal["up", "down", "not configured"]
REQUIRED = ("metadata", "vectors")
LLM_TIMEOUT_S = 2.0


class Component(BaseModel):
    status: ComponentStatus
    detail: str | None = None


class Health(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "status": "ok",
                    "components": {
                        "metadata": {"status": "up", "detail": "sqlite"},
                        "vectors": {"status": "up", "detail": "VectorStoreRouter"},
                        "milvus": {"status": "up", "detail": "MilvusStore"},
                        "pgvector": {
                            "status": "not configured",
                            "detail": "starts with its first knowledge base",
                        },
                        "embedding": {"status": "up", "detail": "all-MiniLM-L6-v2"},
                        "llm": {"status": "not configured", "detail": "PLANRAG_LLM__MODEL"},
                    },
                }
            ]
        }
    )

    status: Literal["ok", "degraded", "down"]
    components: dict[str, Component]


def _has_probe(store: VectorStore) -> str:
    store.has_collection("health-probe")
    return type(getattr(store, "inner", store)).__name__  # a batching wrapper names its store


def _probe(check: Callable[[], str | None]) -> Component:
    try:
        return Component(status="up", detail=check())
    except Exception as exc:
        log.warning("health check failed: %s", exc)
        return Component(status="down", detail=f"{type(exc).__name__}: {exc}"[:300])


class HealthService:
    def __init__(
        self,
        engine: Engine,
        vectors: VectorStore,
        embedders: EmbedderRegistry,
        llm: ChatClient,
    ) -> None:
        self._engine = engine
        self._vectors = vectors
        self._embedders = embedders
        self._llm = llm

    def check(self) -> Health:
        components = {
            "metadata": _probe(self._metadata),
            "vectors": _probe(self._vector_store),
            **self._backends(),
            "embedding": self._embedding(),
            "llm": self._llm_status(),
        }
        if any(components[name].status == "down" for name in REQUIRED):
            status: Literal["ok", "degraded", "down"] = "down"
        elif any(c.status == "down" for c in components.values()):
            status = "degraded"
        else:
            status = "ok"
        return Health(status=status, components=components)

    def _metadata(self) -> str:
        with self._engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return self._engine.dialect.name

    def _vector_store(self) -> str:
        self._vectors.has_collection("health-probe")
        return type(self._vectors).__name__

    def _backends(self) -> dict[str, Component]:
        """Each vector-store backend behind the router: probed when open; one no knowledge base
        has used yet (pgvector starts with its first KB) is `not configured`."""
        if not isinstance(self._vectors, VectorStoreRouter):
            return {}
        found: dict[str, Component] = {}
        for name in self._vectors.backends:
            store = self._vectors.open_backend(name)
            if store is None:
                found[name] = Component(
                    status="not configured", detail="starts with its first knowledge base"
                )
            else:
                found[name] = _probe(lambda store=store: _has_probe(store))  # type: ignore[misc]
        return found

    def _embedding(self) -> Component:
        model = self._embedders.default_model
        if self._embedders.is_loaded():
            return Component(status="up", detail=model)
        return Component(status="down", detail=f"{model} is not loaded (yet)")

    def _llm_status(self) -> Component:
        if not self._llm.configured:
            return Component(status="not configured", detail="PLANRAG_LLM__MODEL, __BASE_URL")

        def models() -> str:
            self._llm.list_models(LLM_TIMEOUT_S)  # through llm/chat.py, like every LLM call
            return self._llm.settings.model

        return _probe(models)
