"""`planrag eval`: a dataset scored in a throw-away data dir (imported only by that command)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from planrag.core.errors import InvalidInput
from planrag.core.settings import Settings
from planrag.runtime import Runtime
from planrag.services.evaluation import BeirDataset, evaluate

console = Console(stderr=True)


def run_evaluation(
    settings: Settings,
    dataset: Path,
    strategy: str,
    *,
    top_k: int,
    kb_settings: str | None,
    hybrid_mode: str,
    store: str,
    title_weight: float,
    graph: str = "none",
    graph_hops: int = 2,
    quiet: bool,
) -> dict[str, Any]:
    """The report as JSON; errors are `PlanragError`s (the CLI prints them in one line)."""
    try:
        data = BeirDataset.load(dataset)
        extra = {"vector_store": store, **(json.loads(kb_settings) if kb_settings else {})}
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--kb-settings is not JSON: {exc}") from exc
    if not 0.0 <= title_weight <= 1.0:
        raise InvalidInput("--title-weight must be between 0 and 1")
    graph_request: dict[str, Any] = {}
    if graph != "none":
        extra["graph_backend"] = graph
        graph_request = {"enable_graph_search": True, "graph_hops": graph_hops}
    with tempfile.TemporaryDirectory(prefix="planrag-eval-") as tmp:
        Path(tmp).chmod(0o711)  # an embedded PostgreSQL runs as another OS user when root
        runtime = Runtime.open(settings.model_copy(update={"data_dir": Path(tmp)}))
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        try:
            with Progress(*columns, TimeElapsedColumn(), console=console, disable=quiet) as bar:
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
        finally:
            runtime.close()
    result: dict[str, Any] = report.as_json()
    return result
