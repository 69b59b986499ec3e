"""Request dependencies as type aliases (the FastAPI template's style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Request

from planrag.core.settings import Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.access import Caller, KnowledgeBaseAccess
from planrag.services.ask import AskService
from planrag.services.auth import AuthService
from planrag.services.conversations import ConversationService
from planrag.services.dialects.collections import CollectionService
from planrag.services.dialects.dialect_services import DialectServices
from planrag.services.dialects.document_search import DocumentSearch
from planrag.services.dialects.json_documents import JsonDocumentService
from planrag.services.dialects.prompting import PromptService
from planrag.services.dialects.rag_pipeline import RagPipeline
from planrag.services.dialects.reranking import RerankService
from planrag.services.documents import DocumentService
from planrag.services.graph_view import GraphExplorer
from planrag.services.health import HealthService
from planrag.services.knowledge_bases import KnowledgeBaseService
from planrag.services.reindex import ReindexService
from planrag.services.retrieval import RetrievalService


# Dependencies that only hand out a service are `async def`: FastAPI runs a plain `def` one in
# its thread pool, and under a burst of requests every such hop waits for a thread and the GIL
# (six hops before an ask's handler ran, measured: docs/benchmarks.md, first SSE event). None of
# them does I/O; the services are built once (the runtime's cached properties).
async def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


# Narrow dependencies: a route names the one service it uses, not the whole runtime.
async def get_ask(runtime: RuntimeDep) -> AskService:
    return runtime.ask


async def get_retrieval(runtime: RuntimeDep) -> RetrievalService:
    return runtime.retrieval


async def get_knowledge_bases(runtime: RuntimeDep) -> KnowledgeBaseService:
    return runtime.knowledge_bases


async def get_settings_of(runtime: RuntimeDep) -> Settings:
    return runtime.settings


AskDep = Annotated[AskService, Depends(get_ask)]
RetrievalDep = Annotated[RetrievalService, Depends(get_retrieval)]
KnowledgeBasesDep = Annotated[KnowledgeBaseService, Depends(get_knowledge_bases)]
SettingsDep = Annotated[Settings, Depends(get_settings_of)]


async def get_kb_access(request: Request, runtime: RuntimeDep) -> KnowledgeBaseAccess:
    """Which knowledge bases this request may use: the authenticated principal's scope
    (planrag.app.auth puts it on the request; without auth, every knowledge base), and who the
    caller is (whose documents of a per-user knowledge base it sees)."""
    principal = getattr(request.state, "principal", None)
    scope = principal.knowledge_bases if principal is not None else None
    caller = Caller.of(runtime.settings.auth.enabled, principal.id if principal else "anonymous")
    return KnowledgeBaseAccess(runtime.metadata, runtime.knowledge_bases, scope, caller)


async def get_dialects(runtime: RuntimeDep) -> DialectServices:
    return runtime.dialects


AccessDep = Annotated[KnowledgeBaseAccess, Depends(get_kb_access)]
DialectsDep = Annotated[DialectServices, Depends(get_dialects)]


# product routes: the narrow dependencies of the non-spec routers (documents, knowledge bases,
# ask, retrieve, admin, graph, system, OpenAI chat). A route names the services it uses; none
# takes the whole runtime.
async def get_document_service(runtime: RuntimeDep) -> DocumentService:
    return runtime.documents


async def get_conversations(runtime: RuntimeDep) -> ConversationService:
    return runtime.conversations


async def get_reindex(runtime: RuntimeDep) -> ReindexService:
    return runtime.reindex


async def get_embedders(runtime: RuntimeDep) -> EmbedderRegistry:
    return runtime.embedders


async def get_auth_service(runtime: RuntimeDep) -> AuthService:
    return runtime.auth


async def get_graph_explorer(runtime: RuntimeDep) -> GraphExplorer:
    return runtime.graph_explorer


async def get_health(runtime: RuntimeDep) -> HealthService:
    return runtime.dialects.health


DocumentsDep = Annotated[DocumentService, Depends(get_document_service)]
ConversationsDep = Annotated[ConversationService, Depends(get_conversations)]
ReindexDep = Annotated[ReindexService, Depends(get_reindex)]
EmbeddersDep = Annotated[EmbedderRegistry, Depends(get_embedders)]
AuthServiceDep = Annotated[AuthService, Depends(get_auth_service)]  # (AdminDep: app/auth.py)
GraphExplorerDep = Annotated[GraphExplorer, Depends(get_graph_explorer)]
HealthDep = Annotated[HealthService, Depends(get_health)]


# spec dialects: the narrow dependencies of the spec 000/003/004 routers (with AskDep,
# SettingsDep, ConversationsDep, GraphExplorerDep, HealthDep above). None takes the runtime.
async def get_json_documents(dialects: DialectsDep) -> JsonDocumentService:
    return dialects.documents


async def get_document_search(dialects: DialectsDep) -> DocumentSearch:
    return dialects.search


async def get_rag_pipeline(dialects: DialectsDep) -> RagPipeline:
    return dialects.pipeline


async def get_rerank(dialects: DialectsDep) -> RerankService:
    return dialects.rerank


async def get_collections(dialects: DialectsDep) -> CollectionService:
    return dialects.collections


async def get_prompts(dialects: DialectsDep) -> PromptService:
    return dialects.prompts


JsonDocumentsDep = Annotated[JsonDocumentService, Depends(get_json_documents)]
DocumentSearchDep = Annotated[DocumentSearch, Depends(get_document_search)]
RagPipelineDep = Annotated[RagPipeline, Depends(get_rag_pipeline)]
RerankDep = Annotated[RerankService, Depends(get_rerank)]
CollectionsDep = Annotated[CollectionService, Depends(get_collections)]
PromptsDep = Annotated[PromptService, Depends(get_prompts)]

USER_ID_HELP = (
    "extension (spec 002's user_id): whose documents of a per-user knowledge base are read. "
    "Trusted with auth off; with auth on the caller is the user (anyone else is a 403)"
)


async def get_user_access(
    access: AccessDep,
    user_id: Annotated[str | None, Query(max_length=200, description=USER_ID_HELP)] = None,
) -> KnowledgeBaseAccess:
    """The request's access acting for the `user_id` it names, if any."""
    return access.as_user(user_id)


UserAccessDep = Annotated[KnowledgeBaseAccess, Depends(get_user_access)]
