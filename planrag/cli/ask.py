"""`planrag ask` (streams the answer) and `planrag plan` (the plan envelope, nothing executed)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime
from typing import Annotated

import typer
from rich.console import Console

from planrag.core.errors import PlanragError
from planrag.runtime import Runtime
from planrag.services.ask import AskRequest, PlanRequest
from planrag.services.ask_events import (
    AnswerEvent,
    EndEvent,
    ErrorEvent,
    SearchPlanEvent,
    event_data,
)

console = Console(stderr=True)
KbOption = Annotated[
    list[str] | None, typer.Option("--kb", help="knowledge base name (repeat); default: all")
]
NowOption = Annotated[
    str | None, typer.Option(help="resolve time words against this ISO moment (default: now)")
]


def _now(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError as exc:
        raise typer.BadParameter(
            f"--now must be ISO 8601, e.g. 2025-11-21T10:00:00+09:00: {exc}"
        ) from exc


def register(app: typer.Typer, open_runtime: Callable[[], Runtime]) -> None:
    @app.command()
    def plan(
        question: str,
        kb: KbOption = None,
        now: NowOption = None,
        as_json: Annotated[bool, typer.Option("--json", help="print the envelope as JSON")] = False,
    ) -> None:
        """Show the search plan a question would run (plan inspection; nothing is executed)."""
        runtime = open_runtime()
        try:
            request = PlanRequest(question=question, now=_now(now), knowledge_bases=kb or None)
            envelope = runtime.ask.plan(request, runtime.metadata.list_kbs())
        except PlanragError as exc:
            console.print(f"[red]error:[/red] {exc.message}")
            raise typer.Exit(1) from exc
        finally:
            runtime.close()
        if as_json:
            typer.echo(envelope.model_dump_json(by_alias=True))
            return
        p = envelope.plan
        console.print(f"[bold]source[/bold] {envelope.source}  {envelope.fallback_reason or ''}")
        console.print(
            f"mode {p.mode}  strategy {p.strategy}  top_k {p.top_k}  kbs {p.knowledge_bases}"
        )
        time = p.filters.time
        if time:
            console.print(f"time {time.from_} .. {time.to}  ({time.expression})")
        listing = "  listing (documents by date)" if p.listing else ""
        console.print(f"sort {p.sort}  limit {p.limit}{listing}  — {p.rationale}")
        if envelope.relaxed:
            console.print(f"[yellow]relaxed:[/yellow] {envelope.relaxed.reason}")

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
        runtime = open_runtime()
        try:
            readable = runtime.metadata.list_kbs()
            request = AskRequest.model_validate(
                {
                    "question": question,
                    "now": _now(now),
                    "knowledge_bases": kb or None,
                    "doc_id": doc,
                    "llm": {"model": model} if model else None,
                }
            )
            scope = runtime.ask.scope(request, readable, doc)
            failed = asyncio.run(_stream(runtime, request, scope, readable, as_json))
        except PlanragError as exc:
            console.print(f"[red]error:[/red] {exc.message}")
            raise typer.Exit(1) from exc
        finally:
            runtime.close()
        if failed:
            raise typer.Exit(1)


async def _stream(runtime, request, scope, readable, as_json: bool) -> bool:  # type: ignore[no-untyped-def]
    """Prints the events; True when the ask ended with an error event."""
    async for event in runtime.ask.ask(request, scope, readable):
        if as_json:
            line = {"event": event.event, "data": event_data(event)}
            typer.echo(json.dumps(line, ensure_ascii=False))
            continue
        if isinstance(event, SearchPlanEvent):
            plan = event.plan
            console.print(
                f"[dim]plan ({event.source}): {plan.strategy} on {plan.knowledge_bases}"
                f" — {plan.rationale}[/dim]"
            )
        elif isinstance(event, AnswerEvent):
            typer.echo(event.delta, nl=False)
        elif isinstance(event, EndEvent):
            typer.echo("")
            for c in event.citations:
                console.print(f"[dim][{c.n}] {c.title or c.doc_id} ({c.knowledge_base})[/dim]")
            console.print(f"[dim]answer: {event.answer_source}  trace: {event.trace_id}[/dim]")
        elif isinstance(event, ErrorEvent):
            console.print(f"[red]error:[/red] {event.code}: {event.message}")
            return True
    return False
