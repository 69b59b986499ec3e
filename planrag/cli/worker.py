"""`planrag worker`: index documents from the durable queue (queue mode `database`)."""

from __future__ import annotations

import signal
import threading
from typing import Annotated

import typer
from rich.console import Console

console = Console(stderr=True)


def worker(
    threads: Annotated[
        int | None, typer.Option(min=1, max=32, help="default PLANRAG_INGEST__CONCURRENCY")
    ] = None,
) -> None:
    """Index queued documents until stopped (SIGTERM/SIGINT release the job in hand).

    Needs the shared stores of a multi-process deployment: PLANRAG_INGEST__QUEUE=database, a
    Milvus server (PLANRAG_MILVUS__URI) and PostgreSQL (PLANRAG_DB__URL / PLANRAG_PG__URL)."""
    from planrag.core.settings import get_settings

    settings = get_settings()
    problems = settings.multi_process_problems()
    if problems:  # said before the stores' and models' modules load (~5 CPU s)
        console.print(
            "[red]error:[/red] a worker process needs shared stores; set " + "; ".join(problems)
        )
        raise typer.Exit(2)
    from planrag.core.telemetry import configure_logging
    from planrag.runtime import Runtime
    from planrag.services.workers import IndexingWorker

    configure_logging(settings.log_level, settings.log_format)
    runtime = Runtime.open(settings)
    queue = runtime.ingestion.queue
    assert queue is not None  # queue mode database, checked above
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    runtime.warm_up()
    running = IndexingWorker(
        runtime.ingestion, queue, settings.ingest, threads=threads or settings.ingest.concurrency
    ).start()
    console.print(f"worker {running.name} waiting for jobs")
    try:
        stopping.wait()
    finally:
        running.stop()
        runtime.close()
