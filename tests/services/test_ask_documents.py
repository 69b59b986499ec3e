"""Ask without an LLM on a dated knowledge base (real stores, real model): questions that name a
period but no topic list the documents of that period; a limit counts documents, not chunks, and
the answer gives each its line; unrelated questions say plainly that nothing relevant was found."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.settings import Settings
from planrag.core.types import ChunkingConfig, DocumentMetadata
from planrag.runtime import Runtime
from planrag.services.answers import no_evidence_reply
from planrag.services.ask_requests import AskOutcome, AskRequest
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate

NOW = "2025-11-21T10:00:00+09:00"
YESTERDAY = [  # five articles of 2025-11-20, none of which says "기사"
    ("y1.md", "서울 지하철 요금이 다음 달부터 150원 오른다. 시는 적자 때문이라고 밝혔다."),
    ("y2.md", "한국은행이 기준금리를 연 3.0%로 동결했다. 물가 상승세가 둔화됐다는 판단이다."),
    ("y3.md", "프로야구 한국시리즈에서 LG가 우승했다. 관중 2만 명이 경기장을 찾았다."),
    ("y4.md", "첫눈이 강원 산간에 내렸다. 기상청은 주말까지 추위가 이어진다고 예보했다."),
    ("y5.md", "국회가 내년 예산안 심사를 시작했다. 여야는 복지 예산을 두고 맞섰다."),
]
# Three long articles on one topic: several chunks each (chunk_size 80).
CHIPS = [
    (
        f"chips{i}.md",
        f"# 반도체 동향 {i}\n\n반도체 수출이 {i}개월 연속 늘었다. 메모리 반도체 가격이 상승했다. "
        f"업계는 반도체 호황이 이어질 것으로 본다. 반도체 장비 투자도 {i}조 원 늘었다. "
        "정부는 반도체 지원 예산을 늘리기로 했다.",
    )
    for i in (1, 2, 3)
]


@pytest.fixture(scope="module")
def world(tmp_path_factory, embedders) -> Iterator[Runtime]:  # type: ignore[no-untyped-def]
    settings = Settings(_env_file=None, data_dir=Path(tmp_path_factory.mktemp("askdocs")))  # type: ignore[call-arg]
    runtime = Runtime.open(settings, embedders)
    chunking = ChunkingConfig(chunk_size=80, chunk_overlap=0)
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="news", chunking=chunking))
    ids = []
    dated = [(f, t, "2025-11-20") for f, t in YESTERDAY]
    dated += [(f, t, f"2025-10-0{i}") for i, (f, t) in enumerate(CHIPS, start=1)]
    for filename, text, day in dated:
        meta = DocumentMetadata(date=day, title=filename.removesuffix(".md"))
        item = UploadItem(filename=filename, data=text.encode())
        ids.append(runtime.ingestion.upload(kb.id, [item], meta, background=False)[0].id)
    runtime.ingestion.index_many(ids)
    yield runtime
    runtime.close()


def ask(runtime: Runtime, question: str) -> AskOutcome:
    request = AskRequest(question=question, now=NOW)  # type: ignore[arg-type]
    outcome = runtime.ask.run(request, runtime.metadata.list_kbs())
    assert outcome.error is None, outcome.error
    return outcome


def test_a_period_without_a_topic_lists_that_periods_documents(world: Runtime) -> None:
    outcome = ask(world, "어제 나온 기사 알려줘")
    assert outcome.envelope is not None and outcome.envelope.plan.listing
    assert {p.title for p in outcome.passages} == {f.removesuffix(".md") for f, _ in YESTERDAY}
    assert {p.date for p in outcome.passages} == {"2025-11-20"}
    lines = outcome.answer.splitlines()
    assert len(lines) == 5 and all(f"[{n}]" in lines[n - 1] for n in range(1, 6))
    assert outcome.answer_source == "extractive"


def test_a_listing_takes_its_limit(world: Runtime) -> None:
    outcome = ask(world, "어제 올라온 글 2개만 보여줘")
    assert outcome.envelope is not None and outcome.envelope.plan.listing
    assert len({p.doc_id for p in outcome.passages}) == len(outcome.passages) == 2


def test_a_topic_is_searched_not_listed(world: Runtime) -> None:
    outcome = ask(world, "어제 지하철 요금 기사 알려줘")
    assert outcome.envelope is not None and not outcome.envelope.plan.listing
    assert outcome.passages[0].title == "y1"


def test_a_limit_counts_documents_and_the_answer_covers_each(world: Runtime) -> None:
    chips = [d for d in world.metadata.list_documents() if d.filename.startswith("chips")]
    assert all(len(world.metadata.list_chunks(d.id)) >= 2 for d in chips)  # several chunks each
    outcome = ask(world, "반도체 수출 기사 2개만 알려줘")
    docs = [p.doc_id for p in outcome.passages]
    assert len(docs) == len(set(docs)) == 2
    lines = outcome.answer.splitlines()
    assert len(lines) == 2 and "[1]" in lines[0] and "[2]" in lines[1]
    assert "#" not in outcome.answer and "반도체" in outcome.answer


def test_nothing_relevant_is_said_plainly(world: Runtime) -> None:
    outcome = ask(world, "고양이 사료 가격 알려줘")
    assert outcome.answer_source == "none"
    assert outcome.answer == no_evidence_reply("고양이 사료 가격 알려줘")
