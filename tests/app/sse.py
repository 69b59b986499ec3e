"""Reading server-sent events from a live HTTP response, event by event."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx


def events(response: httpx.Response) -> Iterator[tuple[str, Any]]:
    """(event, parsed data) as they arrive; comment lines (heartbeats) are skipped."""
    name, data = "message", []
    for line in response.iter_lines():
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
