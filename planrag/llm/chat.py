"""Chat with any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM) through the `openai` client:
structured JSON output (strict `json_schema`, falling back to JSON mode where a server lacks it),
plain completions, token streams, and the model list."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from planrag.core import telemetry
from planrag.core.errors import LLMUnavailable
from planrag.core.settings import LLMSettings

log = logging.getLogger(__name__)
Message = dict[str, str]


def _unavailable(exc: Exception) -> LLMUnavailable:
    """`kind`: connection (unreachable), timeout, or status (the server answered with an error)."""
    from openai import APIConnectionError, APITimeoutError

    if isinstance(exc, APITimeoutError):
        kind = "timeout"
    elif isinstance(exc, APIConnectionError):
        kind = "connection"
    else:
        kind = "status"
    telemetry.record_llm_error(kind)
    return LLMUnavailable(f"LLM request failed: {type(exc).__name__}: {str(exc)[:300]}", kind=kind)


def not_configured() -> LLMUnavailable:
    return LLMUnavailable(
        "no LLM configured: set PLANRAG_LLM__BASE_URL and PLANRAG_LLM__MODEL", kind="not_configured"
    )


class ChatClient:
    """One client per process; `model` may be overridden per call (a request's `llm.model`)."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self._json_schema_supported = True
        self._sync: Any = None
        self._async: Any = None
        self._async_loop: Any = None

    @property
    def configured(self) -> bool:
        return self.settings.configured

    def _options(self) -> dict[str, Any]:
        if not self.configured:
            raise not_configured()
        return {
            "base_url": self.settings.base_url or None,
            "api_key": self.settings.api_key or "not-needed",
            "max_retries": 0,
        }

    def _client(self) -> Any:
        if self._sync is None:
            from openai import OpenAI

            self._sync = OpenAI(**self._options())
        return self._sync

    def _async_client(self) -> tuple[Any, bool]:
        """(client, shared). An async client's connection pool belongs to the event loop that
        first used it: the first loop (the server's, streaming SSE answers) keeps one; a call
        from another loop (`AskService.run` answers one-body dialects in a loop of its own) gets
        a client of its own, closed after the call."""
        import asyncio

        from openai import AsyncOpenAI

        loop = asyncio.get_running_loop()
        if self._async is None:
            self._async, self._async_loop = AsyncOpenAI(**self._options()), loop
        if self._async_loop is loop:
            return self._async, True
        return AsyncOpenAI(**self._options()), False

    def complete_json(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        name: str,
        timeout_s: float,
        model: str | None = None,
    ) -> str:
        """The model's raw JSON text, constrained by `schema` where the server supports it."""
        from openai import BadRequestError, OpenAIError

        client = self._client()
        strict = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
        if self._json_schema_supported:
            try:
                return self._create(client, messages, timeout_s, model, strict)
            except BadRequestError as exc:
                if "response_format" not in str(exc) and "json_schema" not in str(exc):
                    raise _unavailable(exc) from exc
                log.info("LLM server lacks json_schema output; using JSON mode")
                self._json_schema_supported = False
            except OpenAIError as exc:
                raise _unavailable(exc) from exc
        try:
            return self._create(client, messages, timeout_s, model, {"type": "json_object"})
        except OpenAIError as exc:
            raise _unavailable(exc) from exc

    def complete(
        self,
        messages: list[Message],
        timeout_s: float,
        model: str | None = None,
        temperature: float | None = None,
    ) -> str:
        from openai import OpenAIError

        try:
            return self._create(self._client(), messages, timeout_s, model, None, temperature)
        except OpenAIError as exc:
            raise _unavailable(exc) from exc

    def _create(
        self,
        client: Any,
        messages: list[Message],
        timeout_s: float,
        model: str | None,
        response_format: dict[str, Any] | None,
        temperature: float | None = None,
    ) -> str:
        kwargs: dict[str, Any] = {}
        if response_format is not None:
            kwargs["response_format"] = response_format
        response = client.chat.completions.create(
            model=model or self.settings.model,
            messages=messages,
            temperature=self.settings.temperature if temperature is None else temperature,
            timeout=timeout_s,
            **kwargs,
        )
        if not response.choices:
            raise LLMUnavailable("LLM returned no choices")
        return response.choices[0].message.content or ""

    async def stream(self, messages: list[Message], model: str | None = None) -> AsyncIterator[str]:
        """Text deltas as they arrive. Closing the iterator (a client disconnect) closes the
        HTTP stream to the LLM."""
        from openai import OpenAIError

        client, shared = self._async_client()
        try:
            try:
                stream = await client.chat.completions.create(
                    model=model or self.settings.model,
                    messages=messages,
                    temperature=self.settings.temperature,
                    timeout=self.settings.answer_timeout_s,
                    stream=True,
                )
            except OpenAIError as exc:
                raise _unavailable(exc) from exc
            try:
                async for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        yield chunk.choices[0].delta.content
            except OpenAIError as exc:
                raise _unavailable(exc) from exc
            finally:
                await stream.close()
        finally:
            if not shared:
                await client.close()

    def list_models(self, timeout_s: float | None = None) -> list[str]:
        from openai import OpenAIError

        try:
            page = self._client().models.list(timeout=timeout_s or self.settings.timeout_s)
        except OpenAIError as exc:
            raise _unavailable(exc) from exc
        return [m.id for m in page.data]
