"""The FastAPI application: `create_app()` and its lifespan."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from starlette.concurrency import run_in_threadpool

from planrag import __version__
from planrag.app import auth, console, docs, errors, observability, openapi
from planrag.app.limits import JsonNestingLimit, RequestSizeLimit
from planrag.app.routers import (
    admin,
    ask,
    ask_v1,
    documents,
    graph,
    knowledge_bases,
    openai_chat,
    retrieve,
    spec000_prompt,
    spec000_rag,
    spec000_reranker,
    spec003,
    spec004,
    system,
)
from planrag.core import telemetry
from planrag.core.settings import Settings, get_settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.auth import check_secret
from planrag.services.workers import IndexingWorker

log = logging.getLogger(__name__)

TAGS = [
    {"name": "knowledge-bases", "description": "Knowledge bases (spec 001 §4)"},
    {"name": "documents", "description": "Document upload, status and chunks"},
    {"name": "retrieval", "description": "Retrieval against one knowledge base"},
    {
        "name": "ask (spec 002)",
        "description": "Planned question answering over SSE, plan inspection, stored traces",
    },
    {"name": "system", "description": "Health"},
    {
        "name": "openai-compatible",
        "description": "The OpenAI chat convention: /v1/chat/completions and /v1/models",
    },
    {
        "name": "openai-compatible",
        "description": "The OpenAI chat convention: /v1/chat/completions and /v1/models",
    },
    {"name": "auth", "description": "OAuth2 password flow (when PLANRAG_AUTH__ENABLED)"},
    {"name": "admin", "description": "API keys and users (admin keys and users only)"},
    {"name": "spec-000 rag", "description": "Spec 000 §1–5: the Milvus RAG API (/rag/…)"},
    {"name": "spec-000 reranker", "description": "Spec 000 §6–8: the reranker API (/reranker/…)"},
    {
        "name": "spec-000 prompt",
        "description": "Spec 000 §9–11: summarise, chat, models (/prompt/…)",
    },
    {"name": "spec-003", "description": "Spec 003: retrieval service (/api/v1/rag, …)"},
    {"name": "spec-004", "description": "Spec 004: LightRAG-style retrieval (/api/v1/retrieve)"},
]


def _start_worker(runtime: Runtime) -> IndexingWorker | None:
    """Queue mode database: this API process indexes queued documents too, unless
    PLANRAG_INGEST__SERVE_WORKER=false (`serve --no-worker`, separate worker processes)."""
    queue, ingest = runtime.ingestion.queue, runtime.settings.ingest
    if queue is None or not ingest.serve_worker:
        return None
    return IndexingWorker(runtime.ingestion, queue, ingest, threads=ingest.concurrency).start()


def create_app(
    settings: Settings | None = None, embedders: EmbedderRegistry | None = None
) -> FastAPI:
    """The app. `embedders` lets tests share one loaded model across apps."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = await run_in_threadpool(Runtime.open, settings, embedders)
        app.state.runtime = runtime
        telemetry.set_queue_depth_source(lambda: runtime.ingestion.queue_depth)
        runtime.warm_up()
        failed = await run_in_threadpool(runtime.reindex.recover)
        if failed:
            log.warning("%d interrupted reindex(es): the old vectors serve", len(failed))
        resumed = await run_in_threadpool(runtime.ingestion.recover)
        if resumed:
            log.info("resumed indexing of %d document(s) left by an earlier run", len(resumed))
        worker = _start_worker(runtime)
        try:
            yield
        finally:
            telemetry.set_queue_depth_source(None)
            if worker is not None:
                await run_in_threadpool(worker.stop)
            runtime.close()

    check_secret(settings.auth)  # refuse to start with auth on and the default secret
    app = FastAPI(
        title="planrag",
        version=__version__,
        description="LLM-planned retrieval-augmented question answering (Korean first).",
        openapi_tags=TAGS,
        lifespan=lifespan,
        docs_url=None,  # served by planrag.app.docs from packaged assets, not a CDN
        redoc_url=None,
        # authentication, then a KB path segment (an id or a name) resolved in the caller's scope
        dependencies=[Depends(auth.authenticate)],
    )
    errors.install(app)
    app.add_middleware(JsonNestingLimit, settings=settings)  # inside: observed, size-capped
    app.add_middleware(observability.RequestObservability)
    app.add_middleware(RequestSizeLimit, settings=settings)  # outermost: before any reading
    dialects = (spec000_rag, spec000_reranker, spec000_prompt, spec003, spec004)
    routers = (knowledge_bases, graph, documents, retrieve, ask, ask_v1, system, openai_chat)
    for router in (*routers, *dialects):
        app.include_router(router.router)
    app.include_router(auth.router)
    app.include_router(admin.router)
    app.include_router(observability.router)
    docs.install(app)
    console.install(app, settings)  # last: the console never shadows an API route
    openapi.install(app, settings)  # the document says what the routes answer
    return app
