"""Dual extraction (spec 001): the rules and the scripted LLM both read a chunk; their graphs
are merged (types from the LLM, provenance from both), and a broken LLM leaves the rules' graph."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.settings import LLMSettings
from planrag.ingest.dual_extraction import DualExtractor
from planrag.ingest.extraction import ChunkText, LLMExtractor
from planrag.ingest.rule_extraction import RuleExtractor
from planrag.llm.chat import ChatClient
from planrag.stores import migrations
from planrag.stores.extractions import ExtractionCache
from planrag.stores.graph import ChunkGraph
from planrag.stores.metadata import make_engine
from tests.llm.fake_llm import Reply, Script, serve_llm

TEXT = (
    "한빛로보틱스(Hanbit Robotics)는 2015년에 설립된 로봇 회사이다. "
    "박지은은 한빛로보틱스의 대표이사이다. 박지은은 누리봇 프로젝트를 이끈다."
)
LLM_REPLY = {
    "index": 0,
    "entities": [
        {"name": "Hanbit Robotics", "type": "ORG"},
        {"name": "박지은", "type": "PERSON"},
        {"name": "누리봇", "type": "PRODUCT"},
        {"name": "로봇", "type": "CONCEPT"},
    ],
    "relations": [
        {"source": "Hanbit Robotics", "relation": "founded_in", "target": "2015년"},
        {"source": "박지은", "relation": "is CEO of", "target": "한빛로보틱스"},
        {"source": "박지은", "relation": "LEADS", "target": "누리봇"},
    ],
}


@pytest.fixture
def cache(tmp_path: Path) -> ExtractionCache:
    engine = make_engine(f"sqlite:///{tmp_path / 'm.db'}")
    migrations.upgrade(engine)
    return ExtractionCache(engine)


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def dual(script: Script, cache: ExtractionCache) -> Iterator[DualExtractor]:
    with serve_llm(script) as url:
        chat = ChatClient(LLMSettings(base_url=url, api_key="k", model="test-model"))
        yield DualExtractor(RuleExtractor(), LLMExtractor(chat, cache, timeout_s=1.0))


def rules_only() -> ChunkGraph:
    return RuleExtractor().extract([ChunkText("c", "d", TEXT)])[0]


def triples(graph: ChunkGraph) -> dict[tuple[str, str, str], list[str]]:
    return {(r.source, r.type, r.target): r.extracted_by for r in graph.relations}


def test_rules_and_llm_are_merged(script: Script, dual: DualExtractor) -> None:
    script.replies = [Reply(json.dumps({"chunks": [LLM_REPLY]}, ensure_ascii=False))]
    graph = dual.extract([ChunkText("c", "d", TEXT)])[0]
    assert len(script.requests) == 1 and dual.failures == []
    entities = {e.key: e for e in graph.entities}
    # "Hanbit Robotics" is the rules' 한빛로보틱스 (an alias): one entity, found by both
    company = entities["한빛로보틱스"]
    assert "hanbit_robotics" not in entities
    assert company.type == "ORGANIZATION" and "Hanbit Robotics" in company.aliases
    assert company.extracted_by == ["rule", "llm"]
    # the type comes from the LLM where it gives one (the rules said ORGANIZATION)
    assert entities["누리봇"].type == "PRODUCT"
    assert entities["로봇"].extracted_by == ["llm"]  # a name only the LLM found
    found = triples(graph)
    assert found[("박지은", "CEO_OF", "한빛로보틱스")] == ["rule", "llm"]  # "is CEO of" → CEO_OF
    assert found[("한빛로보틱스", "FOUNDED_IN", "2015년")] == ["rule", "llm"]
    assert found[("박지은", "LEADS", "누리봇")] == ["llm"]
    # the LLM typed the pair the rules only linked by co-occurrence
    assert ("박지은", "related_to", "누리봇") in triples(rules_only())
    assert ("박지은", "related_to", "누리봇") not in found
    ceo = next(r for r in graph.relations if r.type == "CEO_OF")
    assert ceo.sentence == "박지은은 한빛로보틱스의 대표이사이다."
    # a relation only the LLM found keeps the chunk's sentence naming both its ends
    leads = next(r for r in graph.relations if r.type == "LEADS")
    assert leads.sentence == "박지은은 누리봇 프로젝트를 이끈다."
    assert {tuple(r.extracted_by) for r in rules_only().relations} == {("rule",)}


def _same(graph: ChunkGraph, rules: ChunkGraph) -> None:
    assert {(e.key, e.type) for e in graph.entities} == {(e.key, e.type) for e in rules.entities}
    assert set(triples(graph)) == set(triples(rules))


@pytest.mark.parametrize(
    "replies",
    [
        [Reply("not json"), Reply('{"chunks": "no"}')],  # invalid twice
        [Reply(status=500, content="boom")],  # the server fails
        [Reply(json.dumps({"chunks": [LLM_REPLY]}), delay_s=3.0)],  # too slow (timeout 1 s)
    ],
    ids=["invalid", "error", "timeout"],
)
def test_a_broken_llm_leaves_the_rules_graph(
    script: Script, dual: DualExtractor, replies: list[Reply]
) -> None:
    script.replies = list(replies)
    graph = dual.extract([ChunkText("c", "d", TEXT)])[0]
    _same(graph, rules_only())
    assert dual.failures


def test_one_failed_batch_costs_only_its_chunks(script: Script, cache: ExtractionCache) -> None:
    other = "푸른벤처스의 대표는 한지훈이다."
    reply = {"index": 0, "entities": [{"name": "한지훈", "type": "PERSON"}], "relations": []}
    script.replies = [
        Reply("not json"),
        Reply("still not json"),
        Reply(
            json.dumps(
                {"chunks": [{**reply, "entities": [{"name": "벤처캐피털", "type": "CONCEPT"}]}]},
                ensure_ascii=False,
            )
        ),
    ]
    with serve_llm(script) as url:
        chat = ChatClient(LLMSettings(base_url=url, api_key="k", model="test-model"))
        llm = LLMExtractor(chat, cache, batch=1, concurrency=1)
        graphs = DualExtractor(RuleExtractor(), llm).extract(
            [ChunkText("c1", "d", TEXT), ChunkText("c2", "d", other)]
        )
    _same(graphs[0], rules_only())
    assert "벤처캐피털" in {e.key for e in graphs[1].entities}
