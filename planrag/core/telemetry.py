"""Prometheus metrics and the request id every log line carries.

The metrics live in one registry (`REGISTRY`) so that `/metrics` exposes only planrag's own series
and tests can read them. Several worker processes (gunicorn / `uvicorn --workers`) aggregate through
prometheus_client's multiprocess mode when `PROMETHEUS_MULTIPROC_DIR` is set.
"""

from __future__ import annotations

import contextvars
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

__all__ = [
    "REGISTRY",
    "RequestIdFilter",
    "exposition",
    "record_ask",
    "record_ingestion",
    "record_llm_error",
    "record_store_error",
    "request_id",
    "set_queue_depth_source",
]

REGISTRY = CollectorRegistry(auto_describe=True)

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)

HTTP_REQUESTS = Counter(
    "planrag_http_requests",
    "HTTP requests by route template, method and status code.",
    ["method", "route", "status"],
    registry=REGISTRY,
)
HTTP_LATENCY = Histogram(
    "planrag_http_request_duration_seconds",
    "Time to the response's first byte (streams: to the start of the stream), by route.",
    ["method", "route"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
ASK_STAGE = Histogram(
    "planrag_ask_stage_seconds",
    "Time spent in each stage of an ask (plan, search, answer, total).",
    ["stage"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
ASKS = Counter(
    "planrag_asks",
    "Asks by plan source (llm, heuristic, fallback) and outcome (ok, error, cancelled).",
    ["source", "status"],
    registry=REGISTRY,
)
RELAXATIONS = Counter(
    "planrag_plan_relaxations",
    "Plans whose filters were relaxed because they left no document.",
    registry=REGISTRY,
)
INGEST_JOBS = Counter(
    "planrag_ingest_jobs",
    "Indexing jobs finished, by outcome (completed, error).",
    ["outcome"],
    registry=REGISTRY,
)
INGEST_DURATION = Histogram(
    "planrag_ingest_job_seconds",
    "Time to index one document (parse, chunk, embed, write).",
    buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600),
    registry=REGISTRY,
)
QUEUE_DEPTH = Gauge(
    "planrag_ingest_queue_depth",
    "Documents waiting for or in indexing (pending + processing) in this process's view.",
    registry=REGISTRY,
    multiprocess_mode="max",
)
LLM_ERRORS = Counter(
    "planrag_llm_errors",
    "LLM calls that failed, by kind (connection, timeout, status, invalid, not_configured).",
    ["kind"],
    registry=REGISTRY,
)
STORE_ERRORS = Counter(
    "planrag_store_errors",
    "Requests that failed because a store was unavailable, by error code.",
    ["code"],
    registry=REGISTRY,
)

_queue_depth_source: Callable[[], int] | None = None


def set_queue_depth_source(source: Callable[[], int] | None) -> None:
    """The callable read at every scrape for `planrag_ingest_queue_depth` (the runtime sets it)."""
    global _queue_depth_source
    _queue_depth_source = source


def exposition() -> bytes:
    """The text exposition of every planrag metric (all processes in multiprocess mode)."""
    if _queue_depth_source is not None:
        try:
            QUEUE_DEPTH.set(_queue_depth_source())
        except Exception:  # a scrape must not fail because a store is down
            logging.getLogger(__name__).debug("queue depth unavailable", exc_info=True)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def record_ask(
    source: str, status: str, timings_ms: Mapping[str, float], relaxed: bool = False
) -> None:
    ASKS.labels(source=source or "none", status=status).inc()
    for stage, ms in timings_ms.items():
        ASK_STAGE.labels(stage=stage).observe(ms / 1000)
    if relaxed:
        RELAXATIONS.inc()


def record_ingestion(outcome: str, seconds: float | None = None) -> None:
    INGEST_JOBS.labels(outcome=outcome).inc()
    if seconds is not None:
        INGEST_DURATION.observe(seconds)


def record_llm_error(kind: str) -> None:
    LLM_ERRORS.labels(kind=kind).inc()


def record_store_error(code: str) -> None:
    STORE_ERRORS.labels(code=code).inc()


# --- request id -----------------------------------------------------------------------------

_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("planrag_request_id", default="-")


def request_id() -> str:
    """The id of the HTTP request being handled ("-" outside a request)."""
    return _request_id.get()


def bind_request_id(value: str) -> contextvars.Token[str]:
    return _request_id.set(value)


def unbind_request_id(token: contextvars.Token[str]) -> None:
    _request_id.reset(token)


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record, so formats can print `%(request_id)s`."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id (and the exception)."""

    def format(self, record: logging.LogRecord) -> str:
        import json

        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", _request_id.get()),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


# Libraries whose INFO lines say nothing a user can act on: faiss (inside Milvus Lite) logs
# "Could not load library with AVX512 support" on every CPU without AVX-512 and then loads
# its AVX2 build, which is what should happen.
QUIET_LOGGERS = ("faiss", "faiss.loader")


def configure_logging(level: str, fmt: str = "text") -> None:
    """Root logging for `planrag serve` / `planrag worker`: text or JSON lines, request ids."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in QUIET_LOGGERS:  # start-up chatter that is not about planrag
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
