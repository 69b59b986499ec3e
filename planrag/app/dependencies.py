"""Request dependencies as type aliases (the FastAPI template's style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from planrag.services.access import KnowledgeBaseAccess
from planrag.services.dialects import DialectServices
from planrag.services.runtime import Runtime


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


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
