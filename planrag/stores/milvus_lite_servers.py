"""The Milvus Lite servers this process runs: released when their last store closes.

pymilvus starts an in-process Milvus Lite server (gRPC threads plus a lock on the data dir) for
a local `.db` path and keeps it until the process exits, even after every client closed. So a
process that closed its stores still held the data dir: another process (`planrag ingest` after
a `planrag` command run in-process, or a server started next) failed on the lock. Stores opened on
one path count here; the last close stops the server and frees the lock.
"""

from __future__ import annotations

import logging
import os
import threading

log = logging.getLogger(__name__)

_lock = threading.Lock()
_open: dict[str, int] = {}


def local_path(uri: str) -> str | None:
    """The data dir path pymilvus runs Milvus Lite for (a `.db` path), or None for a server."""
    return os.path.abspath(uri) if "://" not in uri and uri.endswith(".db") else None


def opened(uri: str) -> None:
    """A store was opened on URI (after its client connected)."""
    path = local_path(uri)
    if path is not None:
        with _lock:
            _open[path] = _open.get(path, 0) + 1


def closed(uri: str) -> None:
    """A store on URI closed; the last one on a local path stops its Milvus Lite server."""
    path = local_path(uri)
    if path is None:
        return
    with _lock:
        left = _open.get(path, 0) - 1
        if left > 0:
            _open[path] = left
            return
        _open.pop(path, None)
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:  # an older milvus-lite ran a child process: nothing held here
        return
    server_manager_instance.release_server(path)
    log.debug("Milvus Lite released %s", path)
