"""The request examples of the specification documents, parsed at test time: curl commands
(spec 000, 004), bare `METHOD /path` lines (spec 004) and the JSON request bodies of spec 003.
Spec typos are repaired only where a test says so (`repaired`).

The examples are read from the specification when it is beside the checkout (../shared/spec, or
PLANRAG_SPEC_DIR) and otherwise from our own copies in `spec_requests/` (a clone has no spec);
`test_spec_copies.py` checks that the copies still say what the spec says."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SPEC_DIR = Path(
    os.environ.get("PLANRAG_SPEC_DIR")
    or Path(__file__).resolve().parents[3].parent / "shared" / "spec"
)
COPIES_DIR = Path(__file__).resolve().parent / "spec_requests"
FENCE = re.compile(r"^```[a-z]*\s*$")


def original_spec_text(prefix: str) -> str | None:
    """The text of spec `prefix` (e.g. "000") when the specification is present, else None."""
    matches = sorted(SPEC_DIR.glob(f"{prefix}_*.txt")) if SPEC_DIR.is_dir() else []
    assert len(matches) <= 1, f"expected one spec {prefix}_*.txt in {SPEC_DIR}, got {matches}"
    return matches[0].read_text(encoding="utf-8") if matches else None


def copied_spec_text(prefix: str) -> str:
    """Our copy of the request examples of spec `prefix` (kept in the repository)."""
    return (COPIES_DIR / f"{prefix}.md").read_text(encoding="utf-8")


def spec_text(prefix: str) -> str:
    """The spec's text when present, else our copy of its request examples."""
    return original_spec_text(prefix) or copied_spec_text(prefix)


@dataclass
class Example:
    method: str
    path: str  # path and query, as written (percent-escapes kept)
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    raw_body: str | None = None
    repaired: bool = False  # the spec's JSON was malformed and closed by close_brackets

    @property
    def route(self) -> str:
        return urlsplit(self.path).path


def fenced_blocks(text: str) -> list[str]:
    """Contents of ``` fences; a fence that follows another with only blank lines between
    is kept separate (the caller decides whether they belong together)."""
    blocks, current, inside = [], [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            if inside:
                blocks.append("\n".join(current))
                current = []
            inside = not inside
        elif inside:
            current.append(line)
    return blocks


def close_brackets(text: str) -> str:
    """Append the closers of brackets left open (outside strings) to a truncated JSON text."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped = ch == "\\" and not escaped
            if ch == '"' and not escaped:
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}" and stack:
            stack.pop()
    return text + "".join(reversed(stack))


def _join_curl(blocks: list[str]) -> list[str]:
    """Curl commands, a command split over several fences joined (spec 000 §8)."""
    commands, i = [], 0
    while i < len(blocks):
        if not blocks[i].lstrip().startswith("curl "):
            i += 1
            continue
        command = blocks[i]
        i += 1
        while i < len(blocks) and not _complete(command):
            command += "\n" + blocks[i]
            i += 1
        commands.append(command)
    return commands


def _complete(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:
        return False
    return True


def _body(raw: str) -> tuple[Any, bool]:
    try:
        return json.loads(raw), False
    except json.JSONDecodeError:
        return json.loads(close_brackets(raw)), True


def parse_curl(command: str) -> Example:
    tokens = shlex.split(re.sub(r"\\\n", " ", command))  # line continuations
    assert tokens[0] == "curl", command
    method, url, headers, raw = "GET", "", {}, None
    i = 1
    while i < len(tokens):
        token = tokens[i]
        if token == "-X":
            method, i = tokens[i + 1], i + 2
        elif token == "-H":
            name, _, value = tokens[i + 1].partition(":")
            headers[name.strip()] = value.strip()
            i += 2
        elif token in ("-d", "--data", "--data-raw"):
            raw, i = tokens[i + 1], i + 2
            method = method if "-X" in tokens else "POST"
        else:
            url, i = re.sub(r"\s+", "", token), i + 1
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    body, repaired = _body(raw) if raw is not None else (None, False)
    return Example(method, path, headers, body, raw, repaired)


def curl_examples(text: str) -> list[Example]:
    return [parse_curl(c) for c in _join_curl(fenced_blocks(text))]


def request_lines(text: str) -> list[Example]:
    """Fenced `GET /path` requests without a body (spec 004's resource listing)."""
    found = []
    for block in fenced_blocks(text):
        lines = [line.strip() for line in block.strip().splitlines()]
        match = re.fullmatch(r"(GET) (/\S*)", lines[0]) if lines else None
        if match and len(lines) == 1:
            found.append(Example(match.group(1), match.group(2)))
    return found


def json_requests(text: str) -> list[tuple[str, str]]:
    """Spec 003's requests: (the `POST /path` heading above, the JSON text after `Request`)."""
    found, route = [], None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        heading = re.fullmatch(r"(POST|GET) (/\S+)", line.strip())
        if heading:
            route = heading.group(2)
        if line.strip() == "Request" and i + 1 < len(lines) and lines[i + 1].startswith("{"):
            depth, body = 0, []
            for candidate in lines[i + 1 :]:
                body.append(candidate)
                depth += candidate.count("{") - candidate.count("}")
                if depth == 0:
                    break
            assert route, "a Request block before any endpoint heading"
            found.append((route, "\n".join(body)))
    return found


@dataclass
class RawResponse:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def send_like_curl(base_url: str, example: Example, body: bytes | None = None) -> RawResponse:
    """Send the example's request as curl does: the URL's bytes as written (raw UTF-8 and
    all), the example's headers, the body as given (default: the example's own)."""
    if body is None and example.raw_body is not None:
        body = example.raw_body.encode()
    base = urlsplit(base_url)
    host, port = base.hostname or "127.0.0.1", base.port or 80
    headers = {"Host": f"{host}:{port}", "User-Agent": "curl/8", "Accept": "*/*"}
    headers |= example.headers | {"Connection": "close"}
    if body is not None:
        headers["Content-Length"] = str(len(body))
    head = f"{example.method} {example.path} HTTP/1.1\r\n".encode()
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()).encode() + b"\r\n"
    with socket.create_connection((host, port), timeout=120) as sock:
        sock.sendall(head + (body or b""))
        received = []
        while chunk := sock.recv(65536):
            received.append(chunk)
    status_line, _, rest = b"".join(received).partition(b"\r\n")
    _headers, _, payload = rest.partition(b"\r\n\r\n")
    return RawResponse(status=int(status_line.split()[1]), body=payload)
