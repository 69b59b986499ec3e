"""Who is calling: an app-wide dependency that authenticates every route but the public paths
(API key in `X-API-Key`, or a bearer token from `POST /token`), keeps the principal on the
request, then resolves a `{kb_id}` path segment (an id or a name) against the principal's
knowledge-base scope: a knowledge base outside it answers exactly as one that does not exist
(404 naming the segment as given), so a scoped caller learns neither ids nor names.

Changing a knowledge base's settings (`ManagerDep`: PATCH, DELETE, reindex) needs an admin or
a principal whose `manage` list names it (403 otherwise).

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
from planrag.core.types import KnowledgeBase
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
    value = request.path_params.get("kb_id")
    if value:
        kb = await run_in_threadpool(_kb_by_id_or_name, runtime, value)
        if kb is None or not principal.may_read(kb.name):
            # One answer for a missing and an out-of-scope knowledge base, naming what was
            # given: never the id a name resolves to.
            raise KnowledgeBaseNotFound(
                f"knowledge base '{value}' not found", kb_id=value, kb=value
            )
        request.path_params["kb_id"] = kb.id  # the routes read the id
        request.state.kb = kb
    return principal


def _kb_by_id_or_name(runtime: Runtime, value: str) -> KnowledgeBase | None:
    for lookup in (runtime.metadata.get_kb, runtime.metadata.get_kb_by_name):
        try:
            return lookup(value)
        except KnowledgeBaseNotFound:
            continue
    return None


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


async def require_manager(request: Request, principal: PrincipalDep) -> Principal:
    """Only an admin, or a principal whose `manage` list names the path's knowledge base, may
    change its settings (anyone with authentication off)."""
    kb: KnowledgeBase | None = getattr(request.state, "kb", None)
    if kb is not None and not principal.may_manage(kb.name):
        raise Forbidden(
            f"changing knowledge base '{kb.name}' needs an admin, or a key or user that may "
            "manage it (planrag keys create --manage NAME)",
            name=kb.name,
        )
    return principal


ManagerDep = Annotated[Principal, Depends(require_manager)]

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
