"""A small HTTP client of planrag's own API for the CLI (and any script): JSON in and out,
errors in the server's documented shape turned back into `PlanragError`s with the server's code
and message, SSE events of `/ai/v2/ask` as (event, data) pairs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from planrag.core.errors import PlanragError


class ServerUnreachable(PlanragError):
    code = "server_unreachable"
    status = 503


def _remote_error(response: httpx.Response) -> PlanragError:
    try:
        body = response.json()
        error: Any = body.get("error") if isinstance(body, dict) else None
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        code, message = "http_error", f"HTTP {response.status_code}: {response.text[:300]}"
    exc = PlanragError(message)
    exc.code, exc.status = code, response.status_code
    return exc


class ApiClient:
    """`planrag`'s HTTP API at `base_url`, with an API key when the server wants one."""

    def __init__(self, base_url: str, api_key: str = "", timeout_s: float = 60.0) -> None:
        headers = {"X-API-Key": api_key} if api_key else {}
        self.base_url = base_url
        self._http = httpx.Client(base_url=base_url, headers=headers, timeout=timeout_s)

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        # A kept-alive connection the server closed meanwhile fails on reuse: a GET (idempotent)
        # is sent again on a fresh connection.
        attempts = 3 if method == "GET" else 1
        for attempt in range(attempts):
            try:
                response = self._http.request(method, path, **kwargs)
                break
            except httpx.TransportError as exc:
                if attempt + 1 < attempts:
                    continue
                raise self._unreachable(exc) from exc
        if response.status_code >= 400:
            raise _remote_error(response)
        return response.json() if response.content else None

    def _unreachable(self, exc: Exception) -> ServerUnreachable:
        return ServerUnreachable(
            f"the planrag server at {self.base_url} does not answer ({exc}); is it running? "
            "(PLANRAG_SERVER_URL, or the data dir's server.json)",
            setting="PLANRAG_SERVER_URL",
        )

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params=params or None)

    def post(self, path: str, body: Any) -> Any:
        return self.request("POST", path, json=body)

    def delete(self, path: str) -> Any:
        return self.request("DELETE", path)

    def upload(self, kb: str, path: Path, form: dict[str, str]) -> dict[str, Any]:
        with path.open("rb") as handle:
            documents = self.request(
                "POST",
                f"/api/knowledge-bases/{kb}/documents",
                files=[("files", (path.name, handle))],
                data=form,
            )
        return documents[0]

    def events(self, path: str, body: Any) -> Iterator[tuple[str, dict[str, Any]]]:
        """The server-sent events of a POST, as they arrive."""
        try:
            with self._http.stream("POST", path, json=body, timeout=None) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _remote_error(response)
                yield from _parse_sse(response.iter_lines())
        except httpx.HTTPError as exc:
            raise ServerUnreachable(
                f"the planrag server at {self.base_url} stopped answering ({exc})"
            ) from exc


def _parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    event, data = "message", list[str]()
    for line in lines:
        if not line:
            if data:
                yield event, json.loads("\n".join(data))
            event, data = "message", []
        elif line.startswith(":"):
            continue  # a heartbeat comment
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
    if data:
        yield event, json.loads("\n".join(data))
