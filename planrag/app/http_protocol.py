"""The HTTP/1.1 protocol the server runs: uvicorn's h11 protocol, lenient about raw UTF-8 in the
request target.

curl sends a URL as typed, so the spec 000 examples (`/rag/search?query_text=메타버스…`) reach
the server with raw UTF-8 bytes in the request line, which h11 (and httptools) refuse with
"Invalid HTTP request received". This protocol percent-encodes bytes ≥ 0x80 of the request line
before h11 parses it — exactly what the client should have sent — and changes nothing else.
"""

from __future__ import annotations

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def escape_request_line(data: bytes) -> bytes:
    """Percent-encode the non-ASCII bytes of `data` up to its first CRLF (or all of it)."""
    end = data.find(b"\r\n")
    head, rest = (data, b"") if end < 0 else (data[:end], data[end:])
    if head.isascii():
        return data
    return b"".join(b"%%%02X" % byte if byte >= 0x80 else bytes([byte]) for byte in head) + rest


class LenientH11Protocol(H11Protocol):
    def data_received(self, data: bytes) -> None:
        buffered, _closed = self.conn.trailing_data
        if self.conn.their_state is h11.IDLE and b"\r\n" not in buffered:
            data = escape_request_line(data)  # still reading a request line
        super().data_received(data)
