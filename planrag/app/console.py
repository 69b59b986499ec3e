"""The web console (`web/`, React + Vite) served at `/`.

Built files are served as they are; any other GET outside the API answers `index.html` so the
console's client routes (`/kb/…`, `/ask`, `/traces/…`) work as deep links. A path whose first
segment belongs to the API (`/api`, `/ai`, `/rag`, `/docs`, … — read from the app's own routes)
is never answered by the console: it keeps its 404/405 exactly as before. Without a build, `/`
answers a short page saying how to build the console.

These are plain Starlette routes: the console's files need no credentials (the API they call does).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Scope

from planrag.core.settings import Settings

SOURCE_DIST = Path(__file__).resolve().parents[2] / "web" / "dist"
# First path segments that are the API's even before a route for them exists.
RESERVED = frozenset({"api", "ai", "docs", "redoc", "openapi.json", "token", "healthz"})
IMMUTABLE = "public, max-age=31536000, immutable"

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>planrag</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 42rem; margin: 3rem auto">
<h1>planrag is running</h1>
<p>The web console is not built. With Node.js &ge; 20.19 and npm installed, run
<code>make setup</code> (or <code>cd web &amp;&amp; npm ci &amp;&amp; npm run build</code>) and
reload this page.</p>
<p>The API works without it: <a href="/docs">/docs</a> (OpenAPI),
<a href="/healthz">/healthz</a>.</p>
<p>웹 콘솔이 빌드되지 않았습니다. Node.js 20.19 이상과 npm을 설치한 뒤 <code>make setup</code>을
실행하고 이 페이지를 새로 고치세요.</p>
</body></html>
"""


def console_dir(settings: Settings) -> Path:
    return Path(settings.server.console_dir) if settings.server.console_dir else SOURCE_DIST


def _api_segments(routes: list[BaseRoute]) -> set[str]:
    segments = set(RESERVED)
    for route in routes:
        path = getattr(route, "path", "")
        first = path.lstrip("/").split("/", 1)[0]
        if first and not first.startswith("{"):
            segments.add(first)
    return segments


class ConsoleRoute(Route):
    """A catch-all GET route that never matches a path of the API."""

    def __init__(self, app: FastAPI, path: str, endpoint: object) -> None:
        super().__init__(path, endpoint, methods=["GET", "HEAD"], include_in_schema=False)  # type: ignore[arg-type]
        self._app = app

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        first = scope.get("path", "/").lstrip("/").split("/", 1)[0]
        if first in _api_segments([r for r in self._app.router.routes if r is not self]):
            return Match.NONE, {}
        return super().matches(scope)


def _file_in(root: Path, relative: str) -> Path | None:
    """`relative` inside `root` (no escaping it with `..` or links), if it is a file."""
    try:
        candidate = (root / relative).resolve()
    except (OSError, ValueError):
        return None
    if not candidate.is_relative_to(root) or not candidate.is_file():
        return None
    return candidate


def install(app: FastAPI, settings: Settings) -> None:
    """Add the console's routes; call after every API router is included."""
    root = console_dir(settings).resolve()
    index = root / "index.html"

    async def serve(request: Request) -> Response:
        if not index.is_file():
            if request.url.path == "/":
                return HTMLResponse(NOT_BUILT)
            return Response(status_code=404)
        relative = request.path_params.get("path", "")
        found = _file_in(root, relative) if relative else None
        if found is not None:
            cache = IMMUTABLE if relative.startswith("assets/") else "no-cache"
            return FileResponse(found, headers={"Cache-Control": cache})
        if relative.startswith("assets/") or "." in relative.rsplit("/", 1)[-1]:
            return Response(status_code=404)  # a missing file is not a client route
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    app.router.routes.append(ConsoleRoute(app, "/{path:path}", serve))
