"""`planrag keys create|list|revoke` and `planrag users create|list|disable`: credentials for
the server when PLANRAG_AUTH__ENABLED. Keys are printed once and stored hashed.

With a server up for the data dir (or PLANRAG_SERVER_URL set) the commands go through its
/admin routes (PLANRAG_API_KEY: an admin key), so they work while it holds the Milvus Lite lock
and take effect on its next request; otherwise (or with `--direct`) they write the metadata DB.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from planrag.core.errors import PlanragError

if TYPE_CHECKING:  # imported when a command runs: `planrag --help` stays quick
    from planrag.cli.admin_client import AdminClient

console = Console(stderr=True)
KbScope = Annotated[
    list[str] | None,
    typer.Option("--kb", help="limit to this knowledge base (repeat); default: every one"),
]
Admin = Annotated[
    bool, typer.Option("--admin", help="may manage keys and users (the /admin routes)")
]
Manage = Annotated[
    list[str] | None,
    typer.Option(
        "--manage",
        help="may change this knowledge base's settings (PATCH, DELETE, reindex; repeat)",
    ),
]
Direct = Annotated[
    bool,
    typer.Option(
        "--direct",
        help="write the metadata DB even when a server is up (e.g. the first admin key)",
    ),
]
AsJson = Annotated[bool, typer.Option("--json")]
T = TypeVar("T")


def register(app: typer.Typer) -> None:
    keys = typer.Typer(help="API keys (X-API-Key)", no_args_is_help=True, rich_markup_mode=None)
    users = typer.Typer(
        help="Users of the OAuth2 password flow (POST /token)",
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    app.add_typer(keys, name="keys")
    app.add_typer(users, name="users")
    mode = {"direct": False}

    @keys.callback()
    def keys_options(direct: Direct = False) -> None:
        mode["direct"] = direct

    @users.callback()
    def users_options(direct: Direct = False) -> None:
        mode["direct"] = direct

    def run(action: Callable[[AdminClient], T]) -> T:
        from planrag.cli.admin_client import admin_client
        from planrag.core.settings import get_settings

        try:
            with admin_client(get_settings(), direct=mode["direct"]) as client:
                return action(client)
        except PlanragError as exc:
            console.print(f"[red]error:[/red] {exc.message}")
            raise typer.Exit(1) from exc

    @keys.command("create")
    def keys_create(
        name: str, kb: KbScope = None, admin: Admin = False, manage: Manage = None
    ) -> None:
        """Create a key; it is printed once (stdout) and only its hash is kept."""
        key, record = run(lambda c: c.create_key(name, kb or [], admin, manage or []))
        typer.echo(key)
        scope = ", ".join(record.knowledge_bases or []) or "every knowledge base"
        role = " (admin)" if record.admin else ""
        console.print(f"key {record.prefix}… ({record.id}) for {scope}{role}; store it now")

    @keys.command("list")
    def keys_list(as_json: AsJson = False) -> None:
        records = run(lambda c: c.list_keys())
        rows = [r.model_dump(mode="json") for r in records]
        if as_json:
            typer.echo(json.dumps(rows, ensure_ascii=False))
            return
        table = Table("id", "name", "prefix", "knowledge bases", "admin", "created", "revoked")
        for r in rows:
            kbs = ", ".join(r["knowledge_bases"] or []) or "all"
            table.add_row(
                r["id"],
                r["name"],
                r["prefix"],
                kbs,
                str(r["admin"]),
                r["created_at"],
                r["revoked_at"] or "",
            )
        Console().print(table)

    @keys.command("revoke")
    def keys_revoke(id_or_prefix: str) -> None:
        """Revoke a key by id or prefix; requests with it get 401 from the next one on."""
        record = run(lambda c: c.revoke_key(id_or_prefix))
        console.print(f"revoked {record.prefix}… ({record.id})")

    @users.command("create")
    def users_create(
        username: str,
        kb: KbScope = None,
        admin: Admin = False,
        manage: Manage = None,
        password_stdin: Annotated[
            bool, typer.Option("--password-stdin", help="read the password from stdin")
        ] = False,
    ) -> None:
        if password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
        user = run(lambda c: c.create_user(username, password, kb or [], admin, manage or []))
        console.print(f"user {user.username} created ({user.id})")

    @users.command("list")
    def users_list(as_json: AsJson = False) -> None:
        records = run(lambda c: c.list_users())
        rows = [r.model_dump(mode="json") for r in records]
        if as_json:
            typer.echo(json.dumps(rows, ensure_ascii=False))
            return
        table = Table("username", "knowledge bases", "admin", "disabled", "created")
        for r in rows:
            kbs = ", ".join(r["knowledge_bases"] or []) or "all"
            table.add_row(r["username"], kbs, str(r["admin"]), str(r["disabled"]), r["created_at"])
        Console().print(table)

    @users.command("disable")
    def users_disable(username: str) -> None:
        """Disable a user; their tokens are refused from the next request on."""
        run(lambda c: c.disable_user(username))
        console.print(f"user {username} disabled")
