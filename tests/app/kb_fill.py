"""Fill a knowledge base of a running test server through its HTTP API and wait for indexing."""

from __future__ import annotations

import time

import httpx


def fill_kb(
    url: str,
    name: str,
    docs: list[tuple[str, str, dict]],
    timeout: float = 120,
    fields: dict | None = None,
) -> dict:
    """Create KB `name` (with `fields`, e.g. a graph backend), upload (filename, text, metadata)
    documents, wait until every one is `completed`; returns {filename: document id}."""
    body = {"name": name, **(fields or {})}
    kb = httpx.post(f"{url}/api/knowledge-bases", json=body, timeout=60).json()
    ids = {}
    for filename, text, meta in docs:
        files = {"files": (filename, text.encode(), "text/markdown")}
        made = httpx.post(
            f"{url}/api/knowledge-bases/{kb['id']}/documents", files=files, data=meta, timeout=60
        ).json()
        ids[filename] = made[0]["id"]
    deadline = time.monotonic() + timeout
    while True:
        listed = httpx.get(f"{url}/api/knowledge-bases/{kb['id']}/documents", timeout=60).json()
        if all(d["status"] == "completed" for d in listed):
            return ids
        assert time.monotonic() < deadline, listed
        time.sleep(0.2)
