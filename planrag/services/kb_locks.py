"""Per-knowledge-base shared/exclusive locks within one process.

Ingestion holds a KB *shared* from choosing the KB's embedding model to writing the vectors; a
reindex holds it *exclusive* for its last catch-up and the switch to the new vectors, so no
document embedded with the old model is written into the new generation. Writers are preferred:
a waiting switch is not starved by a stream of uploads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager


class _SharedExclusive:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writer and not self._writers_waiting)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            self._cond.wait_for(lambda: not self._writer and self._readers == 0)
            self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


class KbLocks:
    def __init__(self) -> None:
        self._locks: dict[str, _SharedExclusive] = {}
        self._guard = threading.Lock()

    def _lock(self, kb_id: str) -> _SharedExclusive:
        with self._guard:
            return self._locks.setdefault(kb_id, _SharedExclusive())

    @contextmanager
    def shared(self, kb_ids: Iterable[str]) -> Iterator[None]:
        """Several KBs at once (one ingestion batch may span KBs), in a fixed order."""
        with ExitStack() as stack:
            for kb_id in sorted(set(kb_ids)):
                stack.enter_context(self._lock(kb_id).shared())
            yield

    @contextmanager
    def exclusive(self, kb_id: str) -> Iterator[None]:
        with self._lock(kb_id).exclusive():
            yield
