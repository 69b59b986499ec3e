"""Request dependencies as type aliases (the FastAPI template's style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from planrag.core.settings import Settings
from planrag.runtime import Runtime
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.ask import AskService
from planrag.services.dialects import DialectServices
from planrag.services.ingestion import IngestionService
from planrag.services.knowledge_bases import KnowledgeBaseService
from planrag.services.retrieval import RetrievalService


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


# Narrow dependencies: a route names the one service it uses, not the whole runtime.
def get_ask(runtime: RuntimeDep) -> AskService:
    return runtime.ask


def get_retrieval(runtime: RuntimeDep) -> RetrievalService:
    return runtime.retrieval


def get_documents(runtime: RuntimeDep) -> IngestionService:
    return runtime.ingestion


def get_knowledge_bases(runtime: RuntimeDep) -> KnowledgeBaseService:
    return runtime.knowledge_bases


def get_settings_of(runtime: RuntimeDep) -> Settings:
    return runtime.settings


AskDep = Annotated[AskService, Depends(get_ask)]
RetrievalDep = Annotated[RetrievalService, Depends(get_retrieval)]
DocumentsDep = Annotated[IngestionService, Depends(get_documents)]
KnowledgeBasesDep = Annotated[KnowledgeBaseService, Depends(get_knowledge_bases)]
SettingsDep = Annotated[Settings, Depends(get_settings_of)]


def get_kb_access(request: Request, runtime: RuntimeDep) -> KnowledgeBaseAccess:
    """Which knowledge bases this request may use: the authenticated principal's scope
    (planrag.app.auth puts it on the request; without auth, every knowledge base)."""
    principal = getattr(request.state, "principal", None)
    scope = principal.knowledge_bases if principal is not None else None
    return KnowledgeBaseAccess(runtime.metadata, runtime.knowledge_bases, scope=scope)


def get_dialects(runtime: RuntimeDep) -> DialectServices:
    return runtime.dialects


AccessDep = Annotated[KnowledgeBaseAccess, Depends(get_kb_access)]
DialectsDep = Annotated[DialectServices, Depends(get_dialects)]
