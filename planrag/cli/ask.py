"""`planrag ask` (streams the answer) and `planrag plan` (the plan envelope, nothing executed),
against the data dir's stores or the server running for it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from planrag.cli.backend import Backend

console = Console(stderr=True)
KbOption = Annotated[
    list[str] | None, typer.Option("--kb", help="knowledge base name or id (repeat); default: all")
]
NowOption = Annotated[
    str | None, typer.Option(help="resolve time words against this ISO moment (default: now)")
]
OpenBackend = Callable[[], AbstractContextManager["Backend"]]


def _now(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value).isoformat()
    except ValueError as exc:
        raise typer.BadParameter(
            f"--now must be ISO 8601, e.g. 2025-11-21T10:00:00+09:00: {exc}"
        ) from exc


def register(app: typer.Typer, backend: OpenBackend) -> None:
    @app.command()
    def plan(
        question: str,
        kb: KbOption = None,
        now: NowOption = None,
        as_json: Annotated[bool, typer.Option("--json", help="print the envelope as JSON")] = False,
    ) -> None:
        """Show the search plan a question would run (plan inspection; nothing is executed)."""
        body = {"question": question, "now": _now(now), "knowledge_bases": kb or None}
        with backend() as server:
            envelope = server.plan(body)
        if as_json:
            typer.echo(json.dumps(envelope, ensure_ascii=False))
            return
        _print_plan(envelope)

    @app.command()
    def ask(
        question: str,
        kb: KbOption = None,
        now: NowOption = None,
        doc: Annotated[str | None, typer.Option(help="document mode: this document id")] = None,
        model: Annotated[str | None, typer.Option(help="LLM model for the answer")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="every event as a JSON line")] = False,
    ) -> None:
        """Ask a question; the answer streams to stdout, the plan and sources to stderr."""
        body = {
            "question": question,
            "now": _now(now),
            "knowledge_bases": kb or None,
            "doc_id": doc,
            "llm": {"model": model} if model else None,
        }
        with backend() as server:
            failed = _print_events(server.ask(body), as_json)
        if failed:
            raise typer.Exit(1)


def _print_plan(envelope: dict[str, Any]) -> None:
    p = envelope["plan"]
    console.print(f"[bold]source[/bold] {envelope['source']}  {envelope['fallback_reason'] or ''}")
    console.print(
        f"mode {p['mode']}  strategy {p['strategy']}  top_k {p['top_k']}  "
        f"kbs {p['knowledge_bases']}"
    )
    time = p["filters"].get("time")
    if time:
        console.print(f"time {time['from']} .. {time['to']}  ({time['expression']})")
    listing = "  listing (documents by date)" if p.get("listing") else ""
    console.print(f"sort {p['sort']}  limit {p['limit']}{listing}  — {p['rationale']}")
    if envelope.get("relaxed"):
        console.print(f"[yellow]relaxed:[/yellow] {envelope['relaxed']['reason']}")


def _print_events(events: Iterator[tuple[str, dict[str, Any]]], as_json: bool) -> bool:
    """Prints the events; True when the ask ended with an error event. The answer on stdout
    always ends with a newline, whether the stream ended, failed or stopped early."""
    if as_json:
        for name, data in events:
            typer.echo(json.dumps({"event": name, "data": data}, ensure_ascii=False, default=str))
            if name == "error":
                return True
        return False
    open_line = False  # answer text written without its final newline
    try:
        for name, data in events:
            if name == "answer":
                typer.echo(data["delta"], nl=False)
                open_line = open_line or bool(data["delta"])
                continue
            if open_line:
                typer.echo("")
                open_line = False
            if _print_event(name, data):
                return True
    finally:
        if open_line:
            typer.echo("")
    return False


def _print_event(name: str, data: dict[str, Any]) -> bool:
    """One event other than an answer delta, on stderr; True for an error."""
    if name == "search_plan":
        plan = data["plan"]
        console.print(
            f"[dim]plan ({data['source']}): {plan['strategy']} on {plan['knowledge_bases']}"
            f" — {plan['rationale']}[/dim]"
        )
    elif name == "end":
        for c in data["citations"]:
            console.print(
                f"[dim][{c['n']}] {c['title'] or c['doc_id']} ({c['knowledge_base']})[/dim]"
            )
        console.print(f"[dim]answer: {data['answer_source']}  trace: {data['trace_id']}[/dim]")
    elif name == "error":
        console.print(f"[red]error:[/red] {data['code']}: {data['message']}")
        return True
    return False
