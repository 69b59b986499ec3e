"""Graph indexing end to end on both backends: a document's entities and relations are written
with its indexing and removed with it; a KB's graph goes with the KB; extraction failures."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from planrag.core.errors import InvalidInput
from planrag.core.messages import Message
from planrag.core.settings import Settings
from planrag.core.types import DocumentStatus
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from tests.graph_servers import BoltServer
from tests.llm.fake_llm import Reply, Script, serve_llm

MUSK = (
    "일론 머스크는 SpaceX의 CEO이다. SpaceX는 Starship을 만든다.\n\n"
    "Elon Musk, CEO of Tesla, met Tim Cook in California."
)
OTHER = "공자의 제자 안회는 노나라 사람이다. SpaceX는 로켓 회사다."


@pytest.fixture(params=["ontology", "neo4j"])
def graph_runtime(
    request: pytest.FixtureRequest, settings: Settings, embedders: EmbedderRegistry
) -> Iterator[tuple[Runtime, str]]:
    if request.param == "neo4j":
        bolt: BoltServer = request.getfixturevalue("bolt_server")
        settings.neo4j.uri, settings.neo4j.user = bolt.uri, bolt.user
        settings.neo4j.password, settings.neo4j.database = bolt.password, bolt.database
    rt = Runtime.open(settings, embedders)
    yield rt, request.param
    rt.close()


def upload(rt: Runtime, kb_id: str, name: str, text: str) -> str:
    doc = rt.ingestion.upload(
        kb_id, [UploadItem(filename=name, data=text.encode())], background=False
    )[0]
    done = rt.ingestion.index(doc.id)
    assert done.status == DocumentStatus.completed, done.error
    assert done.progress is None
    return doc.id


def test_documents_bring_and_take_their_graph(graph_runtime: tuple[Runtime, str]) -> None:
    rt, backend = graph_runtime
    kb = rt.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend=backend))
    assert kb.graph.backend == backend and kb.graph.entities == 0
    first = upload(rt, kb.id, "musk.txt", MUSK)
    second = upload(rt, kb.id, "other.txt", OTHER)
    store = rt.graphs.get(backend)
    view = rt.knowledge_bases.get(kb.id)
    assert view.graph.entities >= 8 and view.graph.relations >= 4
    edges = store.expand(kb.id, ["일론_머스크"]).edges
    assert ("일론_머스크", "CEO_OF", "spacex") in {
        (e.source.key, e.type, e.target.key) for e in edges
    }
    assert {m.doc_id for m in store.mentions(kb.id, ["spacex"]).mentions} == {first, second}

    rt.ingestion.delete(kb.id, first)
    assert store.doc_ids(kb.id) == {second}
    assert store.match(kb.id, ["일론_머스크"]).matches == []
    assert [m.doc_id for m in store.mentions(kb.id, ["spacex"]).mentions] == [second]

    rt.knowledge_bases.delete(kb.id)
    assert store.stats(kb.id).entities == 0


def test_recovery_sweeps_the_graph_of_deleted_documents(graph_runtime: tuple[Runtime, str]) -> None:
    rt, backend = graph_runtime
    kb = rt.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend=backend))
    doc = upload(rt, kb.id, "musk.txt", MUSK)
    rt.metadata.delete_document(doc)  # as a crash in the middle of a delete leaves it
    rt.ingestion.recover()
    assert rt.graphs.get(backend).stats(kb.id).entities == 0


def test_neo4j_needs_a_uri(runtime: Runtime) -> None:
    with pytest.raises(InvalidInput, match="PLANRAG_NEO4J__URI"):
        runtime.knowledge_bases.create(KnowledgeBaseCreate(name="n", graph_backend="neo4j"))


@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_failed_extraction_fails_or_skips_the_graph(
    on_error: str, settings: Settings, embedders: EmbedderRegistry
) -> None:
    script = Script(replies=[Reply(status=500, content="boom")] * 4)
    with serve_llm(script) as url:
        settings.llm.base_url, settings.llm.model = url, "test-model"
        settings.llm.calibration_questions = False  # the script is the extraction's
        settings.graph.extractor, settings.graph.on_error = "llm", on_error  # type: ignore[assignment]
        rt = Runtime.open(settings, embedders)
        try:
            kb = rt.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend="ontology"))
            doc = rt.ingestion.upload(
                kb.id, [UploadItem(filename="m.txt", data=MUSK.encode())], background=False
            )[0]
            done = rt.ingestion.index(doc.id)
            if on_error == "fail":
                assert done.status == DocumentStatus.error
                assert done.error and "graph extraction failed" in done.error
            else:
                assert done.status == DocumentStatus.completed
                assert done.progress and done.progress.startswith("indexed without graph")
                detail = done.progress_detail
                assert detail and detail.code == "graph_skipped" and detail.params["reason"]
            assert rt.graphs.get("ontology").stats(kb.id).entities == 0
        finally:
            rt.close()


def test_progress_is_shown_while_extracting(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend="ontology"))
    doc = runtime.ingestion.upload(
        kb.id, [UploadItem(filename="m.txt", data=MUSK.encode())], background=False
    )[0]
    seen: list[Message | None] = []
    original = runtime.metadata.set_progress

    def spy(doc_id: str, progress: Message | None) -> None:
        seen.append(progress)
        original(doc_id, progress)

    runtime.metadata.set_progress = spy  # type: ignore[method-assign]
    runtime.ingestion.index(doc.id)
    extracting = [p for p in seen if p and p.text.startswith("graph: extracting 1/1 chunks")]
    assert extracting and extracting[0].code == "graph_extracting"
    assert {"done": 1, "total": 1}.items() <= extracting[0].params.items()
    assert any(p and p.code == "graph_writing" and "mentions" in p.params for p in seen)
    assert seen[-1] is None


DUAL = "박지은은 한빛로보틱스의 대표이사이다. 박지은은 누리봇 프로젝트를 이끈다."
DUAL_REPLY = {
    "chunks": [
        {
            "index": 0,
            "entities": [{"name": "누리봇", "type": "PRODUCT"}],
            "relations": [{"source": "박지은", "relation": "LEADS", "target": "누리봇"}],
        }
    ]
}


@pytest.mark.parametrize("llm_works", [True, False], ids=["llm", "broken-llm"])
def test_with_an_llm_rules_and_llm_both_extract(
    llm_works: bool, settings: Settings, embedders: EmbedderRegistry
) -> None:
    """auto with an LLM configured: dual extraction; a broken LLM answer leaves the rules'
    graph and the document indexes (never a failure)."""
    good = Reply(json.dumps(DUAL_REPLY, ensure_ascii=False))
    script = Script(replies=[good] if llm_works else [Reply("{broken"), Reply("[]")])
    with serve_llm(script) as url:
        settings.llm.base_url, settings.llm.model = url, "test-model"
        settings.llm.calibration_questions = False  # the script is the extraction's
        settings.graph.extractor, settings.graph.on_error = "auto", "fail"
        rt = Runtime.open(settings, embedders)
        try:
            kb = rt.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend="ontology"))
            upload(rt, kb.id, "dual.txt", DUAL)
            store = rt.graphs.get("ontology")
            edges = {
                (e.source.key, e.type, e.target.key) for e in store.expand(kb.id, ["박지은"]).edges
            }
            assert ("박지은", "CEO_OF", "한빛로보틱스") in edges  # the rules' relation either way
            assert (("박지은", "LEADS", "누리봇") in edges) is llm_works
            assert len(script.requests) == (1 if llm_works else 2)
            product = store.entities(kb.id, ["누리봇"])[0].entity
            assert (product.type == "PRODUCT") is llm_works
        finally:
            rt.close()


KO_FIRST = "한빛로보틱스(Hanbit Robotics)는 물류 로봇을 만드는 회사이다."
EN_LATER = "Park Ji-eun is the CEO of Hanbit Robotics. Hanbit Robotics builds robots in Daejeon."


@pytest.mark.parametrize("korean_first", [True, False], ids=["ko-then-en", "en-then-ko"])
def test_one_entity_per_thing_across_documents(
    graph_runtime: tuple[Runtime, str], korean_first: bool
) -> None:
    """A name one document gives in brackets is the same entity in another document, in either
    order: one entity, mentioned by both documents, carrying the other name as an alias, and
    found by either name."""
    rt, backend = graph_runtime
    kb = rt.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend=backend))
    order = [("ko.txt", KO_FIRST), ("en.txt", EN_LATER)]
    docs = [upload(rt, kb.id, name, text) for name, text in order[:: 1 if korean_first else -1]]
    store = rt.graphs.get(backend)
    owner, other = ("한빛로보틱스", "hanbit_robotics")
    if not korean_first:
        owner, other = other, owner
    assert store.entities(kb.id, [other]) == []  # no second entity
    [info] = store.entities(kb.id, [owner])
    assert {"한빛로보틱스", "Hanbit Robotics"} - {info.entity.name} <= set(info.entity.aliases)
    assert info.entity.type == "ORGANIZATION"
    assert {m.doc_id for m in store.mentions(kb.id, [owner]).mentions} == set(docs)
    edges = {(e.source.key, e.type, e.target.key) for e in store.expand(kb.id, [owner]).edges}
    assert ("park_ji_eun", "CEO_OF", owner) in edges  # the English document's relation
    [found] = store.match(kb.id, [other]).matches  # the other name finds it
    assert found.entity.key == owner and found.exact


FULL_NAMES = (
    "최민호 수석연구원은 한빛로보틱스 자율주행팀 소속이다. "
    "한빛로보틱스의 대표이사는 김도윤이다. 김도윤은 한결대학교를 졸업했다."
)
SHORT_NAMES = (
    "최민 수석은 자율주행팀에서 라이다를 맡았다. 김 대표는 한빛로보틱스의 성장을 이끌었다."
)


def test_a_short_name_in_another_document_is_the_one_person_it_can_be(
    graph_runtime: tuple[Runtime, str],
) -> None:
    """ "최민 수석" and "김 대표" in a later document are 최민호 and 김도윤: exactly one full name
    of the KB extends each, and the context agrees (자율주행팀, 한빛로보틱스 are related to them).
    The short forms are recorded as aliases, and deleting the document takes them away."""
    rt, backend = graph_runtime
    kb = rt.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend=backend))
    upload(rt, kb.id, "people.txt", FULL_NAMES)
    later = upload(rt, kb.id, "later.txt", SHORT_NAMES)
    store = rt.graphs.get(backend)
    assert store.entities(kb.id, ["최민", "김_대표"]) == []  # no entity of their own
    infos = {i.entity.key: i for i in store.entities(kb.id, ["최민호", "김도윤"])}
    assert "최민" in infos["최민호"].entity.aliases
    assert "김 대표" in infos["김도윤"].entity.aliases
    assert {m.doc_id for m in store.mentions(kb.id, ["최민호", "김도윤"]).mentions} >= {later}
    [found] = store.match(kb.id, ["최민"], fuzzy=False).matches
    assert found.entity.key == "최민호"
    rt.ingestion.delete(kb.id, later)
    infos = {i.entity.key: i for i in store.entities(kb.id, ["최민호", "김도윤"])}
    assert infos["최민호"].entity.aliases == [] and infos["김도윤"].entity.aliases == []


@pytest.mark.parametrize(
    ("other", "why"),
    [
        ("최민수는 한빛로보틱스 자율주행팀 연구원이다. 김서준은 한빛로보틱스의 고문이다.", "two"),
        ("최민 수석은 부산에서 강연했다. 김 대표는 서울에서 강연했다.", "context"),
    ],
    ids=["two-full-names", "no-shared-context"],
)
def test_an_ambiguous_short_name_is_never_merged(runtime: Runtime, other: str, why: str) -> None:
    """Two full names extending the short form (최민호, 최민수; 김도윤, 김서준), or a context the
    full name is not related to: 최민 stays a person of its own, 김 대표 names nobody."""
    kb = rt_kb(runtime)
    store = runtime.graphs.get("ontology")
    upload(runtime, kb, "people.txt", FULL_NAMES)
    if why == "two":
        upload(runtime, kb, "more.txt", other)
        upload(runtime, kb, "later.txt", SHORT_NAMES)
    else:
        upload(runtime, kb, "later.txt", other)
    [minho] = store.entities(kb, ["최민호"])
    assert "최민" not in minho.entity.aliases
    [short] = store.entities(kb, ["최민"])
    assert short.entity.type == "PERSON"
    [doyun] = store.entities(kb, ["김도윤"])
    assert doyun.entity.aliases == []
    assert store.entities(kb, ["김_대표"]) == []


def rt_kb(rt: Runtime) -> str:
    return rt.knowledge_bases.create(KnowledgeBaseCreate(name="g", graph_backend="ontology")).id
