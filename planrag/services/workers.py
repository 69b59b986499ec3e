"""Indexing workers over the durable queue (queue mode `database`).

`planrag worker` runs them in a process of their own; `planrag serve` runs one inside the API
process unless told not to (`--no-worker`). A worker claims a job (a lease), renews the lease
while it indexes, and removes the job when the document is `completed` or `error`. Killed
mid-job, it stops renewing; once the lease expires another worker re-takes the job and indexes
the document again from the start (indexing first removes an earlier attempt's leftovers), so a
document ends `completed` once, with no duplicate passages. A job that keeps killing its workers
is given up after `max_attempts` and its document marked `error` with the reason.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import uuid

from planrag.core.errors import NotFound
from planrag.core.messages import message
from planrag.core.settings import IngestSettings
from planrag.services.ingestion import IngestionService
from planrag.stores.job_queue import ClaimedJob, JobQueue

log = logging.getLogger(__name__)

__all__ = ["IndexingWorker", "worker_name"]


def worker_name() -> str:
    """host:pid:random — unique per worker, readable in the jobs table."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class IndexingWorker:
    def __init__(
        self,
        ingestion: IngestionService,
        queue: JobQueue,
        settings: IngestSettings,
        *,
        threads: int = 1,
        name: str | None = None,
    ) -> None:
        self._ingestion = ingestion
        self._queue = queue
        self._settings = settings
        self.name = name or worker_name()
        self._threads = [
            threading.Thread(target=self._loop, name=f"worker-{i}", daemon=True)
            for i in range(threads)
        ]
        self._stop = threading.Event()
        self._wake = threading.Event()
        ingestion.on_enqueue(self._wake.set)

    def start(self) -> IndexingWorker:
        for thread in self._threads:
            thread.start()
        log.info("indexing worker %s started (%d thread(s))", self.name, len(self._threads))
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop taking jobs; a job in progress is released back to the queue."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout)
        self._queue.release(self.name)

    def run_once(self) -> bool:
        """Take and process one job; False when the queue had nothing free."""
        job = self._queue.claim(self.name, self._settings.lease_s)
        if job is None:
            return False
        self._process(job)
        return True

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                if self.run_once():
                    continue
            except Exception:  # a broken DB connection must not end the worker
                log.exception("indexing worker %s: claiming a job failed", self.name)
            self._wake.wait(self._settings.poll_s)
            self._wake.clear()

    def _process(self, job: ClaimedJob) -> None:
        if job.attempts > self._settings.max_attempts:
            self._give_up(job)
            return
        renewing = threading.Event()
        renewer = threading.Thread(
            target=self._renew, args=(job.doc_id, renewing), name="lease", daemon=True
        )
        renewer.start()
        try:
            doc = self._ingestion.index(job.doc_id)
            log.info("worker %s indexed %s: %s", self.name, job.doc_id, doc.status)
            if self._queue.depth(job.kb_id) == 1:  # the KB's last job: measure it settled
                self._ingestion.settled(job.kb_id)  # before the job ends (waiters wait for it)
        except NotFound:
            log.info("document %s was deleted before indexing", job.doc_id)
        finally:
            renewing.set()
            renewer.join()
        if not self._queue.finish(job.doc_id, self.name):
            log.warning("job %s was taken over by another worker meanwhile", job.doc_id)
        elif self._queue.depth(job.kb_id) == 0:  # two last jobs ended together: one settles
            self._ingestion.settled(job.kb_id)  # (a no-op when it is settled already)

    def _renew(self, doc_id: str, done: threading.Event) -> None:
        interval = max(self._settings.lease_s / 3, 0.05)
        while not done.wait(interval):
            try:
                if not self._queue.renew(doc_id, self.name, self._settings.lease_s):
                    log.warning("lost the lease of %s", doc_id)
                    return
            except Exception:
                log.exception("renewing the lease of %s failed", doc_id)

    def _give_up(self, job: ClaimedJob) -> None:
        reason = message("indexing_abandoned", attempts=job.attempts - 1)
        log.error("document %s: %s", job.doc_id, reason.text)
        with contextlib.suppress(NotFound):
            self._ingestion.mark_failed(job.doc_id, reason)
        self._queue.finish(job.doc_id, self.name)
