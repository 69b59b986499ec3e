"""ASGI middleware: a request id on every response and log line, and per-route HTTP metrics.

Pure ASGI (not BaseHTTPMiddleware) so server-sent events stream through untouched. Latency is
measured to the response's first byte: for an SSE ask that is the time to open the stream; the
ask's own stage timings are `planrag_ask_stage_seconds`.
"""

from __future__ import annotations

import re
import time
import uuid

from fastapi import APIRouter, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from planrag.core import telemetry

__all__ = ["RequestObservability", "router"]

# An incoming X-Request-ID is kept when it is short and plain (a proxy's id); else a new one.
_CLIENT_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,64}$")

router = APIRouter(tags=["system"])


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}},
)
def metrics() -> Response:
    """Prometheus metrics: HTTP latency per route, ask stages, plan sources, relaxations,
    ingestion jobs and queue depth, LLM and store errors. Behind the same auth as every route
    (add `/metrics` to `PLANRAG_AUTH__PUBLIC_PATHS` to scrape without a key)."""
    return Response(telemetry.exposition(), media_type="text/plain; version=0.0.4; charset=utf-8")


class RequestObservability:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = _incoming_id(scope) or uuid.uuid4().hex
        token = telemetry.bind_request_id(rid)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", rid.encode()))
                message = {**message, "headers": headers}
                telemetry.HTTP_LATENCY.labels(scope["method"], _route(scope)).observe(
                    time.perf_counter() - started
                )
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            telemetry.HTTP_REQUESTS.labels(scope["method"], _route(scope), str(status)).inc()
            telemetry.unbind_request_id(token)


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            return text if _CLIENT_ID.match(text) else None
    return None


def _route(scope: Scope) -> str:
    """The matched route's template (`/api/knowledge-bases/{kb_id}`), never the raw path, so
    ids do not explode the label set."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"
