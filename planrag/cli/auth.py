"""`planrag keys create|list|revoke` and `planrag users create|list|disable`: credentials for
the server when PLANRAG_AUTH__ENABLED. Keys are printed once and stored hashed."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from planrag.core.errors import PlanragError

if TYPE_CHECKING:
    from planrag.services.runtime import Runtime

console = Console(stderr=True)
KbScope = Annotated[
    list[str] | None,
    typer.Option("--kb", help="limit to this knowledge base (repeat); default: every one"),
]
AsJson = Annotated[bool, typer.Option("--json")]
T = TypeVar("T")


def register(app: typer.Typer, open_runtime: Callable[[], Runtime]) -> None:
    keys = typer.Typer(help="API keys (X-API-Key)", no_args_is_help=True)
    users = typer.Typer(
        help="Users of the OAuth2 password flow (POST /token)", no_args_is_help=True
    )
    app.add_typer(keys, name="keys")
    app.add_typer(users, name="users")

    def run(action: Callable[[Runtime], T]) -> T:
        runtime = open_runtime()
        try:
            return action(runtime)
        except PlanragError as exc:
            console.print(f"[red]error:[/red] {exc.message}")
            raise typer.Exit(1) from exc
        finally:
            runtime.close()

    @keys.command("create")
    def keys_create(name: str, kb: KbScope = None) -> None:
        """Create a key; it is printed once (stdout) and only its hash is kept."""
        key, record = run(lambda rt: rt.auth.create_key(name, kb or []))
        typer.echo(key)
        scope = ", ".join(record.knowledge_bases or []) or "every knowledge base"
        console.print(f"key {record.prefix}… ({record.id}) for {scope}; store it now")

    @keys.command("list")
    def keys_list(as_json: AsJson = False) -> None:
        records = run(lambda rt: rt.auth.list_keys())
        rows = [r.model_dump(mode="json") for r in records]
        if as_json:
            typer.echo(json.dumps(rows, ensure_ascii=False))
            return
        table = Table("id", "name", "prefix", "knowledge bases", "created", "revoked")
        for r in rows:
            kbs = ", ".join(r["knowledge_bases"] or []) or "all"
            table.add_row(
                r["id"], r["name"], r["prefix"], kbs, r["created_at"], r["revoked_at"] or ""
            )
        Console().print(table)

    @keys.command("revoke")
    def keys_revoke(id_or_prefix: str) -> None:
        """Revoke a key by id or prefix; requests with it get 401 at once."""
        record = run(lambda rt: rt.auth.revoke_key(id_or_prefix))
        console.print(f"revoked {record.prefix}… ({record.id})")

    @users.command("create")
    def users_create(
        username: str,
        kb: KbScope = None,
        password_stdin: Annotated[
            bool, typer.Option("--password-stdin", help="read the password from stdin")
        ] = False,
    ) -> None:
        if password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
        user = run(lambda rt: rt.auth.create_user(username, password, kb or []))
        console.print(f"user {user.username} created ({user.id})")

    @users.command("list")
    def users_list(as_json: AsJson = False) -> None:
        records = run(lambda rt: rt.auth.list_users())
        rows = [r.model_dump(mode="json") for r in records]
        if as_json:
            typer.echo(json.dumps(rows, ensure_ascii=False))
            return
        table = Table("username", "knowledge bases", "disabled", "created")
        for r in rows:
            kbs = ", ".join(r["knowledge_bases"] or []) or "all"
            table.add_row(r["username"], kbs, str(r["disabled"]), r["created_at"])
        Console().print(table)

    @users.command("disable")
    def users_disable(username: str) -> None:
        """Disable a user; their tokens stop working at once."""
        run(lambda rt: rt.auth.disable_user(username))
        console.print(f"user {username} disabled")
