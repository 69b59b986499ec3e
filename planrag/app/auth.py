"""Who is calling: an app-wide dependency that authenticates every route but the public paths
(API key in `X-API-Key`, or a bearer token from `POST /token`), keeps the principal on the
request, and checks `{kb_id}` paths against the principal's knowledge-base scope (an id
outside it reads as unknown: 404, never 403).

With authentication off (the default) every caller is the anonymous principal with no limit
(admin routes included). On public paths credentials are optional; when given and valid they
count (an admin sees detailed health).
Secrets are never logged: only key prefixes and user names appear in messages.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.security import APIKeyHeader, OAuth2PasswordBearer, OAuth2PasswordRequestForm
from starlette.concurrency import run_in_threadpool

from planrag.app.dependencies import AuthServiceDep, SettingsDep
from planrag.core.errors import Forbidden, KnowledgeBaseNotFound
from planrag.runtime import Runtime
from planrag.services.auth import ANONYMOUS, OPEN_ACCESS, Principal, Token, Unauthorized

TOKEN_PATH = "/token"
api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="an API key")
bearer = OAuth2PasswordBearer(tokenUrl=TOKEN_PATH, auto_error=False)


async def authenticate(
    request: Request,
    api_key: Annotated[str | None, Depends(api_key_header)],
    token: Annotated[str | None, Depends(bearer)],
) -> Principal:
    runtime: Runtime = request.app.state.runtime
    settings = runtime.settings.auth
    path = request.url.path
    if not settings.enabled:
        principal = OPEN_ACCESS
    elif path == TOKEN_PATH or path in settings.public_paths:
        # Public: credentials are optional (they only unlock details, e.g. of health).
        try:
            principal = await _resolve(runtime, api_key, token) or ANONYMOUS
        except Unauthorized:
            principal = ANONYMOUS
    else:
        found = await _resolve(runtime, api_key, token)
        if found is None:
            raise Unauthorized("credentials required: an X-API-Key header or a bearer token")
        principal = found
    request.state.principal = principal
    kb_id = request.path_params.get("kb_id")
    if kb_id and principal.knowledge_bases is not None:
        kb = await run_in_threadpool(runtime.metadata.get_kb, kb_id)
        if not principal.may_read(kb.name):
            # The same answer as an unknown id: a scoped caller cannot learn which ids exist.
            raise KnowledgeBaseNotFound(f"knowledge base '{kb_id}' not found", kb_id=kb_id)
    return principal


async def _resolve(runtime: Runtime, api_key: str | None, token: str | None) -> Principal | None:
    """The principal of the credentials given (read from the DB on every request, so a
    revocation counts from the next one); None without credentials."""
    if api_key:
        return await run_in_threadpool(runtime.auth.principal_for_key, api_key)
    if token:
        return await run_in_threadpool(runtime.auth.principal_for_token, token)
    return None


async def current_principal(request: Request) -> Principal:
    return getattr(request.state, "principal", ANONYMOUS)


PrincipalDep = Annotated[Principal, Depends(current_principal)]


async def require_admin(principal: PrincipalDep) -> Principal:
    """Only an admin key or user (or anyone with authentication off) gets past."""
    if not principal.admin:
        raise Forbidden("this route needs an admin key or user (planrag keys create --admin)")
    return principal


AdminDep = Annotated[Principal, Depends(require_admin)]

router = APIRouter(tags=["auth"])


@router.post(TOKEN_PATH, response_model=Token, summary="OAuth2 password flow: a bearer token")
async def token(
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
    settings: SettingsDep,
    auth: AuthServiceDep,
) -> Token:
    """Exchange a user's name and password (form fields `username`, `password`) for a JWT bearer
    token (`Authorization: Bearer …`). Users are managed with `planrag users`."""
    if not settings.auth.enabled:
        raise Unauthorized("authentication is off (PLANRAG_AUTH__ENABLED): no token needed")
    return await run_in_threadpool(auth.login, form.username, form.password)
