"""The size of a request as a whole (PLANRAG_INGEST__MAX_REQUEST_MB), and how deep its JSON
body nests (PLANRAG_INGEST__MAX_JSON_DEPTH), for every route.

A pure ASGI middleware: a declared `Content-Length` over the limit is answered 413 before any
of the body is read; a body without one (chunked) is counted as it arrives and refused as soon
as it passes the limit — whatever the route then made of the broken body (a parse error, a
dialect's 500) is replaced by the 413. The 413 states every limit, so a client can split.
"""

from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from planrag.app.errors import error_body
from planrag.core.json_nesting import nesting_depth
from planrag.core.settings import Settings


class RequestTooLarge(Exception):
    """Raised from `receive` once the body passes the limit (the route never sees more)."""


class RequestSizeLimit:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.max_bytes = settings.max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send, f"the request declares {declared} bytes")
            return
        state = {"read": 0, "exceeded": False, "replaced": False}

        async def counted() -> Message:
            if state["exceeded"]:
                raise RequestTooLarge
            message = await receive()
            if message["type"] == "http.request":
                state["read"] += len(message.get("body", b""))
                if state["read"] > self.max_bytes:
                    state["exceeded"] = True
                    raise RequestTooLarge
            return message

        async def guarded(message: Message) -> None:
            if not state["exceeded"]:
                await send(message)
            elif not state["replaced"] and message["type"] == "http.response.start":
                state["replaced"] = True  # the app's answer to a cut body: ours instead
                await self._refuse(send, "the request body is larger")

        try:
            await self.app(scope, counted, guarded)
        except Exception:
            if not state["exceeded"]:
                raise
            if not state["replaced"]:
                await self._refuse(send, "the request body is larger")

    async def _refuse(self, send: Send, what: str) -> None:
        limit = f"the limit of {self.max_bytes} bytes (PLANRAG_INGEST__MAX_REQUEST_MB)"
        message = f"{what} than {limit}"
        body = error_body("upload_too_large", message, self.settings.size_limits)
        raw = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(raw)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": raw})


class JsonNestingLimit:
    """A JSON body (declared JSON, or with no content type, as FastAPI reads it) nesting deeper
    than the limit is answered 400 `invalid_input` before any route parses it: Python's parser
    recurses once per level, and 100,000 `[` were a `RecursionError` (a 500 where a route
    parsed the body again). The body is held once (the route would read it whole anyway; the
    size limit outside this one bounds it) and handed on unchanged."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.max_depth = settings.ingest.max_json_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_json(Headers(scope=scope).get("content-type")):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        depth = nesting_depth(body, self.max_depth)
        if depth > self.max_depth:
            why = (
                f"the JSON body nests deeper than {self.max_depth} levels "
                "(PLANRAG_INGEST__MAX_JSON_DEPTH)"
            )
            await _answer(send, 400, error_body("invalid_input", why))
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return True  # FastAPI reads a body without a content type as JSON
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


async def _answer(send: Send, status: int, body: dict[str, object]) -> None:
    raw = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": raw})
