"""Error bodies fixed by an API dialect (spec 000's `result_code`/`error` + Korean `message`,
spec 004's `{success, result, error, execution_time}` envelope).

The app's one handler (`app/errors.py`) writes planrag's own error body. A dialect whose spec
fixes another body uses `DialectRoute` as its router's route class: every error raised while
handling one of its routes — request validation included — goes to that route's *error mapper*,
which turns it into the spec's body. Routes still raise domain errors, never HTTPException.

A mapper is chosen per endpoint with `@maps_errors(mapper)` or for the whole router with
`dialect_route(mapper)`. The route also notes when handling started (`started(request)`), for
bodies that report an execution time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from planrag.core import json_nesting
from planrag.core.errors import PlanragError

log = logging.getLogger(__name__)

ErrorMapper = Callable[[Request, Exception], Awaitable[Response]]
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
_MAPPER = "__planrag_error_mapper__"


def maps_errors(mapper: ErrorMapper) -> Callable[[Endpoint], Endpoint]:
    """Give one endpoint its dialect's error mapper (put it under the route decorator)."""

    def mark(endpoint: Endpoint) -> Endpoint:
        setattr(endpoint, _MAPPER, mapper)
        return endpoint

    return mark


def dialect_route(
    default: ErrorMapper | None = None, maps_auth: bool = False, validation_status: int = 400
) -> type[APIRoute]:
    """A route class mapping errors with the endpoint's mapper, else `default`. Authentication
    errors (401, 403) go to the app's handler unless `maps_auth` (the dialect's spec gives them
    a body of its own); so does 413 (no spec gives it a body; ours states the limits).
    `validation_status` is what the mappers answer an invalid request with (the OpenAPI
    document says so: app/openapi.py)."""

    class DialectRoute(APIRoute):
        dialect_maps_auth = maps_auth
        dialect_validation_status = validation_status

        def error_mapper(self) -> ErrorMapper | None:
            mapper: ErrorMapper | None = getattr(self.endpoint, _MAPPER, default)
            return mapper

        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()
            mapper: ErrorMapper | None = getattr(self.endpoint, _MAPPER, default)
            if mapper is None:
                return handler

            async def run(request: Request) -> Response:
                request.state.started = time.perf_counter()
                try:
                    return await handler(request)
                except PlanragError as exc:
                    if (exc.status in (401, 403) and not maps_auth) or exc.status == 413:
                        raise  # the app's body: a 413 states the size limits
                    _log(request, exc)
                    return await mapper(request, exc)
                except HTTPException as exc:
                    unreadable = body_error(exc)
                    if unreadable is None:
                        raise  # the app's handler (app/errors.py) writes it
                    return await mapper(request, unreadable)
                except Exception as exc:
                    _log(request, exc)
                    return await mapper(request, exc)

            return run

    return DialectRoute


def _log(request: Request, exc: Exception) -> None:
    """Unexpected errors with their traceback; domain errors as one line (5xx as warnings)."""
    where = f"{request.method} {request.url.path}"
    if isinstance(exc, PlanragError):
        level = logging.WARNING if exc.status >= 500 else logging.INFO
        log.log(level, "%s: %s %s", where, exc.code, exc.message)
    elif not isinstance(exc, RequestValidationError):
        log.error("%s: unexpected error", where, exc_info=exc)


def body_error(exc: HTTPException) -> RequestValidationError | None:
    """FastAPI answers a JSON body it cannot decode (not UTF-8, say) with a bare 400
    HTTPException; this makes it the validation error it is, so every route — planrag's own
    and each dialect's — answers it like any other invalid body. None for other exceptions."""
    cause = exc.__cause__
    if exc.status_code != 400 or cause is None or isinstance(cause, HTTPException):
        return None
    why = (
        "the body is not valid UTF-8"
        if isinstance(cause, UnicodeDecodeError)
        else f"the body could not be read ({type(cause).__name__})"
    )
    return RequestValidationError([{"type": "body_unreadable", "loc": ("body",), "msg": why}])


def reason(exc: Exception) -> str | None:
    """What a domain error says (e.g. the setting to change); None for unexpected errors,
    whose details stay in the server log."""
    return exc.message if isinstance(exc, PlanragError) else None


def started(request: Request) -> float:
    value = getattr(request.state, "started", None)
    return float(value) if value is not None else time.perf_counter()


def elapsed(request: Request) -> float:
    """Seconds since the route started handling the request."""
    return round(time.perf_counter() - started(request), 6)


def invalid_fields(exc: RequestValidationError) -> list[str]:
    """The parameter or body field names a validation error is about, in order."""
    names = []
    for error in exc.errors():
        loc = [str(part) for part in error.get("loc", ()) if not isinstance(part, int)]
        names.append(loc[1] if len(loc) > 1 and loc[0] in ("query", "body") else ".".join(loc))
    return names


def error_types(exc: RequestValidationError) -> dict[str, str]:
    """The pydantic error type (`missing`, `string_too_long`, …) per invalid field name."""
    return dict(
        zip(invalid_fields(exc), (str(e.get("type", "")) for e in exc.errors()), strict=True)
    )


def describe(exc: RequestValidationError) -> str:
    """`field: message; …` of a validation error, for humans."""
    parts = []
    for error in exc.errors():
        loc = [str(p) for p in error.get("loc", ())]
        if loc and loc[0] in ("query", "body", "path", "header"):
            loc = loc[1:]
        parts.append(f"{'.'.join(loc) or 'body'}: {error.get('msg', '')}")
    return "; ".join(parts)


MAX_EMPTY_CHECK_DEPTH = 64  # past the body limit's default, a body is not empty anyway


async def body_is_empty(request: Request) -> bool:
    """True when the request carried no JSON data: no body, `null`, `{}`, `[]` or `""`."""
    try:
        raw = await request.body()
    except RuntimeError:  # the stream was consumed without being cached
        return False
    if not raw.strip():
        return True
    try:
        return json_nesting.loads(raw, limit=MAX_EMPTY_CHECK_DEPTH) in (None, {}, [], "")
    except ValueError:  # not JSON, or nesting too deep: not empty
        return False
