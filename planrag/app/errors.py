"""Error → HTTP mapping, in one place. Routes raise domain errors, never HTTPException."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from planrag.app.dialect_errors import body_error
from planrag.core import telemetry
from planrag.core.errors import PlanragError, StoreUnavailable

log = logging.getLogger(__name__)


def error_body(code: str, message: str, details: object = None) -> dict[str, object]:
    body: dict[str, object] = {"code": code, "message": message}
    if details:
        body["details"] = details
    return {"error": body, "detail": message}


async def planrag_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, PlanragError)
    if exc.status >= 500:
        log.error("%s: %s", exc.code, exc.message)
    details = exc.details
    if exc.status == 413:  # say every size limit, so a client knows how to split
        details = {**details, **request.app.state.runtime.settings.size_limits}
    if isinstance(exc, StoreUnavailable):
        telemetry.record_store_error(exc.code)
    headers = (
        {"WWW-Authenticate": 'Bearer, ApiKey header="X-API-Key"'} if exc.status == 401 else None
    )
    return JSONResponse(
        error_body(exc.code, exc.message, details), status_code=exc.status, headers=headers
    )


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    message = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
    return JSONResponse(error_body("validation_error", message, errors), status_code=422)


HTTP_CODES = {400: "invalid_input", 404: "not_found", 405: "method_not_allowed"}


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """Errors the framework raises itself (unknown path, wrong method, unreadable body), in
    the same body as every other error."""
    assert isinstance(exc, HTTPException)
    unreadable = body_error(exc)
    if unreadable is not None:
        return await validation_error(request, unreadable)
    code = HTTP_CODES.get(exc.status_code, "http_error")
    message = str(exc.detail)
    if exc.status_code == 404 and message == "Not Found":  # no such route
        message = f"no route {request.method} {request.url.path}; the API is listed at /docs"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    return JSONResponse(error_body(code, message), status_code=exc.status_code, headers=exc.headers)


async def unexpected_error(_request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error", exc_info=exc)
    return JSONResponse(
        error_body("internal_error", "internal server error; see the server log"), status_code=500
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(PlanragError, planrag_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, unexpected_error)
