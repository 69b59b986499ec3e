"""The durable ingestion queue and index version stamps, on SQLite and on PostgreSQL: claims are
exclusive, leases expire and are taken over, finishing needs the lease, and concurrent claimers
never get the same job."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine

from planrag.stores.job_queue import IndexVersions, JobQueue
from planrag.stores.metadata import make_engine
from planrag.stores.migrations import upgrade
from tests.pg import sqlalchemy_url


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Engine:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'queue.db'}"
    else:
        url = sqlalchemy_url(request.getfixturevalue("pg_database"))
    made = make_engine(url)
    upgrade(made)
    return made


def test_claim_is_exclusive_and_in_order(engine: Engine) -> None:
    queue = JobQueue(engine)
    for i in range(3):
        queue.enqueue(f"doc{i}", "kb")
    queue.enqueue("doc0", "kb")  # queued twice: one job
    assert queue.depth() == 3
    first = queue.claim("w1", lease_s=60)
    second = queue.claim("w2", lease_s=60)
    assert (first.doc_id, second.doc_id) == ("doc0", "doc1")
    assert first.attempts == 1
    assert not queue.finish("doc0", "w2")  # not w2's lease
    assert queue.finish("doc0", "w1")
    assert queue.depth() == 2
    assert queue.claim("w3", lease_s=60).doc_id == "doc2"
    assert queue.claim("w3", lease_s=60) is None  # doc1 is still leased by w2


def test_an_expired_lease_is_taken_over(engine: Engine) -> None:
    queue = JobQueue(engine)
    queue.enqueue("doc", "kb")
    assert queue.claim("dead-worker", lease_s=0.05).doc_id == "doc"
    deadline = time.monotonic() + 10
    taken = None
    while taken is None and time.monotonic() < deadline:
        taken = queue.claim("survivor", lease_s=60)
    assert taken is not None and taken.doc_id == "doc" and taken.attempts == 2
    assert not queue.renew("doc", "dead-worker", 60)  # the dead worker lost it
    assert not queue.finish("doc", "dead-worker")
    assert queue.renew("doc", "survivor", 60)
    assert queue.finish("doc", "survivor")
    assert queue.depth() == 0


def test_release_returns_jobs_to_the_queue(engine: Engine) -> None:
    queue = JobQueue(engine)
    queue.enqueue("doc", "kb")
    queue.claim("stopping", lease_s=600)
    assert queue.claim("other", lease_s=60) is None
    assert queue.release("stopping") == 1
    assert queue.claim("other", lease_s=60).doc_id == "doc"


def test_concurrent_claimers_never_share_a_job(engine: Engine) -> None:
    queue = JobQueue(engine)
    for i in range(40):
        queue.enqueue(f"doc{i:02d}", "kb")
    claimed: list[str] = []
    lock = threading.Lock()

    def work(owner: str) -> None:
        while True:
            job = queue.claim(owner, lease_s=60)
            if job is None:
                if queue.depth() == 0:
                    return
                continue
            with lock:
                claimed.append(job.doc_id)
            assert queue.finish(job.doc_id, owner)

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(claimed) == [f"doc{i:02d}" for i in range(40)]


def test_index_versions_are_shared_counters(engine: Engine) -> None:
    one, other = IndexVersions(engine, "lexical"), IndexVersions(engine, "lexical")
    assert one.get("kb") == 0
    assert one.bump("kb") == 1
    assert other.get("kb") == 1
    assert other.bump("kb") == 2
    assert IndexVersions(engine, "graph").get("kb") == 0
    one.forget("kb")
    assert other.get("kb") == 0
