"""The `planrag` command: serve, kb, ingest, ask, plan, eval.

Start-up is kept light: only typer and rich are imported here; each command imports what it
needs. Commands that touch the stores go through a running server's HTTP API when there is one
for the data dir (or PLANRAG_SERVER_URL), else open the stores themselves (`cli/backend.py`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from planrag.cli import ask as ask_commands
from planrag.cli import auth as auth_commands
from planrag.cli import worker as worker_commands
from planrag.cli.files import collect_files, file_metadata
from planrag.core.errors import PlanragError

if TYPE_CHECKING:
    from planrag.cli.backend import Backend
    from planrag.core.settings import Settings
    from planrag.runtime import Runtime

# Plain (click-style) help: typer's rich help writes a type placeholder after every flag
# ("--json <bool>"), which reads as if the flag took a value.
HELP_STYLE: dict[str, Any] = {"no_args_is_help": True, "rich_markup_mode": None}
app = typer.Typer(help="planrag: LLM-planned RAG server", **HELP_STYLE)
kb_app = typer.Typer(help="Manage knowledge bases", **HELP_STYLE)
app.add_typer(kb_app, name="kb")
app.command("worker")(worker_commands.worker)
console = Console(stderr=True, soft_wrap=True)  # messages stay one line


def settings() -> Settings:
    from planrag.core.settings import get_settings

    return get_settings()


def _runtime(may_create: bool = True) -> Runtime:
    """This process's own stores (commands that go through no HTTP route: kb reindex)."""
    from planrag.cli.backend import ensure_data_dir
    from planrag.runtime import Runtime

    config = settings()
    notice = ensure_data_dir(config.data_dir, may_create)
    if notice:
        console.print(notice)
    return Runtime.open(config)


def _find_kb(runtime: Runtime, name_or_id: str) -> Any:
    from planrag.core.errors import KnowledgeBaseNotFound

    try:
        return runtime.knowledge_bases.get_by_name(name_or_id)
    except KnowledgeBaseNotFound:
        return runtime.knowledge_bases.get(name_or_id)


@contextmanager
def backend(may_create: bool = False) -> Iterator[Backend]:
    """The stores of the data dir, or the server running for it. Domain errors end the
    command with one line."""
    from planrag.cli.backend import open_backend

    opened, notice = open_backend(settings(), may_create)
    if notice:
        console.print(notice)
    try:
        yield opened
    finally:
        opened.close()


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="default PLANRAG_SERVER__HOST")] = None,
    port: Annotated[int | None, typer.Option(help="default PLANRAG_SERVER__PORT")] = None,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="API processes (> 1 needs shared stores)")
    ] = 1,
    no_worker: Annotated[
        bool, typer.Option("--no-worker", help="queue mode database: no indexing worker here")
    ] = False,
) -> None:
    """Serve the HTTP API. One process on the embedded stores (Milvus Lite locks its data dir);
    `--workers N` over shared stores (see README, "Running in production")."""
    import os

    from planrag.cli.discovery import announce, read_record
    from planrag.core.settings import get_settings

    if no_worker:  # read by every API process's settings (uvicorn workers re-import the app)
        os.environ["PLANRAG_INGEST__SERVE_WORKER"] = "false"
        get_settings.cache_clear()
    config = settings()
    problems = config.multi_process_problems() if workers > 1 else []
    if problems:
        raise PlanragError(  # a configuration error: exit code 2, like the others
            f"--workers {workers} needs stores every process can share; set " + "; ".join(problems),
            setting=problems[0].split(" ")[0],
        )
    running = read_record(config.data_dir)
    if running is not None:
        raise PlanragError(
            f"a planrag server (pid {running.pid}) already serves {config.data_dir.resolve()} "
            f"at {running.url}: stop it, or set PLANRAG_DATA_DIR to another folder"
        )
    # Imported once the configuration is known to be usable (a refused one answers in a second):
    # the app's modules (~7 CPU s) only for one process; with --workers N the supervisor only
    # spawns, and each worker process imports the app by name.
    import uvicorn

    from planrag.app.http_protocol import LenientH11Protocol
    from planrag.core.telemetry import configure_logging

    configure_logging(config.log_level, config.log_format)
    # Configuration errors (e.g. auth without a secret) surface here, in one line, before
    # anything listens.
    application = None
    if workers == 1:
        from planrag.app.main import create_app

        application = create_app(config)
    host, port = host or config.server.host, port or config.server.port
    # Other `planrag` commands find this server through the data dir and go through its API.
    with announce(config.data_dir, host, port):
        uvicorn.run(
            application or "planrag.app.main:create_app",
            factory=workers > 1,
            workers=workers if workers > 1 else None,
            # A worker process opens stores and loads models before it answers the supervisor's
            # health check: uvicorn's 5 s default restarts it in a loop on a busy machine.
            timeout_worker_healthcheck=120,
            host=host,
            port=port,
            log_level=config.log_level.lower(),
            http=LenientH11Protocol,  # accepts raw UTF-8 URLs, as curl sends them
        )


@kb_app.command("create")
def kb_create(
    name: str,
    description: str = "",
    chunking: Annotated[str, typer.Option(help="size | parent_child | context_aware")] = "size",
    chunk_size: int = 500,
    chunk_overlap: int = 50,
    metric: Annotated[str, typer.Option(help="COSINE | L2 | IP")] = "COSINE",
    top_k: int = 5,
    store: Annotated[str, typer.Option(help="vector store: milvus | pgvector")] = "milvus",
    embedding: Annotated[
        str | None, typer.Option(help="embedding model (default: PLANRAG_EMBEDDING__MODEL)")
    ] = None,
) -> None:
    """Create a knowledge base."""
    if store not in ("milvus", "pgvector"):
        raise typer.BadParameter("milvus or pgvector", param_hint="--store")
    body = {
        "name": name,
        "description": description,
        "top_k": top_k,
        "vector_store": store,
        "embedding_model": embedding,
        "metric": _metric(metric),
        "chunking": {
            "strategy": _strategy(chunking),
            "chunk_size": chunk_size,
            "chunk_overlap": chunk_overlap,
        },
    }
    with backend(may_create=True) as server:
        kb = server.create_kb(body)
    typer.echo(kb["id"])


def _metric(value: str) -> str:
    if value.upper() not in ("COSINE", "L2", "IP"):
        raise typer.BadParameter("metric must be COSINE, L2 or IP")
    return value.upper()


def _strategy(value: str) -> str:
    if value not in ("size", "parent_child", "context_aware"):
        raise typer.BadParameter("chunking must be size, parent_child or context_aware")
    return value


@kb_app.command("reindex")
def kb_reindex(
    name: str,
    embedding: Annotated[
        str | None, typer.Option(help="model to re-embed with (default: PLANRAG_EMBEDDING__MODEL)")
    ] = None,
) -> None:
    """Re-embed a knowledge base with another model. The old vectors serve until the new ones are
    complete; an interrupted reindex leaves them serving."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    runtime = _runtime(may_create=False)
    try:
        kb = _find_kb(runtime, name)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      console=console) as bar:  # fmt: skip
            task = bar.add_task(f"reindex {kb.name}", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = runtime.reindex.start(kb.id, embedding, background=False, progress=progress)
    finally:
        runtime.close()
    if result.status != "completed":
        console.print(f"[red]reindex failed:[/red] {result.error}; {kb.embedding_model} serves")
        raise typer.Exit(1)
    typer.echo(f"{kb.name}: {result.done} chunks re-embedded with {result.embedding_model}")


@kb_app.command("list")
def kb_list(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List knowledge bases with document counts (full ids)."""
    with backend() as server:
        kbs = server.list_kbs()
    if as_json:
        typer.echo(json.dumps(kbs, ensure_ascii=False))
        return
    from rich.table import Table

    table = Table("name")
    table.add_column("id", no_wrap=True, min_width=36)  # never cut: ids are copied from here
    for column in ("documents", "chunks", "size", "updated"):
        table.add_column(column)
    for kb in kbs:
        stats = kb["stats"]
        last = stats.get("last_updated") or kb["updated_at"]
        table.add_row(
            kb["name"],
            kb["id"],
            str(stats["document_count"]),
            str(stats["chunk_count"]),
            f"{stats['size_bytes']:,}",
            last[:16].replace("T", " "),
        )
    Console(width=max(Console().width, 120)).print(table)


@kb_app.command("delete")
def kb_delete(
    name: str, yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask")] = False
) -> None:
    """Delete a knowledge base (by name or id) with all its documents and vectors."""
    with backend() as server:
        kb = server.find_kb(name)
        if not yes:
            count = kb["stats"]["document_count"]
            typer.confirm(f"Delete '{kb['name']}' and its {count} documents?", abort=True)
        server.delete_kb(kb["id"])
    console.print(f"deleted {kb['name']}")


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="files or folders (searched recursively)")],
    kb: Annotated[str, typer.Option("--kb", help="knowledge base name or id")],
    create: Annotated[bool, typer.Option(help="create the knowledge base if missing")] = False,
    title: Annotated[str | None, typer.Option(help="title (one file only)")] = None,
    author: Annotated[str | None, typer.Option(help="author of every file")] = None,
    domain: Annotated[str | None, typer.Option(help="domain of every file")] = None,
    date: Annotated[str | None, typer.Option(help="date of every file, YYYY-MM-DD")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="a tag of every file (repeat)")] = None,
    info: Annotated[str | None, typer.Option(help="free-text info of every file")] = None,
) -> None:
    """Upload and index files into a knowledge base, with a progress bar.

    Metadata: the options apply to every file; a Markdown file's front matter (--- … ---) and a
    sidecar file `NAME.meta.json` beside a file override them for that file (tags are merged)."""
    files, failures, skipped = collect_files(paths)
    if title and len(files) > 1:
        raise typer.BadParameter("--title names one file; use front matter or sidecar files")
    defaults: dict[str, Any] = {"title": title, "author": author, "domain": domain}
    defaults |= {"date": date, "info": info, "tags": tag or []}
    with backend(may_create=create) as server:
        target = _target_kb(server, kb, create)
        _ingest_files(server, target, files, defaults, failures)
    _summary(files, failures, skipped)
    if failures:
        raise typer.Exit(1)


def _target_kb(server: Backend, name: str, create: bool) -> dict[str, Any]:
    from planrag.core.errors import KnowledgeBaseNotFound

    try:
        return server.find_kb(name)
    except KnowledgeBaseNotFound:
        if not create:
            raise PlanragError(f"no knowledge base '{name}' (use --create)") from None
        return server.create_kb({"name": name})


def _ingest_files(
    server: Backend,
    kb: dict[str, Any],
    files: list[Path],
    defaults: dict[str, Any],
    failures: list[tuple[Path, str]],
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("indexing", total=len(files))
        for path in files:
            progress.update(task, description=f"indexing {path.name[:40]}")
            try:
                metadata = file_metadata(path, defaults)
                doc = server.ingest(kb["id"], path, metadata)
                if doc["status"] == "error":
                    failures.append((path, doc.get("error") or "unknown error"))
            except PlanragError as exc:
                failures.append((path, exc.message))
            progress.advance(task)


def _summary(
    files: list[Path], failures: list[tuple[Path, str]], skipped: list[tuple[Path, str]]
) -> None:
    failed = {path for path, _ in failures}
    indexed = sum(1 for path in files if path not in failed)
    tried = len(files) + sum(1 for path in failed if path not in files)
    console.print(f"{indexed} of {tried} file(s) indexed")
    for path, reason in failures:
        console.print(f"  [red]failed[/red] {path}: {reason}")
    if skipped:
        console.print(f"{len(skipped)} file(s) skipped")
        for path, reason in skipped:
            console.print(f"  [yellow]skipped[/yellow] {path}: {reason}")


@app.command("eval")
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="BEIR-style JSON: corpus, queries, qrels")],
    strategy: Annotated[
        str, typer.Option(help="a retrieval strategy: ann | keyword | bm25 | hybrid | 2-stage …")
    ] = "hybrid",
    top_k: Annotated[int, typer.Option(help="hits fetched per query (metrics use @5/@10)")] = 10,
    kb_settings: Annotated[
        str | None, typer.Option(help='knowledge-base settings as JSON, e.g. {"chunking": …}')
    ] = None,
    hybrid_mode: Annotated[str, typer.Option(help="sequential | parallel")] = "sequential",
    store: Annotated[str, typer.Option(help="the KB's vector store: milvus | pgvector")] = "milvus",
    title_weight: Annotated[
        float, typer.Option(help="weights.title of dense scores (0 = chunk text only)")
    ] = 0.0,
    graph: Annotated[
        str,
        typer.Option(
            help="none | ontology | neo4j: the KB's graph backend; not none turns graph "
            "search on (rule extractor unless PLANRAG_GRAPH__EXTRACTOR says otherwise)"
        ),
    ] = "none",
    graph_hops: Annotated[int, typer.Option(help="relations traversed by graph search (1-5)")] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Ingest a dataset into a throw-away KB (in a temporary data dir) and score a strategy."""
    from planrag.cli.evaluation import run_evaluation

    report = run_evaluation(
        settings(),
        dataset,
        strategy,
        top_k=top_k,
        kb_settings=kb_settings,
        hybrid_mode=hybrid_mode,
        store=store,
        title_weight=title_weight,
        graph=graph,
        graph_hops=graph_hops,
        quiet=as_json,
    )
    if as_json:
        typer.echo(json.dumps(report))
        return
    from rich.table import Table

    table = Table("metric", "value")
    for key, value in report.items():
        table.add_row(key, json.dumps(value))
    Console().print(table)


ask_commands.register(app, backend)
auth_commands.register(app)


def _setting_error(exc: Exception) -> str:
    """A settings validation error as one line naming the environment variable."""
    errors: list[dict[str, Any]] = getattr(exc, "errors", list)()
    parts = []
    for error in errors:
        name = "PLANRAG_" + "__".join(str(p).upper() for p in error.get("loc", ()))
        parts.append(f"{name}: {error.get('msg', '')}")
    return "invalid setting " + "; ".join(parts) if parts else str(exc)


def main() -> None:
    """The entry point: domain and configuration errors end in one line, not a traceback
    (usage errors, --help and exit codes are typer's)."""
    try:
        app()
    except PlanragError as exc:
        console.print(f"[red]error:[/red] {exc.message}", highlight=False)
        sys.exit(2 if exc.details.get("setting") else 1)
    except Exception as exc:
        from pydantic import ValidationError

        if isinstance(exc, ValidationError) and exc.title == "Settings":
            console.print(f"[red]error:[/red] {_setting_error(exc)}", highlight=False)
            sys.exit(2)
        raise


if __name__ == "__main__":
    main()
