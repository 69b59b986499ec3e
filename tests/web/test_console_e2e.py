"""The web console end to end: Debian's chromium (driven by Playwright, never a downloaded
browser) against a real `planrag serve` process on loopback with real stores (Milvus Lite,
SQLite, Kiwi-BM25, the real embedding model); the only fake is the scripted LLM.

One server and one browser page for the module; the tests run in order, each building on the
last (create → upload → settings → playground → ask → trace) and saving a screenshot in
$PLANRAG_CONSOLE_SCREENSHOTS (default: a pytest temp dir).
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from planrag.planner.schema import Filters, SearchPlan, TimeFilter
from tests.ingest.pdfs import make_pdf
from tests.llm.fake_llm import Reply, Script, serve_llm
from tests.web.console import CHROMIUM_ARGS, ServerProcess, ensure_console_built, require_chromium

pytestmark = pytest.mark.slow
expect.set_options(timeout=30_000)  # a loaded 2-core machine is slow; nothing here is timed

KB_NAME = "사내 규정"
PDF_PAGES = [
    "연차 휴가 규정\n정규직 직원은 매년 15일의 연차 휴가를 받는다. "
    "사용하지 않은 연차는 다음 해 3월에 소멸된다.",
    "출장비 정산\n출장비는 출장이 끝난 뒤 7일 안에 영수증과 함께 청구한다.",
]
MARKDOWN = (
    "# Remote work policy\n\nEmployees may work remotely up to three days per week with their "
    "manager's approval.\n\n## Equipment\n\nThe company lends a laptop and a monitor for home "
    "offices.\n"
)
GRAPH_TEXT = (
    "일론 머스크는 SpaceX의 CEO이다. SpaceX는 Starship을 만든다. "
    "Starship은 Boca Chica에서 발사된다. 일론 머스크는 테슬라의 창업자다."
)
# "posted this week" scopes the documents: the planner's policy keeps the LLM's time filter
# (a time the rules read as the world's, as in "this week's X", would be dropped: issue 23).
QUESTION = "Under the policy posted this week, how many days a week can employees work remotely?"
TODAY = datetime.now(ZoneInfo("Asia/Seoul")).date()
MONDAY = TODAY - timedelta(days=TODAY.weekday())
STANDALONE = "What equipment does the company lend to employees working remotely?"
FOLLOW_UP_ANSWER = "The company lends a laptop and a monitor for home offices [1]."
ANSWER = "Employees may work remotely up to three days per week [1]. A laptop is lent [1]."
TIMEOUT_MS = 120_000


class State:
    kb_id = ""


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("PLANRAG_CONSOLE_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("console-screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def script() -> Script:
    return Script()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, script: Script) -> Iterator[ServerProcess]:
    ensure_console_built()
    with serve_llm(script) as llm_url:
        env = {
            "PLANRAG_LLM__BASE_URL": llm_url,
            "PLANRAG_LLM__MODEL": "test-model",
            "PLANRAG_LLM__API_KEY": "test-key",
            "PLANRAG_SERVER__CONSOLE_DIR": "",
            # Graph KBs extract with Kiwi rules: the scripted LLM only plans and answers.
            "PLANRAG_GRAPH__EXTRACTOR": "rule",
            # Calibration writes no questions: every scripted reply is the ask's.
            "PLANRAG_LLM__CALIBRATION_QUESTIONS": "false",
        }
        process = ServerProcess(tmp_path_factory.mktemp("console-server") / "data", env)
        try:
            yield process
        finally:
            process.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = require_chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def page(browser: Browser, server: ServerProcess) -> Iterator[Page]:
    context = browser.new_context(
        base_url=server.url, viewport={"width": 1280, "height": 860}, locale="ko-KR"
    )
    context.set_default_timeout(30_000)
    tab = context.new_page()
    yield tab
    context.close()


def drop_files(page: Page, selector: str, files: list[tuple[str, str, bytes]]) -> None:
    """Drops files on an element as a user dragging them from the desktop would."""
    payload = [
        {"name": name, "type": kind, "b64": base64.b64encode(data).decode()}
        for name, kind, data in files
    ]
    transfer = page.evaluate_handle(
        """(files) => {
            const dt = new DataTransfer();
            for (const f of files) {
                const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
                dt.items.add(new File([bytes], f.name, { type: f.type }));
            }
            return dt;
        }""",
        payload,
    )
    page.dispatch_event(selector, "drop", {"dataTransfer": transfer})


def test_dashboard_creates_a_knowledge_base(page: Page, shots: Path) -> None:
    page.goto("/")
    expect(page.get_by_role("heading", name="지식 베이스")).to_be_visible()
    page.get_by_role("button", name="지식 베이스 만들기").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("이름").fill(KB_NAME)
    dialog.get_by_label("설명").fill("인사 규정과 원격 근무 지침")
    dialog.get_by_label("청킹 전략").select_option("context_aware")
    dialog.get_by_label("청크 크기").fill("80")  # one chunk per PDF page
    dialog.get_by_label("오버랩").fill("0")
    page.screenshot(path=shots / "create-kb.png")
    dialog.get_by_role("button", name="만들기").click()
    expect(page).to_have_url(re.compile(r"/kb/[0-9a-f-]{36}$"))
    expect(page.get_by_test_id("kb-name")).to_have_text(KB_NAME)
    State.kb_id = page.url.rsplit("/", 1)[-1]


def test_upload_a_korean_pdf_and_english_markdown_until_completed(
    page: Page, server: ServerProcess, shots: Path
) -> None:
    page.goto(f"/kb/{State.kb_id}")
    drop_files(
        page,
        "[data-testid=dropzone]",
        [
            ("연차규정.pdf", "application/pdf", make_pdf(PDF_PAGES)),
            ("remote-work.md", "text/markdown", MARKDOWN.encode()),
            ("broken.pdf", "application/pdf", b"%PDF-1.4 this is not a PDF"),
        ],
    )
    expect(page.get_by_text("선택한 파일 3개")).to_be_visible()
    page.get_by_text("메타데이터 (선택)").click()
    page.get_by_label("작성자").fill("인사팀")
    page.get_by_label("날짜").fill(TODAY.isoformat())
    page.get_by_role("button", name="업로드").click()
    # The first indexing loads Kiwi, which can stall a loaded machine's server for a while.
    expect(page.get_by_text("3개 파일을 올렸습니다")).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.get_by_test_id("document-row")).to_have_count(3, timeout=TIMEOUT_MS)
    for name in ("연차규정.pdf", "remote-work.md"):
        row = page.locator(f"[data-testid=document-row][data-filename='{name}']")
        expect(row).to_have_attribute("data-status", "completed", timeout=TIMEOUT_MS)
        expect(row.get_by_test_id("doc-status")).to_have_text("완료")
    broken = page.locator("[data-testid=document-row][data-filename='broken.pdf']")
    expect(broken).to_have_attribute("data-status", "error", timeout=TIMEOUT_MS)
    expect(broken.get_by_test_id("doc-status")).to_have_text("실패")
    expect(broken.get_by_test_id("doc-error")).not_to_be_empty()  # the reason
    page.screenshot(path=shots / "documents.png")

    # Delete, after confirming.
    broken.get_by_role("button", name="삭제").click()
    page.get_by_test_id("confirm-delete").click()
    expect(page.get_by_test_id("document-row")).to_have_count(2)

    # The chunk viewer shows the PDF's Korean text.
    pdf_row = page.locator("[data-testid=document-row][data-filename='연차규정.pdf']")
    pdf_row.get_by_role("button", name="청크 보기").click()
    expect(page.get_by_test_id("chunk-list").locator("li")).to_have_count(2)
    expect(page.get_by_test_id("chunk-list")).to_contain_text("15일의 연차 휴가")
    page.keyboard.press("Escape")

    docs = httpx.get(f"{server.url}/api/knowledge-bases/{State.kb_id}/documents").json()
    assert {(d["metadata"]["author"], d["metadata"]["date"]) for d in docs} == {
        ("인사팀", TODAY.isoformat())
    }

    page.goto("/")
    card = page.get_by_test_id("kb-card").filter(has_text=KB_NAME)
    expect(card.get_by_test_id("kb-doc-count")).to_have_text("2")
    page.screenshot(path=shots / "dashboard.png")


def test_settings_change_top_k(page: Page, server: ServerProcess, shots: Path) -> None:
    page.goto(f"/kb/{State.kb_id}/settings")
    slider = page.get_by_test_id("top-k")
    slider.focus()
    page.keyboard.press("Home")  # 1
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("top-k-value")).to_have_text("3")
    page.get_by_role("button", name="저장").click()
    expect(page.get_by_test_id("saved")).to_contain_text("저장되었습니다")
    page.screenshot(path=shots / "settings.png")
    kb = httpx.get(f"{server.url}/api/knowledge-bases/{State.kb_id}").json()
    assert kb["top_k"] == 3
    page.reload()
    expect(page.get_by_test_id("top-k-value")).to_have_text("3")


def test_playground_finds_the_right_chunk_first(page: Page, shots: Path) -> None:
    page.goto(f"/kb/{State.kb_id}/test")
    page.get_by_test_id("playground-query").fill("연차 휴가는 며칠인가요?")
    page.get_by_role("button", name="검색").click()
    hits = page.get_by_test_id("hit")
    expect(hits.first).to_be_visible()
    expect(hits.first.get_by_test_id("hit-content")).to_contain_text("15일의 연차 휴가")
    expect(hits.first.get_by_test_id("hit-content")).not_to_contain_text("출장비")  # page 2
    assert 1 <= hits.count() <= 3  # the KB's Top K, set in the previous test
    expect(hits.first.get_by_test_id("fusion")).to_be_visible()  # hybrid says how it fused
    # ... why (the query's script, the calibration), and where each leg ranked the hit
    expect(hits.first.get_by_test_id("fusion-reason")).to_contain_text("hangul query")
    expect(hits.first.get_by_test_id("leg-ranks")).to_contain_text("dense #")
    page.screenshot(path=shots / "playground.png")


def test_ask_streams_a_cited_answer_with_the_plan(page: Page, script: Script, shots: Path) -> None:
    plan = SearchPlan(
        knowledge_bases=[KB_NAME],
        strategy="hybrid",
        rationale="remote work policy of this week",
        filters=Filters(
            time=TimeFilter(
                **{"from": MONDAY.isoformat()}, to=TODAY.isoformat(), expression="this week"
            )
        ),
    )
    script.replies += [
        Reply(json.dumps(plan.model_dump(by_alias=True), ensure_ascii=False)),
        Reply(ANSWER, chunk_delay_s=0.05),
    ]
    page.goto("/ask")
    page.get_by_label(KB_NAME).check()
    page.get_by_test_id("ask-question").fill(QUESTION)
    page.get_by_test_id("ask-question").press("Enter")

    box = page.get_by_test_id("answer-box")
    expect(box).to_have_attribute("data-status", "streaming")
    expect(page.get_by_test_id("answer")).to_contain_text("Employees")
    partial = page.get_by_test_id("answer").inner_text()
    expect(box).to_have_attribute("data-status", "done", timeout=TIMEOUT_MS)
    assert page.get_by_test_id("answer").inner_text() == ANSWER
    assert len(partial) < len(ANSWER)  # the answer arrived in pieces

    card = page.get_by_test_id("plan-card")
    expect(card.get_by_test_id("plan-source")).to_have_text("llm")
    expect(card.get_by_test_id("plan-strategy")).to_contain_text("hybrid")
    expect(card.get_by_test_id("plan-kbs")).to_have_text(KB_NAME)
    # The time range the LLM read from "this week" (the documents are dated today: kept).
    expect(card.get_by_test_id("plan-time")).to_contain_text(
        f"{MONDAY.isoformat()} ~ {TODAY.isoformat()}"
    )
    expect(card.get_by_test_id("plan-time")).to_contain_text("this week")
    expect(card.get_by_test_id("plan-relaxed")).to_have_count(0)

    citation = page.locator("a.citation[data-citation='1']").first
    citation.click()
    passage = page.locator("#passage-1")
    expect(passage).to_have_class(re.compile("highlighted"))
    expect(passage).to_contain_text("work remotely")
    page.screenshot(path=shots / "ask.png")


def test_a_follow_up_continues_the_conversation(page: Page, script: Script, shots: Path) -> None:
    # The LLM rewrites the follow-up into a standalone question, plans it, answers it.
    plan = SearchPlan(knowledge_bases=[KB_NAME], strategy="hybrid", rationale="equipment")
    script.replies += [
        Reply(json.dumps({"standalone": STANDALONE})),
        Reply(json.dumps(plan.model_dump(by_alias=True), ensure_ascii=False)),
        Reply(FOLLOW_UP_ANSWER),
    ]
    page.get_by_test_id("ask-question").fill("And what do they get for it?")
    page.get_by_test_id("ask-question").press("Enter")
    expect(page.get_by_test_id("answer-box")).to_have_attribute("data-status", "done")
    expect(page.get_by_test_id("answer-box").get_by_test_id("answer")).to_have_text(
        FOLLOW_UP_ANSWER
    )
    expect(page.get_by_test_id("past-turn")).to_have_count(1)
    expect(page.get_by_test_id("past-turn")).to_contain_text(ANSWER)
    followup = page.get_by_test_id("plan-card").get_by_test_id("plan-followup")
    expect(followup).to_contain_text(STANDALONE)
    expect(followup).to_contain_text("llm")
    condense = script.requests[-3]
    assert QUESTION in json.dumps(condense["messages"], ensure_ascii=False)  # the history went in
    page.screenshot(path=shots / "ask-follow-up.png")


def test_the_ask_trace_opens(page: Page, shots: Path) -> None:
    page.get_by_test_id("past-turn").get_by_role("link", name="트레이스 열기").click()
    expect(page).to_have_url(re.compile(r"/traces/[0-9a-f-]{36}$"))
    expect(page.get_by_test_id("trace-question")).to_have_text(QUESTION)
    expect(page.get_by_test_id("plan-card").get_by_test_id("plan-source")).to_have_text("llm")
    expect(page.get_by_test_id("trace-timings")).to_contain_text("answer")
    expect(page.get_by_test_id("answer")).to_contain_text("three days per week")
    # beside each hit, how hybrid search weighted the legs of its knowledge base, and why
    hit = page.get_by_test_id("trace-hit").first
    expect(hit.get_by_test_id("fusion")).to_contain_text("dense")
    expect(hit.get_by_test_id("fusion-reason")).not_to_be_empty()
    page.screenshot(path=shots / "trace.png")
    page.goto("/traces")
    expect(page.get_by_test_id("traces-table")).to_contain_text("work remotely")


def test_plan_inspector_shows_a_fallback_plan_and_its_relaxed_time_range(
    page: Page, shots: Path
) -> None:
    # No scripted reply is left: the LLM answers 500, the rules make the plan and say why; no
    # document is dated last week, so the time filter is relaxed and the card says so.
    page.goto("/plan")
    page.get_by_test_id("plan-question").fill("지난주 회의록 2개만 보여줘")
    page.get_by_test_id("plan-now").fill("2025-11-21T10:00")
    page.get_by_role("button", name="계획 보기").click()
    card = page.get_by_test_id("plan-card")
    expect(card.get_by_test_id("plan-source")).to_have_text("fallback")
    expect(card.get_by_test_id("plan-fallback-reason")).to_be_visible()
    expect(card.get_by_test_id("plan-relaxed")).to_contain_text("2025-11-10 ~ 2025-11-16")
    expect(card.get_by_test_id("plan-relaxed")).to_contain_text("지난주")
    expect(card.get_by_test_id("plan-limit")).to_have_text("2")
    page.screenshot(path=shots / "plan.png")
    # The English switch, and back to Korean (the default) for the tests after this one.
    page.get_by_test_id("lang-switch").click()
    expect(card).to_contain_text("Search plan")
    expect(page.get_by_role("link", name="Plan inspector")).to_be_visible()
    page.get_by_test_id("lang-switch").click()
    expect(card).to_contain_text("검색 계획")


def test_graph_view_of_a_graph_knowledge_base(page: Page, shots: Path) -> None:
    page.goto("/")
    page.get_by_role("button", name="지식 베이스 만들기").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("이름").fill("우주 산업")
    dialog.get_by_label("그래프 백엔드").select_option("ontology")
    dialog.get_by_role("button", name="만들기").click()
    expect(page.get_by_test_id("kb-name")).to_have_text("우주 산업")
    graph_kb = page.url.rsplit("/", 1)[-1]
    page.get_by_test_id("file-input").set_input_files(
        files=[{"name": "spacex.txt", "mimeType": "text/plain", "buffer": GRAPH_TEXT.encode()}]
    )
    page.get_by_role("button", name="업로드").click()
    row = page.locator("[data-testid=document-row][data-filename='spacex.txt']")
    expect(row).to_have_attribute("data-status", "completed", timeout=TIMEOUT_MS)

    page.goto("/")
    card = page.get_by_test_id("kb-card").filter(has_text="우주 산업")
    expect(card.get_by_test_id("kb-graph")).to_contain_text(
        re.compile(r"ontology · [1-9]\d* 엔티티")
    )

    page.goto(f"/kb/{graph_kb}/graph")
    canvas = page.get_by_test_id("graph-canvas")
    expect(canvas).to_be_visible()  # the most connected entities, before any search
    page.get_by_test_id("graph-entity").fill("일론 머스크")
    page.get_by_role("button", name="보기", exact=True).click()
    chips = page.get_by_test_id("entity-list")
    expect(chips).to_contain_text("SpaceX")
    expect(chips).to_contain_text("테슬라")
    expect(chips).not_to_contain_text("Boca Chica")  # two hops away
    assert int(canvas.get_attribute("data-nodes") or 0) >= 3
    chips.get_by_role("button", name=re.compile("^일론 머스크")).click()
    sources = page.get_by_test_id("entity-sources")
    expect(sources).to_contain_text("spacex.txt")
    expect(sources).to_contain_text("일론 머스크는 SpaceX의 CEO이다")
    page.screenshot(path=shots / "graph.png")

    # Graph search in the playground shows what the graph contributed.
    page.goto(f"/kb/{graph_kb}/test")
    page.get_by_test_id("playground-query").fill("일론 머스크가 CEO인 회사는?")
    page.get_by_label("그래프 검색").check()
    page.get_by_role("button", name="검색").click()
    meta = page.get_by_test_id("graph-metadata")
    expect(meta).to_contain_text("ontology")
    expect(meta).to_contain_text("일론 머스크")
    expect(page.get_by_test_id("hit").first).to_contain_text("SpaceX")
    page.screenshot(path=shots / "playground-graph.png")

    # Deleting the knowledge base asks first, then returns to the dashboard without it.
    page.get_by_role("button", name="지식 베이스 삭제").click()
    page.get_by_test_id("confirm-delete").click()
    expect(page.get_by_role("heading", name="지식 베이스", exact=True)).to_be_visible()
    expect(page.get_by_test_id("kb-card").filter(has_text="우주 산업")).to_have_count(0)
    expect(page.get_by_test_id("kb-card").filter(has_text=KB_NAME)).to_have_count(1)
