"""Authentication and the knowledge-base scope of a caller.

API keys (`X-API-Key`) are random secrets shown once and stored hashed; users log in with the
OAuth2 password flow and get a JWT bearer token. A key or user may be limited to some knowledge
bases (by name); `Principal.knowledge_bases` carries that limit to every route (None = all).

Changing a knowledge base's settings (PATCH, DELETE, reindex; its sharing model `per_user`
above all) is not a right of everyone who may read and write its documents: it needs an admin,
or a key or user whose `manage` list names the knowledge base (docs/security.md).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import jwt
from pydantic import BaseModel, Field

from planrag.core.errors import InvalidInput, PlanragError
from planrag.core.settings import DEFAULT_AUTH_SECRET, AuthSettings
from planrag.stores.principals import ApiKey, PrincipalStore, User

KEY_PREFIX = "prk_"
PBKDF2_ROUNDS = 240_000
ALGORITHM = "HS256"


class Unauthorized(PlanragError):
    code = "unauthorized"
    status = 401


class Principal(BaseModel):
    name: str  # for people: `key:NAME`, `user:NAME` (key names need not be unique)
    kind: str  # anonymous | api_key | user
    # Unique and stable: `key:<key id>`, `user:<user id>`, `anonymous`. What a principal owns
    # (conversations) is keyed by it, never by the name.
    id: str = "anonymous"
    knowledge_bases: frozenset[str] | None = None  # None: every knowledge base
    admin: bool = False  # may manage keys and users (and read detailed health)
    manage: frozenset[str] = frozenset()  # knowledge bases whose settings it may change

    def may_read(self, kb_name: str) -> bool:
        return self.knowledge_bases is None or kb_name in self.knowledge_bases

    def may_manage(self, kb_name: str) -> bool:
        """Whether it may change the knowledge base's settings: an admin, or named in `manage`
        (and inside the scope)."""
        return self.admin or (kb_name in self.manage and self.may_read(kb_name))


ANONYMOUS = Principal(name="anonymous", kind="anonymous")
# With authentication off every caller is this one: no limit, admin routes included (nothing
# is protected then; keys and users only matter once PLANRAG_AUTH__ENABLED).
OPEN_ACCESS = Principal(name="anonymous", kind="anonymous", admin=True)


MANAGE_HELP = (
    "knowledge bases whose settings it may change (PATCH, DELETE, reindex); inside "
    "`knowledge_bases` when that is set; an admin manages every one"
)


class KeyCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200, examples=["reporting"])
    knowledge_bases: list[str] = Field(
        default_factory=list, max_length=1000, description="limit to these; empty: every one"
    )
    admin: bool = Field(default=False, description="may manage keys and users")
    manage: list[str] = Field(default_factory=list, max_length=1000, description=MANAGE_HELP)


class NewKey(BaseModel):
    key: str = Field(description="the secret, shown this once; only its hash is kept")
    record: ApiKey


class UserCreate(BaseModel):
    username: str = Field(min_length=1, max_length=200, examples=["kim"])
    password: str = Field(min_length=8, max_length=1000)
    knowledge_bases: list[str] = Field(default_factory=list, max_length=1000)
    admin: bool = False
    manage: list[str] = Field(default_factory=list, max_length=1000, description=MANAGE_HELP)


class Token(BaseModel):
    access_token: str
    token_type: str = "bearer"
    expires_in: int


def _hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, PBKDF2_ROUNDS)
    return f"pbkdf2_sha256${PBKDF2_ROUNDS}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, rounds, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "pbkdf2_sha256":
        return False
    computed = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), int(rounds))
    return hmac.compare_digest(computed.hex(), digest)


def check_secret(settings: AuthSettings) -> None:
    """Refuse to run with auth on and the default (or a short) signing secret."""
    if settings.enabled and (
        settings.secret_key == DEFAULT_AUTH_SECRET or len(settings.secret_key) < 16
    ):
        raise InvalidInput(
            "authentication is on but PLANRAG_AUTH__SECRET_KEY is the default or shorter than "
            "16 characters: set a long random secret (e.g. `openssl rand -hex 32`)",
            setting="PLANRAG_AUTH__SECRET_KEY",
        )


class AuthService:
    def __init__(self, store: PrincipalStore, settings: AuthSettings) -> None:
        self._store = store
        self._settings = settings

    @property
    def enabled(self) -> bool:
        return self._settings.enabled

    # ---------------------------------------------------------------- keys

    def create_key(
        self,
        name: str,
        knowledge_bases: Sequence[str] = (),
        admin: bool = False,
        manage: Sequence[str] = (),
    ) -> tuple[str, ApiKey]:
        """The new key (shown once, never stored) and its record."""
        _check_admin_scope(admin, knowledge_bases)
        _check_manage(admin, knowledge_bases, manage)
        if not name.strip():
            raise InvalidInput("a key needs a name")
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        record = self._store.add_key(
            name, key[:12], _hash_key(key), list(knowledge_bases), admin=admin, manage=manage
        )
        return key, record

    def list_keys(self) -> list[ApiKey]:
        return self._store.list_keys()

    def revoke_key(self, id_or_prefix: str) -> ApiKey:
        return self._store.revoke_key(id_or_prefix)

    def principal_for_key(self, key: str) -> Principal:
        record = self._store.key_by_hash(_hash_key(key))
        if record is None or record.revoked_at is not None:
            raise Unauthorized("invalid or revoked API key")
        return Principal(
            name=f"key:{record.name}",
            id=f"key:{record.id}",
            kind="api_key",
            knowledge_bases=_scope(record.knowledge_bases),
            admin=record.admin,
            manage=frozenset(record.manage),
        )

    # ---------------------------------------------------------------- users and tokens

    def create_user(
        self,
        username: str,
        password: str,
        knowledge_bases: Sequence[str] = (),
        admin: bool = False,
        manage: Sequence[str] = (),
    ) -> User:
        _check_admin_scope(admin, knowledge_bases)
        _check_manage(admin, knowledge_bases, manage)
        if not username.strip():
            raise InvalidInput("a user needs a name")
        if len(password) < 8:
            raise InvalidInput("password must have at least 8 characters")
        return self._store.add_user(
            username, hash_password(password), list(knowledge_bases), admin=admin, manage=manage
        )

    def list_users(self) -> list[User]:
        return self._store.list_users()

    def disable_user(self, username: str) -> User:
        return self._store.disable_user(username)

    def login(self, username: str, password: str) -> Token:
        found = self._store.user_with_hash(username)
        if found is None or found[0].disabled or not check_password(password, found[1]):
            raise Unauthorized("wrong username or password")
        user = found[0]
        ttl = timedelta(minutes=self._settings.token_ttl_minutes)
        claims = {
            "sub": user.username,
            "kbs": user.knowledge_bases,
            "exp": datetime.now(UTC) + ttl,
        }
        token = jwt.encode(claims, self._settings.secret_key, algorithm=ALGORITHM)
        return Token(access_token=token, expires_in=int(ttl.total_seconds()))

    def principal_for_token(self, token: str) -> Principal:
        try:
            claims = jwt.decode(token, self._settings.secret_key, algorithms=[ALGORITHM])
        except jwt.PyJWTError as exc:
            raise Unauthorized(f"invalid bearer token ({type(exc).__name__})") from exc
        found = self._store.user_with_hash(str(claims.get("sub")))
        if found is None or found[0].disabled:
            raise Unauthorized("the token's user no longer exists or is disabled")
        # The scope is the user's current one, not the token's copy (changes apply at once).
        return Principal(
            name=f"user:{found[0].username}",
            id=f"user:{found[0].id}",
            kind="user",
            knowledge_bases=_scope(found[0].knowledge_bases),
            admin=found[0].admin,
            manage=frozenset(found[0].manage),
        )


def _check_admin_scope(admin: bool, knowledge_bases: Sequence[str]) -> None:
    """An admin can mint unlimited keys, so an admin limited to some KBs would be a lie."""
    if admin and knowledge_bases:
        raise InvalidInput("an admin key or user cannot be limited to knowledge bases")


def _check_manage(admin: bool, knowledge_bases: Sequence[str], manage: Sequence[str]) -> None:
    """`manage` names knowledge bases inside the scope; an admin manages every one already."""
    if admin and manage:
        raise InvalidInput("an admin manages every knowledge base: no `manage` list needed")
    outside = sorted(set(manage) - set(knowledge_bases)) if knowledge_bases else []
    if outside:
        raise InvalidInput(
            f"`manage` names knowledge bases outside the scope: {', '.join(outside)}",
            outside=outside,
        )


def _scope(names: list[str] | None) -> frozenset[str] | None:
    return frozenset(names) if names else None
