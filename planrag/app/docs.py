"""`/docs` (Swagger UI) and `/redoc` served with assets from the `fastapi-offline` package
instead of a CDN: the API docs work on a machine without internet access."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
ASSETS_PATH = "/docs/assets"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"


def install(app: FastAPI) -> None:
    """Docs routes outside the API's dependencies (public, like FastAPI's own)."""
    app.mount(ASSETS_PATH, StaticFiles(directory=ASSETS), name="docs-assets")

    def url(request: Request, path: str) -> str:
        return request.scope.get("root_path", "").rstrip("/") + path

    async def swagger(request: Request) -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=url(request, app.openapi_url or "/openapi.json"),
            title=f"{app.title} — API",
            swagger_js_url=url(request, f"{ASSETS_PATH}/swagger-ui-bundle.js"),
            swagger_css_url=url(request, f"{ASSETS_PATH}/swagger-ui.css"),
            swagger_favicon_url=url(request, f"{ASSETS_PATH}/favicon.png"),
            oauth2_redirect_url=url(request, OAUTH2_REDIRECT),
        )

    async def oauth2_redirect(_request: Request) -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    async def redoc(request: Request) -> HTMLResponse:
        return get_redoc_html(
            openapi_url=url(request, app.openapi_url or "/openapi.json"),
            title=f"{app.title} — API",
            redoc_js_url=url(request, f"{ASSETS_PATH}/redoc.standalone.js"),
            redoc_favicon_url=url(request, f"{ASSETS_PATH}/favicon.png"),
            with_google_fonts=False,
        )

    app.add_route("/docs", swagger, include_in_schema=False)
    app.add_route(OAUTH2_REDIRECT, oauth2_redirect, include_in_schema=False)
    app.add_route("/redoc", redoc, include_in_schema=False)
