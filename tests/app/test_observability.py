"""Observability: Prometheus /metrics scraped after real traffic, a request id on every response
and log line, JSON logs, and the readiness check."""

from __future__ import annotations

import json
import logging

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from planrag.core import telemetry
from tests.conftest import wait_for_documents


def scrape(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_routes_asks_and_ingestion(client: TestClient) -> None:
    before = scrape(client)
    kb = client.post("/api/knowledge-bases", json={"name": "obs"}).json()
    files = [("files", ("a.md", "# 휴가\n연차 휴가는 15일입니다.".encode(), "text/markdown"))]
    assert client.post(f"/api/knowledge-bases/{kb['id']}/documents", files=files).status_code < 300
    wait_for_documents(client, kb["id"])
    with client.stream(
        "POST", "/ai/v2/ask", json={"question": "연차 휴가는 며칠?", "knowledge_bases": ["obs"]}
    ) as stream:
        body = "".join(stream.iter_text())
    assert "event: end" in body
    assert client.get(f"/api/knowledge-bases/{kb['id']}").status_code == 200
    after = scrape(client)

    route = "/api/knowledge-bases/{kb_id}"
    got = value(after, "planrag_http_requests_total", method="GET", route=route, status="200")
    assert (
        got
        == value(before, "planrag_http_requests_total", method="GET", route=route, status="200") + 1
    )
    assert value(after, "planrag_asks_total", source="heuristic", status="ok") == (
        value(before, "planrag_asks_total", source="heuristic", status="ok") + 1
    )
    assert value(after, "planrag_ask_stage_seconds_count", stage="search") >= 1
    assert value(after, "planrag_ingest_jobs_total", outcome="completed") >= (
        value(before, "planrag_ingest_jobs_total", outcome="completed") + 1
    )
    assert ("planrag_ingest_queue_depth", ()) in after
    # ids never become label values: the route template is the label
    assert not any(kb["id"] in dict(labels).get("route", "") for _, labels in after)


def test_request_id_is_returned_and_kept_when_plain(client: TestClient) -> None:
    generated = client.get("/healthz").headers["x-request-id"]
    assert len(generated) == 32
    assert client.get("/healthz").headers["x-request-id"] != generated
    assert (
        client.get("/healthz", headers={"X-Request-ID": "edge-42"}).headers["x-request-id"]
        == "edge-42"
    )
    hostile = client.get("/healthz", headers={"X-Request-ID": "a\tb" + "x" * 100})
    assert hostile.headers["x-request-id"] not in ("a\tb" + "x" * 100,)
    # errors carry it too
    assert client.get("/api/knowledge-bases/nope").headers.get("x-request-id")


def test_log_lines_carry_the_request_id_as_json() -> None:
    from fastapi import FastAPI

    from planrag.app.observability import RequestObservability

    app = FastAPI()
    app.add_middleware(RequestObservability)
    log = logging.getLogger("planrag.test.observability")

    @app.get("/work")
    async def work() -> dict[str, str]:
        log.warning("handling work")
        return {"ok": "yes"}

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    handler.addFilter(telemetry.RequestIdFilter())
    log.addHandler(handler)
    try:
        with TestClient(app) as client:
            client.get("/work", headers={"X-Request-ID": "req-json-1"})
            generated = client.get("/work").headers["x-request-id"]
        log.warning("outside any request")
    finally:
        log.removeHandler(handler)
    lines = [json.loads(telemetry.JsonFormatter().format(r)) for r in records]
    assert [line["request_id"] for line in lines] == ["req-json-1", generated, "-"]
    assert {"time", "level", "logger", "message"} <= set(lines[0])
    assert lines[0]["message"] == "handling work"


def test_readiness_reports_components_without_details(client: TestClient) -> None:
    response = client.get("/readyz")
    body = response.json()
    assert set(body) == {"ready", "components"}
    assert body["components"]["metadata"] == "up"
    assert body["components"]["queue"] == "up"
    assert response.status_code == (200 if body["ready"] else 503)
    assert all(isinstance(state, str) for state in body["components"].values())
