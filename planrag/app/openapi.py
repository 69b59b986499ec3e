"""The OpenAPI document says what the server does (issue 10, item 13).

FastAPI documents a 422 `HTTPValidationError` (`detail` an array) on every route with
parameters and nothing else. The server answers otherwise: planrag's own routes write the one
error body of `app/errors.py` (`{"error": {code, message, details}, "detail": message}`) for
every 4xx and 5xx; a dialect route writes its spec's body and answers invalid requests with its
spec's status (spec 000: 400, spec 004: 422). This module rewrites the generated document once,
in one place, from the routes themselves:

- planrag's routes: the error statuses they can answer, each with the `ErrorResponse` schema
  (422 for invalid requests; 400 for invalid input; 404 when a path or body names something;
  409 creating or renaming; 413 and 415 for uploads; 503 when a store or model is down);
- dialect routes: no 422 where the spec answers 400;
- with authentication on, 401 and 403 on every route but the public paths;
- limits set in settings (the question length) as the schema's bounds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.routing import BaseRoute

from planrag.core.settings import Settings

REF = "#/components/schemas/ErrorResponse"


class ErrorInfo(BaseModel):
    code: str
    message: str
    details: Any = None


class ErrorResponse(BaseModel):
    """planrag's error body: a stable `code`, a message, details (for 422 the invalid fields)."""

    error: ErrorInfo
    detail: str


OWN_ERRORS = {
    400: "invalid input (code invalid_input, empty_upload, …)",
    404: "a knowledge base, document or trace it names does not exist (or is not visible)",
    422: "the request does not match the schema (code validation_error; details: the fields)",
    503: "a store or model is unavailable (the message names the setting to change)",
}


def _error(description: str, schema: dict[str, Any] | None) -> dict[str, Any]:
    content: dict[str, Any] = {"application/json": {"schema": schema} if schema else {}}
    return {"description": description, "content": content}


def _own_statuses(route: APIRoute, method: str, operation: dict[str, Any]) -> dict[int, str]:
    names_something = "{" in route.path_format or "requestBody" in operation
    takes_input = names_something or bool(operation.get("parameters"))
    statuses: dict[int, str] = {503: OWN_ERRORS[503]}
    if takes_input:
        statuses |= {400: OWN_ERRORS[400], 422: OWN_ERRORS[422]}
    if names_something:
        statuses[404] = OWN_ERRORS[404]
    if route.path_format == "/api/knowledge-bases" or (
        method in {"patch", "put"} and route.path_format.startswith("/api/knowledge-bases")
    ):
        statuses[409] = "a knowledge base of that name exists, or the model does not match"
    if route.path_format == "/admin/users" and method == "post":
        statuses[409] = "a user of that name exists"
    if route.path_format == "/token":
        statuses[401] = "wrong user name or password, or authentication is off"
    body = operation.get("requestBody", {}).get("content", {})
    if body:  # PLANRAG_INGEST__MAX_REQUEST_MB holds for every body
        statuses[413] = "the request is larger than the limits (stated in the body)"
    if "multipart/form-data" in body:
        statuses[413] = "a file or the request is larger than the limits (stated in the body)"
        statuses[415] = "a file type that cannot be indexed"
    return statuses


def _document_route(
    route: APIRoute, method: str, operation: dict[str, Any], settings: Settings
) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    error_mapper = getattr(route, "error_mapper", None)
    mapper = error_mapper() if error_mapper is not None else None
    auto_422 = "HTTPValidationError" in str(responses.get("422", ""))
    if mapper is not None:
        if auto_422 and getattr(route, "dialect_validation_status", 400) != 422:
            del responses["422"]
        elif auto_422:  # the dialect's own body
            responses["422"] = _error("invalid request (the spec's error body)", None)
        responses.setdefault("413", _error("the request is larger than the limits", {"$ref": REF}))
    else:
        for status, description in _own_statuses(route, method, operation).items():
            entry = responses.setdefault(str(status), _error(description, {"$ref": REF}))
            for media in entry.setdefault("content", {"application/json": {}}).values():
                media["schema"] = {"$ref": REF}
    public = route.path_format in settings.auth.public_paths
    if settings.auth.enabled and not public:
        own_auth = mapper is None or not getattr(route, "dialect_maps_auth", False)
        schema = {"$ref": REF} if own_auth else None
        responses.setdefault("401", _error("credentials missing or wrong", schema))
        responses.setdefault("403", _error("outside the caller's scope", schema))


def _limits(document: dict[str, Any], settings: Settings) -> None:
    schemas = document.get("components", {}).get("schemas", {})
    for name in ("PlanRequest", "PlanConversationRequest", "AskRequest", "ConversationRequest"):
        question = schemas.get(name, {}).get("properties", {}).get("question")
        if question is not None:
            question["maxLength"] = settings.ask.max_question_chars


def _api_routes(routes: list[BaseRoute], prefix: str = "") -> Iterator[tuple[str, APIRoute]]:
    """Every API route with the prefix it is included under (FastAPI keeps included routers
    nested)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield prefix, route
        elif hasattr(route, "original_router"):
            context = getattr(route, "include_context", None)
            inner = prefix + str(getattr(context, "prefix", "") or "")
            yield from _api_routes(route.original_router.routes, inner)


def install(app: FastAPI, settings: Settings) -> None:
    """Make `app.openapi()` return the corrected document (built once, then cached)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = generate()
        schemas = document.setdefault("components", {}).setdefault("schemas", {})
        schemas["ErrorResponse"] = ErrorResponse.model_json_schema(
            ref_template="#/components/schemas/{model}"
        )
        schemas.update(schemas["ErrorResponse"].pop("$defs", {}))
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        for prefix, route in _api_routes(app.routes):
            if not route.include_in_schema:
                continue
            path = document["paths"].get(prefix + route.path_format, {})
            for method in route.methods or ():
                operation = path.get(method.lower())
                if operation is not None:
                    _document_route(route, method.lower(), operation, settings)
        _limits(document, settings)
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]
