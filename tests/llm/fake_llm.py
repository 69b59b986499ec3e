"""A scripted OpenAI-compatible HTTP server: the only fake allowed (the LLM).

The real `openai` client talks to it over HTTP, so requests, streaming and errors are exercised.
Each chat completion pops the next scripted reply: text, an HTTP error status, or a delay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from planrag.core.settings import LLMSettings
from tests.servers import serve


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    # Streaming: pause between 4-character chunks; fail (drop the connection) after N chunks.
    chunk_delay_s: float = 0.0
    fail_after_chunks: int | None = None


@dataclass
class Script:
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    # Answer 400 to strict json_schema requests, like servers without structured outputs.
    reject_json_schema: bool = False
    streams_completed: int = 0
    streams_aborted: int = 0

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
        if script.reject_json_schema and (body.get("response_format") or {}).get("type") == (
            "json_schema"
        ):
            message = "response_format json_schema is not supported by this server"
            return JSONResponse({"error": {"message": message}}, status_code=400)
        reply = script.next()
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            return JSONResponse({"error": {"message": reply.content}}, status_code=reply.status)
        if body.get("stream"):
            return StreamingResponse(_chunks(script, reply, model), media_type="text/event-stream")
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


async def _chunks(script: Script, reply: Reply, model: str) -> AsyncIterator[str]:
    finished = False
    try:
        async for part in _parts(reply, model):
            yield part
        finished = True
    finally:
        if finished:
            script.streams_completed += 1
        else:
            script.streams_aborted += 1


async def _parts(reply: Reply, model: str) -> AsyncIterator[str]:
    content = reply.content
    for n, i in enumerate(range(0, len(content), 4)):
        if reply.fail_after_chunks is not None and n >= reply.fail_after_chunks:
            raise RuntimeError("scripted failure mid-stream")
        if reply.chunk_delay_s:
            await asyncio.sleep(reply.chunk_delay_s)
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


def scripted_llm_settings(url: str, **overrides: object) -> LLMSettings:
    """Settings for a runtime whose LLM is this script: no calibration questions, so a
    background calibration after indexing never takes a reply the test scripted."""
    fields: dict[str, object] = {"base_url": url, "api_key": "k", "model": "test-model"}
    return LLMSettings(**{**fields, **overrides, "calibration_questions": False})  # type: ignore[arg-type]
