"""API keys and users of the metadata DB. Keys are stored as SHA-256 hashes (they are long random
secrets); passwords as salted PBKDF2-SHA256. Plain secrets never reach this module's storage."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel
from sqlalchemy import Engine, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from planrag.core.errors import Conflict, NotFound
from planrag.stores.tables import ApiKeyRow, UserRow, aware


class ApiKey(BaseModel):
    id: str
    name: str
    prefix: str
    knowledge_bases: list[str] | None
    admin: bool = False
    manage: list[str] = []  # knowledge bases whose settings it may change
    created_at: datetime
    revoked_at: datetime | None = None


class User(BaseModel):
    id: str
    username: str
    knowledge_bases: list[str] | None
    admin: bool = False
    manage: list[str] = []
    disabled: bool
    created_at: datetime


def _key(row: ApiKeyRow) -> ApiKey:
    return ApiKey(
        id=row.id,
        name=row.name,
        prefix=row.prefix,
        knowledge_bases=row.knowledge_bases,
        admin=row.admin,
        manage=row.manage or [],
        created_at=aware(row.created_at),
        revoked_at=aware(row.revoked_at) if row.revoked_at else None,
    )


def _user(row: UserRow) -> User:
    return User(
        id=row.id,
        username=row.username,
        knowledge_bases=row.knowledge_bases,
        admin=row.admin,
        manage=row.manage or [],
        disabled=row.disabled,
        created_at=aware(row.created_at),
    )


class PrincipalStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    # ---------------------------------------------------------------- API keys

    def add_key(
        self,
        name: str,
        prefix: str,
        key_hash: str,
        knowledge_bases: Sequence[str] | None,
        admin: bool = False,
        manage: Sequence[str] = (),
    ) -> ApiKey:
        row = ApiKeyRow(
            id=str(uuid.uuid4()),
            name=name,
            prefix=prefix,
            key_hash=key_hash,
            knowledge_bases=list(knowledge_bases) if knowledge_bases else None,
            admin=admin,
            manage=list(manage) or None,
            created_at=datetime.now(UTC),
        )
        with Session(self._engine) as s, s.begin():
            s.add(row)
            s.flush()
            return _key(row)

    def key_by_hash(self, key_hash: str) -> ApiKey | None:
        with Session(self._engine) as s:
            row = s.scalar(select(ApiKeyRow).where(ApiKeyRow.key_hash == key_hash))
            return _key(row) if row else None

    def list_keys(self) -> list[ApiKey]:
        with Session(self._engine) as s:
            rows = s.scalars(select(ApiKeyRow).order_by(ApiKeyRow.created_at)).all()
            return [_key(r) for r in rows]

    def revoke_key(self, id_or_prefix: str) -> ApiKey:
        with Session(self._engine) as s, s.begin():
            rows = s.scalars(
                select(ApiKeyRow).where(
                    or_(ApiKeyRow.id == id_or_prefix, ApiKeyRow.prefix == id_or_prefix)
                )
            ).all()
            if len(rows) != 1:
                raise NotFound(f"no single API key with id or prefix '{id_or_prefix}'")
            if rows[0].revoked_at is None:
                rows[0].revoked_at = datetime.now(UTC)
            return _key(rows[0])

    # ---------------------------------------------------------------- users

    def add_user(
        self,
        username: str,
        password_hash: str,
        knowledge_bases: Sequence[str] | None,
        admin: bool = False,
        manage: Sequence[str] = (),
    ) -> User:
        row = UserRow(
            id=str(uuid.uuid4()),
            username=username,
            password_hash=password_hash,
            knowledge_bases=list(knowledge_bases) if knowledge_bases else None,
            admin=admin,
            manage=list(manage) or None,
            disabled=False,
            created_at=datetime.now(UTC),
        )
        try:
            with Session(self._engine) as s, s.begin():
                s.add(row)
                s.flush()
                return _user(row)
        except IntegrityError as exc:
            raise Conflict(f"user '{username}' already exists") from exc

    def user_with_hash(self, username: str) -> tuple[User, str] | None:
        with Session(self._engine) as s:
            row = s.scalar(select(UserRow).where(UserRow.username == username))
            return (_user(row), row.password_hash) if row else None

    def list_users(self) -> list[User]:
        with Session(self._engine) as s:
            return [_user(r) for r in s.scalars(select(UserRow).order_by(UserRow.created_at))]

    def disable_user(self, username: str) -> User:
        with Session(self._engine) as s, s.begin():
            row = s.scalar(select(UserRow).where(UserRow.username == username))
            if row is None:
                raise NotFound(f"user '{username}' not found")
            row.disabled = True
            return _user(row)
