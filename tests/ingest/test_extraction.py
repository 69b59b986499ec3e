"""Graph extraction: the rule extractor's entities and relations, and the LLM extractor against
the scripted LLM (structured output, one retry, batching, the cache by chunk text)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.core.settings import LLMSettings
from planrag.ingest.extraction import (
    ChunkText,
    GraphExtractionFailed,
    LLMExtractor,
)
from planrag.ingest.rule_extraction import RuleExtractor
from planrag.llm.chat import ChatClient
from planrag.stores import migrations
from planrag.stores.extractions import ExtractionCache
from planrag.stores.metadata import make_engine
from tests.llm.fake_llm import Reply, Script, serve_llm


def triples(text: str) -> set[tuple[str, str, str]]:
    graph = RuleExtractor().extract([ChunkText("c", "d", text)])[0]
    return {(r.source, r.type, r.target) for r in graph.relations}


def test_rule_extractor_korean_patterns() -> None:
    assert ("일론_머스크", "CEO_OF", "spacex") in triples("일론 머스크는 SpaceX의 CEO이다.")
    assert ("일론_머스크", "FOUNDED", "테슬라") in triples("테슬라의 창업자는 일론 머스크다.")
    # no pattern for a pupil: co-occurrence, never a cut-off word as the relation type
    assert triples("공자의 제자 안회는 노나라 사람이다.") <= {
        (s, "related_to", t) for s in ("공자", "안회", "노나라") for t in ("공자", "안회", "노나라")
    }


def test_rule_extractor_english_patterns_and_cooccurrence() -> None:
    found = triples("Elon Musk, CEO of SpaceX, met Tim Cook. Steve Jobs founded Apple.")
    assert ("elon_musk", "CEO_OF", "spacex") in found
    assert ("elon_musk", "related_to", "tim_cook") in found
    assert ("steve_jobs", "FOUNDED", "apple") in found
    assert not any("apple" in t and "tim_cook" in t for t in found)  # other sentence


def test_rule_extractor_keeps_first_spelling_and_reports_progress() -> None:
    seen: list[tuple[int, int]] = []
    chunks = [ChunkText(f"c{i}", "d", "일론 머스크가 왔다. 일론 머스크는 갔다.") for i in range(3)]
    graphs = RuleExtractor().extract(chunks, lambda done, total: seen.append((done, total)))
    assert [[e.name for e in g.entities] for g in graphs] == [["일론 머스크"]] * 3
    assert seen[-1] == (3, 3)


def extraction(*chunks: dict) -> str:
    return json.dumps({"chunks": list(chunks)}, ensure_ascii=False)


MUSK = {
    "index": 0,
    "entities": [{"name": "일론 머스크가", "type": "PERSON"}, {"name": "SpaceX", "type": "ORG"}],
    "relations": [{"source": "일론 머스크", "relation": "is CEO of", "target": "SpaceX"}],
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
def chat(script: Script) -> Iterator[ChatClient]:
    with serve_llm(script) as url:
        yield ChatClient(LLMSettings(base_url=url, api_key="k", model="test-model"))


def test_llm_extractor_normalises_and_caches(
    script: Script, chat: ChatClient, cache: ExtractionCache
) -> None:
    script.replies = [Reply(extraction(MUSK, {**MUSK, "index": 1, "relations": []}))]
    chunks = [ChunkText("c1", "d", "일론 머스크는 SpaceX의 CEO"), ChunkText("c2", "d", "other")]
    extractor = LLMExtractor(chat, cache, batch=2)
    graphs = extractor.extract(chunks)
    assert [(e.key, e.name, e.type) for e in graphs[0].entities] == [
        ("일론_머스크", "일론 머스크", "PERSON"),
        ("spacex", "SpaceX", "ORGANIZATION"),  # the LLM's ORG in our vocabulary
    ]
    assert [(r.source, r.type, r.target) for r in graphs[0].relations] == [
        ("일론_머스크", "CEO_OF", "spacex")  # "is CEO of" in the rules' spelling
    ]
    assert len(script.requests) == 1
    request = script.requests[0]
    assert request["response_format"]["type"] == "json_schema"
    assert "[0] 일론 머스크는" in request["messages"][1]["content"]
    again = extractor.extract([ChunkText("c9", "d2", "일론 머스크는 SpaceX의 CEO")])
    assert len(script.requests) == 1  # identical text: from the cache, no LLM call
    assert again[0].chunk_id == "c9" and len(again[0].relations) == 1


def test_llm_extractor_batches_and_retries_once(
    script: Script, chat: ChatClient, cache: ExtractionCache
) -> None:
    script.replies = [
        Reply('{"chunks": [{"index": 7}]}'),  # an index no passage has: retried
        Reply(extraction(MUSK)),
        Reply(extraction(MUSK)),
    ]
    chunks = [ChunkText(f"c{i}", "d", f"text {i}") for i in range(3)]
    graphs = LLMExtractor(chat, cache, batch=2, concurrency=1).extract(chunks)
    assert len(script.requests) == 3
    assert "rejected" in script.requests[1]["messages"][-1]["content"]
    assert [len(g.entities) for g in graphs] == [2, 0, 2]


def test_llm_extractor_gives_up_after_two_invalid_replies(
    script: Script, chat: ChatClient, cache: ExtractionCache
) -> None:
    script.replies = [Reply("not json"), Reply('{"chunks": "no"}')]
    with pytest.raises(GraphExtractionFailed):
        LLMExtractor(chat, cache).extract([ChunkText("c", "d", "x")])


def test_an_english_sentence_with_many_names_links_neighbours() -> None:
    """Past six names a sentence links neighbours only (the last name has none after it)."""
    names = [
        "Alice Moss",
        "Bob Hart",
        "Carl Dane",
        "Dora Fitch",
        "Ezra Gale",
        "Fay Hume",
        "Gus Ives",
    ]
    found = triples(f"{', '.join(names[:-1])} and {names[-1]} met in Paris on Monday.")
    keys = [n.lower().replace(" ", "_") for n in names]
    assert {(a, b) for a, _, b in found} >= set(zip(keys, keys[1:], strict=False))


def test_a_name_in_brackets_does_not_break_the_pattern() -> None:
    """ "박지은(Park Ji-eun)은 X의 대표이사이다" reads as "박지은은 …": CEO_OF, the bracket an
    alias."""
    text = (
        "한빛로보틱스(Hanbit Robotics)는 로봇 회사이다. "
        "박지은(Park Ji-eun)은 한빛로보틱스의 대표이사이다."
    )
    graph = RuleExtractor().extract([ChunkText("c", "d", text)])[0]
    assert ("박지은", "CEO_OF", "한빛로보틱스") in {
        (r.source, r.type, r.target) for r in graph.relations
    }
    assert {e.key: e.aliases for e in graph.entities}["박지은"] == ["Park Ji-eun"]
