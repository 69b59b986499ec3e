"""Request dependencies as type aliases (the FastAPI template's style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from planrag.services.runtime import Runtime


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
