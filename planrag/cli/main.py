"""The `planrag` command: serve, kb, ingest, ask, plan, eval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from planrag.cli import ask as ask_commands
from planrag.cli import auth as auth_commands
from planrag.cli import worker as worker_commands
from planrag.cli.admin_client import announce
from planrag.core.errors import InvalidInput, KnowledgeBaseNotFound, PlanragError
from planrag.core.settings import get_settings
from planrag.core.strategies import strategy_names
from planrag.core.types import ChunkingConfig, ChunkingStrategy, DocumentStatus, Metric
from planrag.ingest.parsers import detect_file_type
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate, KnowledgeBaseView

app = typer.Typer(help="planrag: LLM-planned RAG server", no_args_is_help=True)
kb_app = typer.Typer(help="Manage knowledge bases", no_args_is_help=True)
app.add_typer(kb_app, name="kb")
app.command("worker")(worker_commands.worker)
console = Console(stderr=True)


def _runtime() -> Runtime:
    try:
        return Runtime.open(get_settings())
    except PlanragError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from exc


def _find_kb(runtime: Runtime, name_or_id: str) -> KnowledgeBaseView:
    try:
        return runtime.knowledge_bases.get_by_name(name_or_id)
    except KnowledgeBaseNotFound:
        return runtime.knowledge_bases.get(name_or_id)


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

    import uvicorn

    from planrag.app.http_protocol import LenientH11Protocol
    from planrag.app.main import create_app
    from planrag.core.telemetry import configure_logging

    if no_worker:  # read by every API process's settings (uvicorn workers re-import the app)
        os.environ["PLANRAG_INGEST__SERVE_WORKER"] = "false"
        get_settings.cache_clear()
    settings = get_settings()
    problems = settings.multi_process_problems() if workers > 1 else []
    if problems:
        console.print(
            f"[red]error:[/red] --workers {workers} needs stores every process can share; set "
            + "; ".join(problems)
        )
        raise typer.Exit(2)
    configure_logging(settings.log_level, settings.log_format)
    host, port = host or settings.server.host, port or settings.server.port
    # `planrag keys|users` find this server through the data dir and go through its API.
    with announce(settings.data_dir, host, port):
        uvicorn.run(
            "planrag.app.main:create_app" if workers > 1 else create_app(settings),
            factory=workers > 1,
            workers=workers if workers > 1 else None,
            # A worker process opens stores and loads models before it answers the supervisor's
            # health check: uvicorn's 5 s default restarts it in a loop on a busy machine.
            timeout_worker_healthcheck=120,
            host=host,
            port=port,
            log_level=settings.log_level.lower(),
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
    runtime = _runtime()
    try:
        kb = runtime.knowledge_bases.create(
            KnowledgeBaseCreate(
                name=name,
                description=description,
                top_k=top_k,
                vector_store=store,  # type: ignore[arg-type]
                embedding_model=embedding,
                metric=_metric(metric),
                chunking=ChunkingConfig(
                    strategy=_strategy(chunking), chunk_size=chunk_size, chunk_overlap=chunk_overlap
                ),
            )
        )
    except PlanragError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(1) from exc
    finally:
        runtime.close()
    typer.echo(kb.id)


def _metric(value: str) -> Metric:
    if value.upper() not in ("COSINE", "L2", "IP"):
        raise typer.BadParameter("metric must be COSINE, L2 or IP")
    return value.upper()  # type: ignore[return-value]


def _strategy(value: str) -> ChunkingStrategy:
    if value not in ("size", "parent_child", "context_aware"):
        raise typer.BadParameter("chunking must be size, parent_child or context_aware")
    return value  # type: ignore[return-value]


@kb_app.command("reindex")
def kb_reindex(
    name: str,
    embedding: Annotated[
        str | None, typer.Option(help="model to re-embed with (default: PLANRAG_EMBEDDING__MODEL)")
    ] = None,
) -> None:
    """Re-embed a knowledge base with another model. The old vectors serve until the new ones are
    complete; an interrupted reindex leaves them serving."""
    runtime = _runtime()
    try:
        kb = _find_kb(runtime, name)
        with Progress(*_columns(), console=console) as bar:
            task = bar.add_task(f"reindex {kb.name}", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = runtime.reindex.start(kb.id, embedding, background=False, progress=progress)
    except PlanragError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(1) from exc
    finally:
        runtime.close()
    if result.status != "completed":
        console.print(f"[red]reindex failed:[/red] {result.error}; {kb.embedding_model} serves")
        raise typer.Exit(1)
    typer.echo(f"{kb.name}: {result.done} chunks re-embedded with {result.embedding_model}")


@kb_app.command("list")
def kb_list(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List knowledge bases with document counts."""
    runtime = _runtime()
    try:
        kbs = runtime.knowledge_bases.list()
    finally:
        runtime.close()
    if as_json:
        typer.echo(json.dumps([kb.model_dump(mode="json") for kb in kbs], ensure_ascii=False))
        return
    table = Table("name", "id", "documents", "chunks", "size", "updated")
    for kb in kbs:
        last = kb.stats.last_updated or kb.updated_at
        table.add_row(
            kb.name,
            kb.id,
            str(kb.stats.document_count),
            str(kb.stats.chunk_count),
            f"{kb.stats.size_bytes:,}",
            last.strftime("%Y-%m-%d %H:%M"),
        )
    Console().print(table)


@kb_app.command("delete")
def kb_delete(
    name: str, yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask")] = False
) -> None:
    """Delete a knowledge base (by name or id) with all its documents and vectors."""
    runtime = _runtime()
    try:
        kb = _find_kb(runtime, name)
        if not yes:
            typer.confirm(
                f"Delete '{kb.name}' and its {kb.stats.document_count} documents?", abort=True
            )
        runtime.knowledge_bases.delete(kb.id)
    except PlanragError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(1) from exc
    finally:
        runtime.close()
    console.print(f"deleted {kb.name}")


def _collect(paths: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    files: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for path in paths:
        candidates = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for candidate in candidates:
            if not candidate.exists():
                skipped.append((candidate, "not found"))
                continue
            try:
                detect_file_type(candidate.name)
            except PlanragError as exc:
                if not path.is_dir():  # unsupported files inside folders are skipped silently
                    skipped.append((candidate, exc.message))
                continue
            files.append(candidate)
    return files, skipped


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="files or folders (searched recursively)")],
    kb: Annotated[str, typer.Option("--kb", help="knowledge base name or id")],
    create: Annotated[bool, typer.Option(help="create the knowledge base if missing")] = False,
) -> None:
    """Upload and index files into a knowledge base, with a progress bar."""
    files, failures = _collect(paths)
    runtime = _runtime()
    try:
        target = _target_kb(runtime, kb, create)
        _ingest_files(runtime, target, files, failures)
    finally:
        runtime.close()
    _summary(files, failures)
    if failures:
        raise typer.Exit(1)


def _target_kb(runtime: Runtime, name: str, create: bool) -> KnowledgeBaseView:
    try:
        return _find_kb(runtime, name)
    except KnowledgeBaseNotFound:
        if not create:
            console.print(f"[red]error:[/red] no knowledge base '{name}' (use --create)")
            raise typer.Exit(1) from None
        return runtime.knowledge_bases.create(KnowledgeBaseCreate(name=name))


def _columns() -> tuple[ProgressColumn, ...]:
    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )


def _ingest_files(
    runtime: Runtime, kb: KnowledgeBaseView, files: list[Path], failures: list[tuple[Path, str]]
) -> None:
    with Progress(*_columns(), console=console) as progress:
        task = progress.add_task("indexing", total=len(files))
        for path in files:
            progress.update(task, description=f"indexing {path.name[:40]}")
            try:
                uploaded = runtime.ingestion.upload(
                    kb.id,
                    [UploadItem(filename=path.name, data=path.read_bytes())],
                    background=False,
                )[0]
                doc = uploaded
                if uploaded.status == DocumentStatus.pending:
                    doc = runtime.ingestion.index(uploaded.id)  # type: ignore[assignment]
                if doc.status == DocumentStatus.error:
                    failures.append((path, doc.error or "unknown error"))
            except PlanragError as exc:
                failures.append((path, exc.message))
            progress.advance(task)


def _summary(files: list[Path], failures: list[tuple[Path, str]]) -> None:
    failed = {path for path, _ in failures}
    indexed = sum(1 for path in files if path not in failed)
    console.print(f"{indexed} of {len(files)} file(s) indexed")
    for path, reason in failures:
        console.print(f"  [red]failed[/red] {path}: {reason}")


@app.command("eval")
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="BEIR-style JSON: corpus, queries, qrels")],
    strategy: Annotated[str, typer.Option(help=" | ".join(strategy_names()))] = "hybrid",
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
    import tempfile

    from planrag.services.evaluation import BeirDataset, evaluate

    try:
        data = BeirDataset.load(dataset)
        extra = {"vector_store": store, **(json.loads(kb_settings) if kb_settings else {})}
        if graph != "none":
            extra["graph_backend"] = graph
        graph_request = (
            {"enable_graph_search": True, "graph_hops": graph_hops} if graph != "none" else {}
        )
        if not 0.0 <= title_weight <= 1.0:
            raise InvalidInput("--title-weight must be between 0 and 1")
    except (PlanragError, json.JSONDecodeError) as exc:
        console.print(f"[red]error:[/red] {getattr(exc, 'message', exc)}")
        raise typer.Exit(2) from exc
    settings = get_settings()
    with tempfile.TemporaryDirectory(prefix="planrag-eval-") as tmp:
        Path(tmp).chmod(0o711)  # an embedded PostgreSQL runs as another OS user when root
        runtime = Runtime.open(settings.model_copy(update={"data_dir": Path(tmp)}))
        try:
            with Progress(*_columns(), console=console, disable=as_json) as bar:
                task = bar.add_task("ingest", total=None)

                def progress(stage: str, done: int, total: int) -> None:
                    bar.update(task, description=stage, completed=done, total=total)

                report = evaluate(
                    runtime,
                    data,
                    strategy,  # type: ignore[arg-type]
                    extra,
                    progress,
                    top_k=min(50, max(top_k, 10) * 3),
                    hybrid_mode=hybrid_mode,
                    weights={"chunk": 1.0 - title_weight, "title": title_weight},
                    **graph_request,
                )
        except PlanragError as exc:
            console.print(f"[red]error:[/red] {exc.message}")
            raise typer.Exit(1) from exc
        finally:
            runtime.close()
    if as_json:
        typer.echo(json.dumps(report.as_json()))
        return
    table = Table("metric", "value")
    for key, value in report.as_json().items():
        table.add_row(key, json.dumps(value))
    Console().print(table)


ask_commands.register(app, _runtime)
auth_commands.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
