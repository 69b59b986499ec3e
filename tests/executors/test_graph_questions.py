"""Graph search reads the question with the scripted LLM when one is configured (entities, hops,
relation words), and with the rules when the LLM answers invalidly, names what the question does
not say, fails or times out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.settings import LLMSettings, Settings
from planrag.executors.graph import GraphExecutor
from planrag.executors.graph_questions import LLMQuestionReader, rule_reading
from planrag.executors.graph_search import GraphSearch
from planrag.llm.chat import ChatClient
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.stores.graph import ChunkGraph, Entity, Relation
from planrag.stores.ontology import OntologyGraphStore
from planrag.stores.sparql import EmbeddedSparql
from tests.llm.fake_llm import Reply, Script, serve_llm

# lower case: the rules find no name in it (no capitalised span, no Korean proper noun)
QUESTION = "who is the ceo of spacex, and which rocket does it build?"


def reading(entities: list[str], multi_hop: bool = True, hops: int = 3) -> Reply:
    body = {
        "entities": entities,
        "multi_hop": multi_hop,
        "hops": hops,
        "relation_hints": ["ceo", "build"],
    }
    return Reply(json.dumps(body))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[OntologyGraphStore]:
    store = OntologyGraphStore(EmbeddedSparql(tmp_path / "g"))
    musk, spacex, ship = (
        Entity(key="elon_musk", name="Elon Musk", type="PERSON"),
        Entity(key="spacex", name="SpaceX", type="ORGANIZATION"),
        Entity(key="starship", name="Starship", type="PRODUCT"),
    )
    store.add(
        "kb",
        [
            ChunkGraph(
                chunk_id="c1",
                doc_id="d1",
                entities=[musk, spacex],
                relations=[Relation(source="elon_musk", target="spacex", type="CEO_OF")],
            ),
            ChunkGraph(
                chunk_id="c2",
                doc_id="d2",
                entities=[spacex, ship],
                relations=[Relation(source="spacex", target="starship", type="PRODUCES")],
            ),
        ],
    )
    yield store
    store.close()


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def reader(script: Script) -> Iterator[LLMQuestionReader]:
    with serve_llm(script) as url:
        chat = ChatClient(LLMSettings(base_url=url, api_key="k", model="m", timeout_s=1.0))
        yield LLMQuestionReader(chat)


def test_the_rules_alone_find_no_entity(store: OntologyGraphStore) -> None:
    result = GraphSearch(store, "ontology").search("kb", QUESTION, hops=1, limit=10)
    assert result.metadata.fallback and result.metadata.analysis.source == "rules"
    assert result.metadata.fallback_reason == "no entity found in the question"


def test_the_llm_reads_entities_hops_and_relation_words(
    store: OntologyGraphStore, script: Script, reader: LLMQuestionReader
) -> None:
    script.replies = [reading(["SpaceX"])]
    result = GraphSearch(store, "ontology", reader=reader).search("kb", QUESTION, 1, 10)
    meta = result.metadata
    assert meta.analysis.source == "llm" and meta.analysis.fallback_reason is None
    assert meta.extracted_entities[0] == "SpaceX"
    assert [m.entity for m in meta.matched_entities] == ["SpaceX"]
    assert meta.analysis.hops == 3 and meta.analysis.multi_hop  # widened from the request's 1
    assert meta.analysis.relation_hints[:2] == ["ceo", "build"]
    assert {"Elon Musk", "Starship"} <= set(meta.expanded_entities)
    assert {h.chunk_id for h in result.hits} == {"c1", "c2"}
    request = script.requests[0]
    assert request["response_format"]["type"] == "json_schema"
    assert request["messages"][-1]["content"] == QUESTION
    # a question is read once: the second search asks nothing
    GraphSearch(store, "ontology", reader=reader).search("kb", QUESTION, 1, 10)
    assert len(script.requests) == 1


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        ([Reply("not json"), Reply('{"entities": 3}')], "validation error"),
        ([reading(["Elon Musk"]), reading(["Gwynne Shotwell"])], "written in the question"),
        ([Reply(status=500, content="boom")], "LLM request failed"),
        ([Reply(json.dumps({}), delay_s=3.0)], "LLM request failed"),
    ],
    ids=["invalid", "not-in-question", "error", "timeout"],
)
def test_a_failed_llm_reading_falls_back_to_the_rules(
    store: OntologyGraphStore,
    script: Script,
    reader: LLMQuestionReader,
    replies: list[Reply],
    reason: str,
) -> None:
    script.replies = list(replies)
    question = "Who is the CEO of SpaceX?"  # the rules find SpaceX
    result = GraphSearch(store, "ontology", reader=reader).search("kb", question, 2, 10)
    meta = result.metadata
    assert meta.analysis.source == "fallback"
    assert meta.analysis.fallback_reason and reason in meta.analysis.fallback_reason
    assert meta.extracted_entities == rule_reading(question, 2).names
    assert meta.analysis.hops == 2
    assert [m.entity for m in meta.matched_entities] == ["SpaceX"]  # the search still runs
    if reason == "written in the question":  # retried once with the error fed back
        assert len(script.requests) == 2
        assert "rejected" in script.requests[1]["messages"][-1]["content"]


def test_the_runtime_reads_questions_with_the_llm_when_configured(
    settings: Settings, embedders: EmbedderRegistry
) -> None:
    settings.llm.base_url, settings.llm.model = "http://127.0.0.1:9", "m"
    for choice, expected in (("auto", LLMQuestionReader), ("rule", type(rule_reading))):
        settings.graph.question_analysis = choice  # type: ignore[assignment]
        rt = Runtime.open(settings, embedders)
        try:
            step = rt.executors.get("hybrid", graph_hops=2)
            assert isinstance(step, GraphExecutor) and isinstance(step.reader, expected)
        finally:
            rt.close()
