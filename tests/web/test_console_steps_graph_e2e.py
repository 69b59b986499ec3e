"""The console's plan card with steps and its graph view, in Debian's chromium against a real
`planrag serve` (Milvus Lite, SQLite, Kiwi-BM25, the real embedding model, pyoxigraph), no LLM:
the rule planner makes the steps of a Korean chain question over our fixture corpus, and the
Kiwi rule extractor builds the graph.

- The plan card lists each step of a multi-step ask: its query with the earlier answer filled
  in, strategy, how many passages it found and the bridge answer (issue 27).
- Each step shows the answer type it asks for and where its answer came from: the reader, or
  the graph of a KB that has one (issue 27, session 9).
- The graph view colours nodes by entity type with a legend, and no two edge labels shown
  overlap at the default layout (issues 26 and 28).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.web.console import CHROMIUM_ARGS, ServerProcess, ensure_console_built, require_chromium

pytestmark = pytest.mark.slow
expect.set_options(timeout=30_000)  # a loaded 2-core machine is slow; nothing here is timed

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"
MISSING = "00000000-0000-0000-0000-000000000000"
CHAIN = "누리테크 대표가 졸업한 대학교의 부설 연구소는 무엇을 연구하나요?"
GRAPH_DOCS = ("hanbit_company.md", "investment.md", "people_profiles.md", "nuribot_products.md")
HITS = re.compile(r"검색 결과 [1-9]\d*건")  # never zero for a step that read an answer
TYPE_NAMES = {"PERSON": "인물", "ORGANIZATION": "조직", "PRODUCT": "제품", "PLACE": "장소"}


def _upload(url: str, kb_id: str, names: list[str]) -> None:
    for name in names:
        text = (FIXTURES / name).read_bytes()
        r = httpx.post(
            f"{url}/api/knowledge-bases/{kb_id}/documents",
            files={"files": (name, text, "text/markdown")},
            timeout=60,
        )
        assert r.status_code < 300, r.text
    deadline = time.monotonic() + 600
    while True:
        docs = httpx.get(f"{url}/api/knowledge-bases/{kb_id}/documents", timeout=60).json()
        if all(d["status"] == "completed" for d in docs):
            return
        assert not [d for d in docs if d["status"] == "error"], docs
        assert time.monotonic() < deadline, docs
        time.sleep(0.3)


def _kb(url: str, body: dict) -> str:
    r = httpx.post(f"{url}/api/knowledge-bases", json=body, timeout=60)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    ensure_console_built()
    env = {"PLANRAG_SERVER__CONSOLE_DIR": "", "PLANRAG_GRAPH__EXTRACTOR": "rule"}
    process = ServerProcess(tmp_path_factory.mktemp("console-steps") / "data", env)
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def page(server: ServerProcess) -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser: Browser = playwright.chromium.launch(
            executable_path=require_chromium(), args=CHROMIUM_ARGS
        )
        context = browser.new_context(
            base_url=server.url,
            viewport={"width": 1280, "height": 860},
            locale="ko-KR",
            timezone_id="UTC",  # dates must still show in Asia/Seoul
        )
        context.set_default_timeout(30_000)
        yield context.new_page()
        context.close()
        browser.close()


def test_server_messages_and_dates_are_in_the_users_language(
    page: Page, server: ServerProcess
) -> None:
    """Errors and a document's failure reason come as codes and parameters and are shown in
    Korean (or English after switching); dates in the user's language, in Asia/Seoul."""
    page.goto(f"/kb/{MISSING}")
    expect(page.get_by_role("alert")).to_contain_text(
        f"지식 베이스 '{MISSING}'을(를) 찾을 수 없습니다."
    )
    kb_id = _kb(server.url, {"name": "메시지"})
    files = {"files": ("broken.pdf", b"this is not a pdf", "application/pdf")}
    httpx.post(f"{server.url}/api/knowledge-bases/{kb_id}/documents", files=files, timeout=60)
    page.goto(f"/kb/{kb_id}")
    row = page.locator("[data-testid=document-row][data-filename='broken.pdf']")
    expect(row).to_have_attribute("data-status", "error", timeout=120_000)
    expect(row.get_by_test_id("doc-error")).to_have_text(
        "올바른 PDF가 아닙니다 (%PDF 헤더가 없습니다)."
    )
    created = httpx.get(f"{server.url}/api/knowledge-bases/{kb_id}/documents").json()[0]
    seoul = datetime.fromisoformat(created["created_at"]).astimezone(ZoneInfo("Asia/Seoul"))
    period = "오전" if seoul.hour < 12 else "오후"
    clock = f"{period} {seoul.hour % 12 or 12}:{seoul.minute:02d}"
    shown = f"{seoul.year}. {seoul.month}. {seoul.day}. {clock}"
    expect(row).to_contain_text(shown)  # the browser runs in UTC; the date is Seoul's
    page.get_by_role("button", name="English").click()
    expect(row.get_by_test_id("doc-error")).to_have_text(
        "Not a valid PDF: the %PDF header is missing."
    )
    page.goto(f"/kb/{MISSING}")
    expect(page.get_by_role("alert")).to_contain_text(f"Knowledge base '{MISSING}' not found.")
    page.get_by_role("button", name="한국어").click()
    expect(page.get_by_role("alert")).to_contain_text("찾을 수 없습니다")


def test_the_plan_card_lists_each_step_of_a_chain_question(
    page: Page, server: ServerProcess
) -> None:
    kb_id = _kb(server.url, {"name": "회사 자료"})
    _upload(
        server.url, kb_id, sorted(p.name for p in FIXTURES.glob("*.md") if p.name != "README.md")
    )
    page.goto("/ask")
    page.get_by_test_id("ask-question").fill(CHAIN)
    page.get_by_role("button", name="질문", exact=True).click()
    expect(page.get_by_test_id("answer-box")).to_have_attribute(
        "data-status", "done", timeout=120_000
    )
    card = page.get_by_test_id("plan-card")
    steps = card.get_by_test_id("plan-step")
    expect(steps).to_have_count(3)
    # Each step: the query searched (the earlier answer filled in), strategy, hits, answer.
    first, second, third = steps.nth(0), steps.nth(1), steps.nth(2)
    # (the planner's wording of a step may change; the filled-in answer must be there)
    expect(first.get_by_test_id("step-query")).to_contain_text("누리테크 대표")
    expect(first.get_by_test_id("step-answer")).to_have_text("이서준")
    expect(second.get_by_test_id("step-query")).to_contain_text(re.compile("^이서준.*졸업"))
    expect(second.get_by_test_id("step-answer")).to_have_text("한결대학교")
    expect(third.get_by_test_id("step-query")).to_contain_text(re.compile("^한결대학교.*연구소"))
    for step in (first, second, third):
        expect(step).to_contain_text("hybrid")
        expect(step.get_by_test_id("step-hits")).to_contain_text(HITS)
    # Each step shows the answer type it asks for and where its answer came from (a KB
    # without a graph: the reader).
    expect(first.get_by_test_id("step-expected-type")).to_have_attribute("data-type", "PERSON")
    expect(first.get_by_test_id("step-expected-type")).to_have_text("인물")
    expect(second.get_by_test_id("step-expected-type")).to_have_attribute(
        "data-type", "ORGANIZATION"
    )
    for step in (first, second):
        expect(step.get_by_test_id("step-source")).to_have_attribute("data-source", "extractive")
        expect(step.get_by_test_id("step-source")).to_contain_text("문단 읽기")
    assert "{{" not in (card.get_by_test_id("plan-steps").text_content() or "")
    # The stored trace shows the same steps on its plan card.
    page.get_by_test_id("open-trace").click()
    expect(page.get_by_test_id("plan-step")).to_have_count(3)
    expect(page.get_by_test_id("plan-step").nth(1).get_by_test_id("step-answer")).to_have_text(
        "한결대학교"
    )


def _boxes(canvas) -> list[dict]:  # type: ignore[no-untyped-def]
    return list(json.loads(canvas.get_attribute("data-label-boxes") or "[]"))


def test_the_graph_view_colours_types_and_no_edge_labels_overlap(
    page: Page, server: ServerProcess, tmp_path: Path
) -> None:
    kb_id = _kb(server.url, {"name": "한빛 그래프", "graph_backend": "ontology"})
    _upload(server.url, kb_id, list(GRAPH_DOCS))
    page.goto(f"/kb/{kb_id}/graph")
    canvas = page.get_by_test_id("graph-canvas")
    expect(canvas).to_have_attribute("data-label-boxes", re.compile(r"^\[\{"))
    nodes = json.loads(canvas.get_attribute("data-node-colours") or "[]")
    edges = _boxes(canvas)
    page.screenshot(path=tmp_path / "graph.png")
    assert len(nodes) >= 8 and len(edges) >= 6, (nodes, edges)
    overlapping = [
        (a["id"], b["id"])
        for i, a in enumerate(edges)
        for b in edges[i + 1 :]
        if a["x1"] < b["x2"] and b["x1"] < a["x2"] and a["y1"] < b["y2"] and b["y1"] < a["y2"]
    ]
    assert overlapping == [], overlapping
    # One colour per type, different types in different colours, as the legend shows them.
    by_type: dict[str, set[str]] = {}
    for node in nodes:
        by_type.setdefault(node["type"], set()).add(node["colour"])
    assert {"PERSON", "ORGANIZATION"} <= set(by_type), by_type
    assert all(len(colours) == 1 for colours in by_type.values()), by_type
    assert len({next(iter(c)) for c in by_type.values()}) == len(by_type), by_type
    legend = page.get_by_test_id("legend-item")
    expect(legend).to_have_count(len(by_type))
    for kind, colours in by_type.items():
        item = page.locator(f"[data-testid=legend-item][data-type='{kind}']")
        if kind in TYPE_NAMES:
            expect(item).to_contain_text(TYPE_NAMES[kind])
        swatch = item.get_by_test_id("legend-swatch")
        colour = swatch.evaluate("(el) => getComputedStyle(el).backgroundColor")
        assert colour.replace(" ", "") == next(iter(colours)).replace(" ", ""), (kind, colour)
    # Selecting a node places its edges' labels first: still no overlap among those shown.
    page.get_by_test_id("graph-entity").fill("한빛로보틱스")
    page.get_by_role("button", name="보기", exact=True).click()
    expect(page.get_by_test_id("entity-list")).to_contain_text("한빛로보틱스")
    # Its relations are listed with the sentence each was read from and who found it.
    relations = page.get_by_test_id("relation-list")
    ceo = relations.locator("[data-testid=relation][data-type=CEO_OF]").first
    expect(ceo).to_contain_text("한빛로보틱스")
    expect(ceo.get_by_test_id("relation-sentence")).to_contain_text("대표")
    expect(ceo.get_by_test_id("relation-extracted-by")).to_contain_text("rule")
    boxes = _boxes(canvas)
    page.screenshot(path=tmp_path / "graph-center.png")
    assert boxes
    assert not [
        (a["id"], b["id"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["x1"] < b["x2"] and b["x1"] < a["x2"] and a["y1"] < b["y2"] and b["y1"] < a["y2"]
    ]


def test_a_step_the_graph_answers_says_so_on_the_plan_card(
    page: Page, server: ServerProcess
) -> None:
    """On a KB with a graph, the role step of "푸른벤처스 대표의 …" is answered off the typed
    relations (푸른벤처스 -대표→ 한지훈): the card says the graph, the next step the reader."""
    name = "한빛 그래프 질문"
    kb_id = _kb(server.url, {"name": name, "graph_backend": "ontology"})
    _upload(server.url, kb_id, list(GRAPH_DOCS))
    page.goto("/ask")
    page.get_by_label(name).check()
    page.get_by_test_id("ask-question").fill("푸른벤처스 대표의 고향은 어디인가요?")
    page.get_by_role("button", name="질문", exact=True).click()
    expect(page.get_by_test_id("answer-box")).to_have_attribute(
        "data-status", "done", timeout=120_000
    )
    steps = page.get_by_test_id("plan-card").get_by_test_id("plan-step")
    expect(steps).to_have_count(2)
    first, second = steps.nth(0), steps.nth(1)
    expect(first.get_by_test_id("step-answer")).to_have_text("한지훈")
    expect(first.get_by_test_id("step-expected-type")).to_have_attribute("data-type", "PERSON")
    expect(first.get_by_test_id("step-source")).to_have_attribute("data-source", "graph")
    expect(first.get_by_test_id("step-source")).to_contain_text("그래프")
    expect(second.get_by_test_id("step-expected-type")).to_have_attribute("data-type", "PLACE")
