"""Filters that leave no document are dropped one at a time, the least certain first, each step
reported; counted by the real catalog on a real (SQLite) metadata DB."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planrag.core.settings import LLMSettings, PlannerSettings
from planrag.core.types import DocumentMetadata, KnowledgeBase
from planrag.llm.chat import ChatClient
from planrag.planner.planner import Planner
from planrag.planner.scope import KbInfo, PlanScope
from planrag.services.ask import document_counter
from planrag.stores import migrations
from planrag.stores.catalog import Catalog
from planrag.stores.metadata import MetadataStore, make_engine

NOW = datetime.fromisoformat("2025-11-21T10:00:00+09:00")
DOCS = [  # filename, author, domain, date
    ("m1.md", "김민수", "회의", "2025-11-10"),
    ("m2.md", "김민수", "회의", "2025-11-14"),
    ("h1.md", "이영희", "인사", "2025-11-20"),
    ("f1.md", "이영희", "재무", "2024-03-02"),
]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Catalog]:
    engine = make_engine(f"sqlite:///{Path(tmp_path_factory.mktemp('relax')) / 'meta.db'}")
    migrations.upgrade(engine)
    store = MetadataStore(engine)
    now = datetime.now(UTC)
    store.create_kb(
        KnowledgeBase(
            id="kb1",
            name="team",
            embedding_model="m",
            embedding_dim=4,
            created_at=now,
            updated_at=now,
        )
    )
    for name, author, domain, day in DOCS:
        meta = DocumentMetadata(author=author, domain=domain, date=day, title=name)
        store.add_document("kb1", name, "md", 10, f"hash-{name}", meta)
    yield Catalog(engine)
    engine.dispose()


def plan(catalog: Catalog, question: str):  # type: ignore[no-untyped-def]
    facets = catalog.facets("kb1")
    scope = PlanScope(
        knowledge_bases=[KbInfo(id="kb1", name="team", facets=facets)],
        strategies=["hybrid"],
        now=NOW,
    )
    planner = Planner(
        PlannerSettings(), LLMSettings(), ChatClient(LLMSettings()), document_counter(catalog)
    )
    return planner.plan(question, scope)


def test_the_date_goes_first_and_the_author_stays(catalog: Catalog) -> None:
    envelope = plan(catalog, "어제 김민수가 쓴 회의록")
    assert envelope.plan.filters.authors == ["김민수"]
    assert envelope.plan.filters.time is None
    relaxed = envelope.relaxed
    assert relaxed is not None
    assert [(s.filter, s.documents) for s in relaxed.steps] == [("time", 2)]
    assert relaxed.dropped.time is not None and relaxed.dropped.time.from_ == "2025-11-20"
    assert relaxed.dropped.authors == []
    assert "2025-11-20" in relaxed.reason and "2 documents" in relaxed.reason


def test_a_domain_goes_before_an_author(catalog: Catalog) -> None:
    envelope = plan(catalog, "김민수가 쓴 재무 문서")
    assert envelope.plan.filters.authors == ["김민수"]
    assert envelope.plan.filters.domains == []
    assert [(s.filter, s.documents) for s in envelope.relaxed.steps] == [("domains", 2)]


def test_only_the_filter_that_empties_the_result_goes(catalog: Catalog) -> None:
    envelope = plan(catalog, "지난주 김민수의 인사 문서")  # 김민수 wrote last week, never on 인사
    assert [(s.filter, s.documents) for s in envelope.relaxed.steps] == [("domains", 2)]
    assert envelope.plan.filters.authors == ["김민수"]
    assert envelope.plan.filters.time is not None  # dropping it alone would not have helped


def test_one_at_a_time_until_a_document_remains(catalog: Catalog) -> None:
    envelope = plan(catalog, "어제 김민수의 재무 문서")  # no single filter's absence is enough
    steps = [(s.filter, s.documents) for s in envelope.relaxed.steps]
    assert steps == [("time", 0), ("domains", 2)]
    assert envelope.plan.filters.authors == ["김민수"]


def test_filters_that_match_are_kept(catalog: Catalog) -> None:
    envelope = plan(catalog, "어제 이영희가 쓴 인사 공지")
    assert envelope.relaxed is None
    assert envelope.plan.filters.authors == ["이영희"]
    assert envelope.plan.filters.time is not None
