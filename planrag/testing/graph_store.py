"""The graph-store conformance suite (haystack's document-store testing pattern): every graph
backend's tests subclass `GraphStoreConformance` unchanged and provide only a `store` fixture
returning a working `GraphStore`. Each test uses knowledge-base ids of its own, so one server can
serve the whole session.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence

import pytest

from planrag.stores.graph import ChunkGraph, Entity, GraphStore, Relation, RelationSource

INJECTIONS = [
    "O'Brien",
    'say "hi"',
    "a } b",
    "x > y",
    "back\\slash",
    "MATCH (n) DETACH DELETE n",
    "} } DROP ALL ; INSERT DATA { <a> <b> <c> }",
    "') RETURN 1 //",
]


def ent(name: str, type_: str = "CONCEPT") -> Entity:
    return Entity(key=name.lower().replace(" ", "_"), name=name, type=type_)


def key(name: str) -> str:
    return ent(name).key


def chunk(
    chunk_id: str, doc_id: str, names: list[str], relations: Sequence[tuple[str, str, str]] = ()
) -> ChunkGraph:
    types = {"Elon Musk": "PERSON", "SpaceX": "ORG", "Tesla": "ORG"}
    return ChunkGraph(
        chunk_id=chunk_id,
        doc_id=doc_id,
        entities=[ent(n, types.get(n, "CONCEPT")) for n in names],
        relations=[Relation(source=key(s), target=key(o), type=t) for s, t, o in relations],
    )


# doc-a: Musk is CEO of SpaceX and Tesla; doc-b: SpaceX builds Starship, 스승 → 제자 (Korean).
CORPUS = [
    chunk("c1", "doc-a", ["Elon Musk", "SpaceX"], [("Elon Musk", "is_CEO_of", "SpaceX")]),
    chunk("c2", "doc-a", ["Elon Musk", "Tesla"], [("Elon Musk", "is_CEO_of", "Tesla")]),
    chunk("c3", "doc-b", ["SpaceX", "Starship"], [("SpaceX", "builds", "Starship")]),
    chunk("c4", "doc-b", ["공자", "안회"], [("공자", "스승", "안회")]),
]


class GraphStoreConformance:
    """Mixin: subclasses provide a `store` fixture (a working GraphStore)."""

    @pytest.fixture
    def kb(self, store: GraphStore) -> Iterator[str]:
        kb_id = f"kb-{uuid.uuid4()}"
        store.create_graph(kb_id)
        yield kb_id
        store.drop_graph(kb_id)

    @pytest.fixture
    def filled(self, store: GraphStore, kb: str) -> str:
        store.add(kb, CORPUS)
        return kb

    def test_is_a_graph_store(self, store: GraphStore) -> None:
        assert isinstance(store, GraphStore)
        assert isinstance(store.backend, str) and store.backend  # its name, e.g. "ontology"

    def test_counts_entities_and_relations(self, store: GraphStore, filled: str) -> None:
        stats = store.stats(filled)
        assert (stats.entities, stats.relations) == (6, 4)
        assert store.doc_ids(filled) == {"doc-a", "doc-b"}

    def test_add_is_idempotent_and_first_name_wins(self, store: GraphStore, filled: str) -> None:
        store.add(filled, CORPUS)
        renamed = ChunkGraph(
            chunk_id="c9",
            doc_id="doc-c",
            entities=[Entity(key=key("SpaceX"), name="SPACEX corp", type="PRODUCT")],
        )
        store.add(filled, [renamed])
        stats = store.stats(filled)
        assert (stats.entities, stats.relations) == (6, 4)
        [info] = store.entities(filled, [key("SpaceX")])
        assert (info.entity.name, info.entity.type) == ("SpaceX", "ORG")
        assert info.sources == 3  # c1, c3, c9

    def test_aliases_accumulate_and_find_their_entity(self, store: GraphStore, filled: str) -> None:
        """Aliases (as written) are kept and read back with the entity; another document adds
        to them; an alias key matches the entity exactly (never a fuzzy look-alike)."""
        musk = Entity(
            key=key("Elon Musk"),
            name="Elon Musk",
            aliases=["일론 머스크"],
            alias_keys=["일론_머스크"],
        )
        store.add(filled, [ChunkGraph(chunk_id="c7", doc_id="doc-c", entities=[musk])])
        more = musk.model_copy(update={"aliases": ["E. Musk"], "alias_keys": ["e_musk"]})
        store.add(filled, [ChunkGraph(chunk_id="c8", doc_id="doc-d", entities=[more])])
        [info] = store.entities(filled, [key("Elon Musk")])
        assert sorted(info.entity.aliases) == ["E. Musk", "일론 머스크"]
        assert store.stats(filled).entities == 6  # no entity per alias
        for alias in ("일론_머스크", "e_musk"):
            [found] = store.match(filled, [alias], fuzzy=False).matches
            assert (found.entity.key, found.entity.name, found.exact) == (
                key("Elon Musk"),
                "Elon Musk",
                True,
            )
        assert store.match(filled, ["일론"], fuzzy=False).matches == []

    def test_exact_then_fuzzy_match(self, store: GraphStore, filled: str) -> None:
        result = store.match(filled, [key("Elon Musk"), "spacex_corporation", "zz-none"])
        found = {(m.query, m.entity.key, m.exact) for m in result.matches}
        assert (key("Elon Musk"), key("Elon Musk"), True) in found
        assert ("spacex_corporation", key("SpaceX"), False) in found
        assert not any(m.query == "zz-none" for m in result.matches)
        assert result.query.text  # the query the backend ran (values as parameters)

    def test_expand_follows_relations_both_ways(self, store: GraphStore, filled: str) -> None:
        edges = store.expand(filled, [key("SpaceX")]).edges
        triples = {(e.source.key, e.type, e.target.key) for e in edges}
        assert triples == {
            (key("Elon Musk"), "is_CEO_of", key("SpaceX")),
            (key("SpaceX"), "builds", key("Starship")),
        }
        musk = next(e.source for e in edges if e.type == "is_CEO_of")
        assert (musk.name, musk.type) == ("Elon Musk", "PERSON")
        korean = store.expand(filled, ["공자"]).edges
        assert [(e.source.name, e.type, e.target.name) for e in korean] == [
            ("공자", "스승", "안회")
        ]

    def test_mentions_name_chunks_and_documents(self, store: GraphStore, filled: str) -> None:
        found = store.mentions(filled, [key("SpaceX"), key("Tesla")]).mentions
        assert {(m.key, m.chunk_id, m.doc_id) for m in found} == {
            (key("SpaceX"), "c1", "doc-a"),
            (key("SpaceX"), "c3", "doc-b"),
            (key("Tesla"), "c2", "doc-a"),
        }

    def test_entity_info_and_most_connected(self, store: GraphStore, filled: str) -> None:
        infos = {i.entity.key: i for i in store.entities(filled, [key("Elon Musk"), "nobody"])}
        assert list(infos) == [key("Elon Musk")]
        assert (infos[key("Elon Musk")].sources, infos[key("Elon Musk")].degree) == (2, 2)
        top = store.top_entities(filled, limit=2)
        assert [i.entity.key for i in top] == [key("Elon Musk"), key("SpaceX")]

    def test_delete_document_removes_its_provenance_and_orphans(
        self, store: GraphStore, filled: str
    ) -> None:
        store.delete_documents(filled, ["doc-a"])
        assert store.doc_ids(filled) == {"doc-b"}
        keys = {i.entity.key for i in store.entities(filled, [ent(n).key for n in NAMES])}
        assert keys == {key("SpaceX"), key("Starship"), "공자", "안회"}  # Musk, Tesla orphaned
        [spacex] = store.entities(filled, [key("SpaceX")])
        assert spacex.sources == 1 and spacex.degree == 1
        assert store.stats(filled).relations == 2
        assert store.match(filled, [key("Elon Musk")]).matches == []

    def test_relation_supported_elsewhere_survives(self, store: GraphStore, filled: str) -> None:
        again = chunk(
            "c5", "doc-c", ["Elon Musk", "SpaceX"], [("Elon Musk", "is_CEO_of", "SpaceX")]
        )
        store.add(filled, [again])
        store.delete_documents(filled, ["doc-a"])
        triples = {
            (e.source.key, e.type, e.target.key)
            for e in store.expand(filled, [key("SpaceX")]).edges
        }
        assert (key("Elon Musk"), "is_CEO_of", key("SpaceX")) in triples
        assert store.stats(filled).entities == 5  # Tesla alone went

    def test_relations_keep_their_sentence_extractors_and_chunk(
        self, store: GraphStore, filled: str
    ) -> None:
        """Spec 001's provenance: per chunk stating a relation, its document, the sentence it
        was read from and the extractors that found it; another document adds a source,
        adding again adds nothing, deleting a document removes only its sources."""
        musk, spacex = key("Elon Musk"), key("SpaceX")
        said = "Elon Musk는 SpaceX의 대표이다 — \"CEO\" } \\ 'x'"

        def stated(chunk_id: str, doc_id: str, sentence: str, by: list[str]) -> ChunkGraph:
            return ChunkGraph(
                chunk_id=chunk_id,
                doc_id=doc_id,
                entities=[ent("Elon Musk", "PERSON"), ent("SpaceX", "ORG")],
                relations=[
                    Relation(
                        source=musk,
                        target=spacex,
                        type="CEO_OF",
                        sentence=sentence,
                        extracted_by=by,
                    )
                ],
            )

        store.add(filled, [stated("p1", "doc-p", said, ["rule", "llm"])])
        store.add(filled, [stated("p2", "doc-q", "SpaceX, led by Elon Musk.", ["llm"])])
        store.add(filled, [stated("p1", "doc-p", said, ["rule", "llm"])])  # idempotent
        wanted = [(musk, "CEO_OF", spacex), (musk, "is_CEO_of", key("Tesla")), ("x", "y", "z")]
        found = {p.triple: p for p in store.provenance(filled, wanted)}
        assert set(found) == set(wanted[:2])  # the graph lacks the third
        ceo = found[(musk, "CEO_OF", spacex)]
        assert [s.model_dump() for s in ceo.sources] == [
            RelationSource(
                chunk_id="p1", doc_id="doc-p", sentence=said, extracted_by=["rule", "llm"]
            ).model_dump(),
            RelationSource(
                chunk_id="p2",
                doc_id="doc-q",
                sentence="SpaceX, led by Elon Musk.",
                extracted_by=["llm"],
            ).model_dump(),
        ]
        assert (ceo.extracted_by, ceo.sentence) == ("both", said)
        [tesla] = found[(musk, "is_CEO_of", key("Tesla"))].sources  # written without any
        assert (tesla.chunk_id, tesla.doc_id, tesla.sentence) == ("c2", "doc-a", "")
        store.delete_documents(filled, ["doc-p"])
        [after] = store.provenance(filled, [(musk, "CEO_OF", spacex)])
        assert [(s.chunk_id, s.extracted_by) for s in after.sources] == [("p2", ["llm"])]
        assert (after.extracted_by, after.sentence) == ("llm", "SpaceX, led by Elon Musk.")
        store.delete_documents(filled, ["doc-q"])
        assert store.provenance(filled, [(musk, "CEO_OF", spacex)]) == []
        assert store.provenance(filled, []) == []

    def test_deleting_a_document_removes_only_the_aliases_it_gave(
        self, store: GraphStore, filled: str
    ) -> None:
        def named(chunk_id: str, doc_id: str, aliases: list[str]) -> ChunkGraph:
            musk = Entity(
                key=key("Elon Musk"),
                name="Elon Musk",
                aliases=aliases,
                alias_keys=[key(a) for a in aliases],
            )
            return ChunkGraph(chunk_id=chunk_id, doc_id=doc_id, entities=[musk])

        store.add(filled, [named("a1", "doc-c", ["일론 머스크"])])
        store.add(filled, [named("a2", "doc-d", ["E. Musk", "일론 머스크"])])
        store.delete_documents(filled, ["doc-d"])
        [info] = store.entities(filled, [key("Elon Musk")])
        assert info.entity.aliases == ["일론 머스크"]  # doc-c gave it too
        assert store.match(filled, [key("E. Musk")], fuzzy=False).matches == []
        [found] = store.match(filled, [key("일론 머스크")], fuzzy=False).matches
        assert found.entity.key == key("Elon Musk")
        store.delete_documents(filled, ["doc-c"])
        [info] = store.entities(filled, [key("Elon Musk")])  # doc-a still names it
        assert info.entity.aliases == [] and info.sources == 2
        assert store.match(filled, [key("일론 머스크")], fuzzy=False).matches == []

    def test_graphs_of_knowledge_bases_are_separate(self, store: GraphStore, filled: str) -> None:
        other = f"kb-{uuid.uuid4()}"
        store.create_graph(other)
        try:
            store.add(other, [chunk("x1", "doc-a", ["Tesla"])])
            store.delete_documents(other, ["doc-a"])
            assert store.stats(other).entities == 0
            assert store.stats(filled).entities == 6
            store.add(other, [chunk("x1", "doc-a", ["Tesla"])])
        finally:
            store.drop_graph(other)
            store.drop_graph(other)  # dropping twice is fine
        assert store.stats(other).entities == 0
        assert store.stats(filled).entities == 6

    def test_injection_strings_are_names_never_query_text(
        self, store: GraphStore, filled: str
    ) -> None:
        names = INJECTIONS
        store.add(
            filled,
            [
                ChunkGraph(
                    chunk_id="inj'\"}>\\",
                    doc_id="doc-'\"}>\\ MATCH (n) DETACH DELETE n",
                    entities=[Entity(key=n, name=n) for n in names],
                    relations=[
                        Relation(source=names[0], target=n, type="related_to") for n in names[1:]
                    ],
                )
            ],
        )
        assert store.stats(filled).entities == 6 + len(names)
        result = store.match(filled, names)
        assert {m.entity.name for m in result.matches if m.exact} == set(names)
        for name in names:
            assert name not in result.query.text
        edges = store.expand(filled, [names[0]]).edges
        assert {e.target.name for e in edges} == set(names[1:])
        mentions = store.mentions(filled, names).mentions
        assert {m.chunk_id for m in mentions} == {"inj'\"}>\\"}
        store.delete_documents(filled, ["doc-'\"}>\\ MATCH (n) DETACH DELETE n"])
        stats = store.stats(filled)
        assert (stats.entities, stats.relations) == (6, 4)  # the rest is intact

    def test_empty_inputs(self, store: GraphStore, kb: str) -> None:
        store.add(kb, [])
        assert store.match(kb, []).matches == []
        assert store.expand(kb, []).edges == []
        assert store.mentions(kb, []).mentions == []
        assert store.entities(kb, []) == []
        assert store.top_entities(kb) == []
        assert store.stats(kb).entities == 0
        store.delete_documents(kb, ["nothing"])


NAMES = ["Elon Musk", "SpaceX", "Tesla", "Starship", "공자", "안회"]
