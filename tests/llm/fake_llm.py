"""A scripted OpenAI-compatible HTTP server: the only fake allowed (the LLM).

The real `openai` client talks to it over HTTP, so requests, streaming and errors are exercised.
Each chat completion pops the next scripted reply: text, an HTTP error status, or a delay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from tests.servers import serve


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0


@dataclass
class Script:
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)

    def next(self) -> Reply:
        return self.replies.pop(0) if self.replies else Reply(status=500, content="script empty")


def build_app(script: Script, model: str) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/models")
    def models() -> dict:
        return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "test"}]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request):  # type: ignore[no-untyped-def]
        body = await request.json()
        script.requests.append(body)
        reply = script.next()
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            return JSONResponse({"error": {"message": reply.content}}, status_code=reply.status)
        if body.get("stream"):
            return StreamingResponse(_chunks(reply.content, model), media_type="text/event-stream")
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    return app


def _chunks(content: str, model: str) -> Iterator[str]:
    for i in range(0, len(content), 4):
        delta = {"content": content[i : i + 4]}
        chunk = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
        yield f"data: {json.dumps(chunk)}\n\n"
    done = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    }
    yield f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n"


@contextmanager
def serve_llm(script: Script, model: str = "test-model") -> Iterator[str]:
    """Yields the base URL (…/v1) of a running scripted server."""
    with serve(build_app(script, model)) as url:
        yield f"{url}/v1"
