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


def get_kb_access(runtime: RuntimeDep) -> KnowledgeBaseAccess:
    """Which knowledge bases this request may use. Every caller may use every KB for now;
    authentication goes here: resolve the request's principal (API key or bearer token) and
    pass its knowledge-base names as `scope` (see planrag.services.access)."""
    return KnowledgeBaseAccess(runtime.metadata, runtime.knowledge_bases, scope=None)


def get_dialects(runtime: RuntimeDep) -> DialectServices:
    return runtime.dialects


AccessDep = Annotated[KnowledgeBaseAccess, Depends(get_kb_access)]
DialectsDep = Annotated[DialectServices, Depends(get_dialects)]
