"""Where `planrag keys|users` manage credentials: the running server's /admin routes, or the
metadata DB directly when no server runs.

A server announces itself in `<data_dir>/server.json` (`announce`, used by `planrag serve`);
`PLANRAG_SERVER_URL` names one explicitly. Over HTTP the CLI authenticates with
`PLANRAG_API_KEY` (an admin key; none is needed when the server runs with auth off). The direct
path opens only the metadata DB — never Milvus Lite, whose lock belongs to the server — so it
also works beside a running server (`--direct`, e.g. to create the first admin key).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Protocol

import httpx

from planrag.cli.client import ServerUnreachable
from planrag.cli.discovery import SERVER_FILE, announce, read_record

__all__ = ["SERVER_FILE", "AdminClient", "admin_client", "announce", "announced_url"]
from planrag.core.errors import PlanragError
from planrag.core.settings import Settings
from planrag.services.auth import AuthService
from planrag.stores import migrations
from planrag.stores.metadata import make_engine
from planrag.stores.postgres import PostgresProvider, metadata_url
from planrag.stores.principals import ApiKey, PrincipalStore, User

TIMEOUT_S = 30.0
PROBE_TIMEOUT_S = 5.0


class AdminClient(Protocol):
    where: str

    def list_keys(self) -> list[ApiKey]: ...
    def create_key(
        self, name: str, knowledge_bases: Sequence[str], admin: bool, manage: Sequence[str] = ()
    ) -> tuple[str, ApiKey]: ...
    def revoke_key(self, id_or_prefix: str) -> ApiKey: ...
    def list_users(self) -> list[User]: ...
    def create_user(
        self,
        username: str,
        password: str,
        knowledge_bases: Sequence[str],
        admin: bool,
        manage: Sequence[str] = (),
    ) -> User: ...
    def disable_user(self, username: str) -> User: ...


# ── the server's announcement (planrag.cli.discovery, shared with the other commands) ──────
def announced_url(data_dir: Path) -> str | None:
    """The URL of the live server announced for this data dir, if any (its process exists and
    it answers; a file left by a killed server is ignored)."""
    record = read_record(data_dir)
    if record is None:
        return None
    try:
        httpx.get(f"{record.url}/healthz", timeout=PROBE_TIMEOUT_S)
    except httpx.HTTPError:
        return None
    return record.url


# ── over HTTP ───────────────────────────────────────────────────────────────────────────────
class HttpAdmin:
    def __init__(self, url: str, api_key: str) -> None:
        self.where = f"the server at {url}"
        headers = {"X-API-Key": api_key} if api_key else {}
        self._http = httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT_S)

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise ServerUnreachable(f"{self.where} does not answer ({exc})") from exc
        if response.is_success:
            return response.json()
        error = PlanragError(_message(response))
        error.status = response.status_code
        if response.status_code in (401, 403):
            error.message += (
                " — set PLANRAG_API_KEY to an admin key (`planrag keys --direct create NAME "
                "--admin` makes one while the server runs)"
            )
        raise error

    def list_keys(self) -> list[ApiKey]:
        return [ApiKey.model_validate(k) for k in self._call("GET", "/admin/keys")]

    def create_key(
        self, name: str, knowledge_bases: Sequence[str], admin: bool, manage: Sequence[str] = ()
    ) -> tuple[str, ApiKey]:
        body = {
            "name": name,
            "knowledge_bases": list(knowledge_bases),
            "admin": admin,
            "manage": list(manage),
        }
        found = self._call("POST", "/admin/keys", json=body)
        return found["key"], ApiKey.model_validate(found["record"])

    def revoke_key(self, id_or_prefix: str) -> ApiKey:
        path = f"/admin/keys/{httpx.URL(path=id_or_prefix).raw_path.decode()}/revoke"
        return ApiKey.model_validate(self._call("POST", path))

    def list_users(self) -> list[User]:
        return [User.model_validate(u) for u in self._call("GET", "/admin/users")]

    def create_user(
        self,
        username: str,
        password: str,
        knowledge_bases: Sequence[str],
        admin: bool,
        manage: Sequence[str] = (),
    ) -> User:
        body = {
            "username": username,
            "password": password,
            "knowledge_bases": list(knowledge_bases),
            "admin": admin,
            "manage": list(manage),
        }
        return User.model_validate(self._call("POST", "/admin/users", json=body))

    def disable_user(self, username: str) -> User:
        path = f"/admin/users/{httpx.URL(path=username).raw_path.decode()}/disable"
        return User.model_validate(self._call("POST", path))

    def close(self) -> None:
        self._http.close()


def _message(response: httpx.Response) -> str:
    with suppress(ValueError):
        body = response.json()
        if isinstance(body, dict):
            error = body.get("error")
            if isinstance(error, dict) and error.get("message"):
                return str(error["message"])
            if body.get("detail"):
                return str(body["detail"])
    return f"HTTP {response.status_code}"


# ── directly on the metadata DB ─────────────────────────────────────────────────────────────
class DirectAdmin(AuthService):
    """AuthService over the metadata DB alone (no vector store, no model)."""

    def __init__(self, settings: Settings) -> None:
        self.where = "the metadata DB"
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._postgres = PostgresProvider(settings.pg, settings.pg_data_dir)
        self._engine = make_engine(metadata_url(settings, self._postgres))
        migrations.upgrade(self._engine)
        super().__init__(PrincipalStore(self._engine), settings.auth)

    def close(self) -> None:
        self._engine.dispose()
        self._postgres.close()


@contextmanager
def admin_client(settings: Settings, direct: bool = False) -> Iterator[AdminClient]:
    """The server's /admin routes when one is up for this data dir (or PLANRAG_SERVER_URL is
    set) unless `direct`; the metadata DB otherwise."""
    url = None if direct else (settings.server_url or announced_url(settings.data_dir))
    client: HttpAdmin | DirectAdmin = (
        HttpAdmin(url, settings.api_key) if url else DirectAdmin(settings)
    )
    try:
        yield client
    finally:
        client.close()
