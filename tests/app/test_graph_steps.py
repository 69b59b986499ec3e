"""A step answered by the knowledge base's graph (issue 27): over our Korean fixture corpus in a
KB with a graph (ontology backend, rule-extracted typed relations), a step whose relation and
named entity lead to one entity takes it as its answer (`source: graph`) without reading the
passages — the scripted LLM is never asked to read such a step — and cites the passage that
states the edge; a step the graph cannot answer alone is read from its passages as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.app.main import create_app
from planrag.core.settings import GraphSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.planner.schema import SearchPlan
from tests.app.kb_fill import fill_kb
from tests.app.test_ask_api import Served, data
from tests.llm.fake_llm import Reply, Script, scripted_llm_settings, serve_llm
from tests.servers import serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"
DOCS = [
    (p.name, p.read_text(encoding="utf-8"), {})
    for p in sorted(FIXTURES.glob("*.md"))
    if p.name != "README.md"
]


@pytest.fixture(scope="module")
def graphed(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    script = Script()
    with serve_llm(script) as llm_url:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            data_dir=tmp_path_factory.mktemp("graph-steps"),
            llm=scripted_llm_settings(llm_url, timeout_s=5.0),
            graph=GraphSettings(extractor="rule"),  # the scripted LLM only plans and answers
        )
        app = create_app(settings, embedders)
        with serve(app) as url:
            ids = fill_kb(url, "kg", DOCS, fields={"graph_backend": "ontology"})
            yield Served(url, script, app, ids)


def plan_reply(steps: list[dict]) -> Reply:
    plan = SearchPlan(knowledge_bases=["kg"], rationale="scripted").model_dump(by_alias=True)
    plan.update(steps=steps, answer_from=steps[-1]["id"])
    return Reply(json.dumps(plan, ensure_ascii=False))


def step(id_: str, query: str) -> dict:
    return {"id": id_, "query": query, "strategy": None, "top_k": None, "filters": None,
            "graph": None}  # fmt: skip


def steps_of(stream: list[tuple[str, dict]]) -> list[dict]:
    return [d for n, d in stream if n == "step"]


def test_the_graph_answers_steps_whose_relations_lead_to_one_entity(graphed: Served) -> None:
    graphed.script.replies += [
        plan_reply(
            [
                step("s1", "한빛로보틱스 대표이사가 졸업한 대학교"),  # CEO_OF, then GRADUATED_FROM
                step("s2", "{{s1.answer}}의 총장은 누구인가요?"),  # HEAD_OF
            ]
        ),
        Reply("한결대학교의 총장은 문태호입니다 [1]."),
    ]
    start = len(graphed.script.requests)
    stream = graphed.ask(question="한빛로보틱스 대표이사가 졸업한 대학교의 총장은 누구인가요?")
    first, second = steps_of(stream)
    assert first["answer"]["source"] == "graph" and first["answer"]["text"] == "한결대학교"
    assert first["expected_type"] == "ORGANIZATION"
    assert second["query"] == "한결대학교의 총장은 누구인가요?"
    assert second["answer"]["source"] == "graph" and second["answer"]["text"] == "문태호"
    assert second["expected_type"] == "PERSON"
    # Each graph answer cites the passage stating its edge, among the step's hits.
    for found, document in ((first, "hanbit_company.md"), (second, "hangyeol_university.md")):
        cited = found["hits"][found["answer"]["passage"] - 1]
        assert cited["doc_id"] == graphed.doc_ids[document]
        assert found["answer"]["text"] in found["answer"]["sentence"]
    # Only the plan and the final answer went to the LLM: no step was read by it.
    assert len(graphed.script.requests) - start == 2
    assert data(stream, "end")["answer_source"] == "llm"


def test_a_step_with_several_graph_answers_is_read_from_its_passages(graphed: Served) -> None:
    graphed.script.replies += [
        plan_reply(
            [
                step("s1", "한빛로보틱스에 투자한 회사"),  # INVESTED_IN: 푸른벤처스, 동해캐피털
                step("s2", "{{s1.answer}}의 대표"),
            ]
        ),
        Reply("푸른벤처스"),  # s1, read by the LLM from the passages
        Reply("푸른벤처스의 대표는 한지훈입니다 [1]."),
    ]
    stream = graphed.ask(question="한빛로보틱스에 투자한 회사의 대표는?")
    first, second = steps_of(stream)
    assert first["answer"]["source"] == "llm" and first["answer"]["text"] == "푸른벤처스"
    assert second["answer"]["source"] == "graph" and second["answer"]["text"] == "한지훈"
