"""/admin: API keys and users, for admin keys and users only (or anyone with auth off).

What `planrag keys|users` does, over HTTP, so credentials can be managed while the server runs.
Nothing is cached: a revoked key or disabled user is refused from the next request on.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, status
from starlette.concurrency import run_in_threadpool

from planrag.app.auth import AdminDep
from planrag.app.dependencies import AuthServiceDep
from planrag.services.auth import KeyCreate, NewKey, UserCreate
from planrag.stores.principals import ApiKey, User

router = APIRouter(prefix="/admin", tags=["admin"])


@router.get("/keys", response_model=list[ApiKey], summary="Every API key (no secrets)")
async def list_keys(_admin: AdminDep, auth: AuthServiceDep) -> list[ApiKey]:
    return await run_in_threadpool(auth.list_keys)


@router.post(
    "/keys", status_code=status.HTTP_201_CREATED, response_model=NewKey, summary="Create a key"
)
async def create_key(body: KeyCreate, _admin: AdminDep, auth: AuthServiceDep) -> NewKey:
    """The key is in the answer once; only its hash is stored."""
    key, record = await run_in_threadpool(
        auth.create_key, body.name, body.knowledge_bases, body.admin, body.manage
    )
    return NewKey(key=key, record=record)


@router.post("/keys/{key}/revoke", response_model=ApiKey, summary="Revoke a key (by id or prefix)")
async def revoke_key(
    key: Annotated[str, Path(description="the key's id or its prefix (`prk_…`, 12 characters)")],
    _admin: AdminDep,
    auth: AuthServiceDep,
) -> ApiKey:
    """Requests with the key get 401 from the next one on."""
    return await run_in_threadpool(auth.revoke_key, key)


@router.get("/users", response_model=list[User], summary="Every user (no passwords)")
async def list_users(_admin: AdminDep, auth: AuthServiceDep) -> list[User]:
    return await run_in_threadpool(auth.list_users)


@router.post(
    "/users", status_code=status.HTTP_201_CREATED, response_model=User, summary="Create a user"
)
async def create_user(body: UserCreate, _admin: AdminDep, auth: AuthServiceDep) -> User:
    return await run_in_threadpool(
        auth.create_user,
        body.username,
        body.password,
        body.knowledge_bases,
        body.admin,
        body.manage,
    )


@router.post("/users/{username}/disable", response_model=User, summary="Disable a user")
async def disable_user(username: str, _admin: AdminDep, auth: AuthServiceDep) -> User:
    """Their tokens are refused from the next request on."""
    return await run_in_threadpool(auth.disable_user, username)
