"""Spec 000 §1–8: one test per row of each error table — status, `result_code` or `error`,
and the Korean `message` — against a real app (failures are real store failures, no mocks)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from planrag.app.main import create_app
from planrag.core.settings import Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.dialects.conftest import news, settings_with_reranker, wait_indexed

DOC_ID = "20240315-메타버스-뉴스"


@pytest.fixture(scope="module")
def shared(
    tmp_path_factory: pytest.TempPathFactory, rerank_model_dir: Path, embedders: EmbedderRegistry
) -> Iterator[TestClient]:
    """One app with the example document indexed, for the rows that break nothing."""
    data_dir = tmp_path_factory.mktemp("spec000-errors") / "data"
    app = create_app(settings_with_reranker(data_dir, rerank_model_dir), embedders)
    with TestClient(app) as test_client:
        assert test_client.post("/rag/insert", json=news()).status_code == 200
        wait_indexed(test_client)
        yield test_client


def expect(response, status: int, **fields: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    body = response.json()
    for key, value in fields.items():
        assert body[key] == value, body


def break_table(client: TestClient, table: str) -> None:
    """A real metadata-DB failure: the table disappears under the running server."""
    with client.app.state.runtime.metadata.engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(text(f"ALTER TABLE {table} RENAME TO {table}_gone"))


def drop_vectors(client: TestClient, domain: str) -> None:
    """A real vector-store failure: the domain's collection is dropped behind the server."""
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    runtime.vectors.drop_collection(runtime.metadata.get_kb_by_name(domain).id)


# ── §1 /rag/insert: 400 (missing field, wrong format), 500 ────────────────────────────────
@pytest.mark.parametrize("field", ["domain", "title", "author", "text", "tags"])
def test_insert_400_missing_required_field(shared: TestClient, field: str) -> None:
    document = news()
    del document[field]
    expect(shared.post("/rag/insert", json=document), 400, error="Invalid request")
    assert field in shared.post("/rag/insert", json=document).json()["message"]


@pytest.mark.parametrize(
    "changes",
    [
        {"tags": {"date": "2024-03-15"}},
        {"tags": {"date": "20240231"}},
        {"tags": {"user": "admin"}},
        {"title": "가" * 129},
        {"domain": "d" * 33},
        {"text": "   "},
        {"info": "not an object"},
    ],
)
def test_insert_400_wrong_format(shared: TestClient, changes: dict) -> None:
    expect(shared.post("/rag/insert", json=news(**changes)), 400, error="Invalid request")


def test_insert_400_without_a_body(shared: TestClient) -> None:
    expect(shared.post("/rag/insert"), 400, error="Invalid request")


def test_insert_500_when_the_file_store_fails(client: TestClient, settings: Settings) -> None:
    settings.files_dir.parent.mkdir(parents=True, exist_ok=True)
    settings.files_dir.write_text("a file where the upload directory should be")
    expect(
        client.post("/rag/insert", json=news()),
        500,
        error="Internal server error",
        message="문서 삽입 중 오류가 발생했습니다.",
    )
    expect(client.get("/rag/document", params={"doc_id": DOC_ID}), 404)  # nothing half-stored


# ── §2 /rag/search: F000001–F000006 ───────────────────────────────────────────────────────
@pytest.mark.parametrize("params", [{}, {"query_text": ""}, {"query_text": "  "}])
def test_search_F000001_missing_query(shared: TestClient, params: dict) -> None:
    expect(shared.get("/rag/search", params=params), 400, result_code="F000001")


@pytest.mark.parametrize("top_k", ["0", "51", "-1", "five", "2.5"])
def test_search_F000002_bad_top_k(shared: TestClient, top_k: str) -> None:
    response = shared.get("/rag/search", params={"query_text": "메타버스", "top_k": top_k})
    expect(response, 400, result_code="F000002")


@pytest.mark.parametrize("value", ["{press_num:", "[1, 2]", '"text"'])
def test_search_F000003_info_filter_not_a_json_object(shared: TestClient, value: str) -> None:
    response = shared.get("/rag/search", params={"query_text": "메타버스", "info_filter": value})
    expect(response, 400, result_code="F000003")


@pytest.mark.parametrize("value", ["{user:", "[]", "3"])
def test_search_F000004_tags_filter_not_a_json_object(shared: TestClient, value: str) -> None:
    response = shared.get("/rag/search", params={"query_text": "메타버스", "tags_filter": value})
    expect(response, 400, result_code="F000004")


@pytest.mark.parametrize(
    "params", [{"start_date": "2024-03-01"}, {"end_date": "20241301"}, {"start_date": "2024"}]
)
def test_search_F000006_bad_date(shared: TestClient, params: dict) -> None:
    response = shared.get("/rag/search", params={"query_text": "메타버스", **params})
    expect(response, 400, result_code="F000006", message="날짜는 YYYYMMDD 형식이어야 합니다.")


def test_search_an_invalid_parameter_without_a_code_is_400(shared: TestClient) -> None:
    """The spec gives no code for e.g. an over-long title: 400 with F000005, naming it."""
    response = shared.get("/rag/search", params={"query_text": "메타버스", "title": "가" * 201})
    expect(response, 400, result_code="F000005")
    assert "title" in response.json()["message"]
    long_title = shared.get("/rag/search", params={"query_text": "메타버스", "title": "가" * 150})
    expect(long_title, 200, result_code="F000000")


def test_search_F000005_server_error(client: TestClient) -> None:
    assert client.post("/rag/insert", json=news()).status_code == 200
    wait_indexed(client)
    drop_vectors(client, "news")
    response = client.get("/rag/search", params={"query_text": "메타버스", "domain": "news"})
    expect(response, 500, result_code="F000005")


# ── §3 /rag/delete: one row per missing parameter ─────────────────────────────────────────
DELETE_PARAMS = {
    "date": "20240315",
    "title": "메타버스 뉴스",
    "author": "삼성전자",
    "domain": "news",
}


@pytest.mark.parametrize(
    ("missing", "error", "message"),
    [
        ("date", "date is required", "날짜(date)는 필수 입력값입니다."),
        ("title", "title is required", "제목(title)은 필수 입력값입니다."),
        ("author", "author is required", "작성자(author)는 필수 입력값입니다."),
        ("domain", "domain is required", "도메인(domain)은 필수 입력값입니다."),
    ],
)
def test_delete_400_missing_parameter(
    shared: TestClient, missing: str, error: str, message: str
) -> None:
    params = {k: v for k, v in DELETE_PARAMS.items() if k != missing}
    expect(shared.delete("/rag/delete", params=params), 400, error=error, message=message)
    blank = {**DELETE_PARAMS, missing: ""}
    expect(shared.delete("/rag/delete", params=blank), 400, error=error, message=message)
    expect(shared.get("/rag/document", params={"doc_id": DOC_ID}), 200)  # nothing deleted


# ── §4 /rag/document: 400, 404 document, 404 passage, 500 ─────────────────────────────────
def test_document_400_doc_id_required(shared: TestClient) -> None:
    expect(
        shared.get("/rag/document"),
        400,
        error="doc_id is required",
        message="문서 ID는 필수 입력값입니다.",
    )


def test_document_404_document_not_found(shared: TestClient) -> None:
    expect(
        shared.get("/rag/document", params={"doc_id": "20991231-없는-문서"}),
        404,
        error="Document not found",
        message="요청하신 문서를 찾을 수 없습니다.",
    )


@pytest.mark.parametrize("passage_id", ["99", "0", "first"])
def test_document_404_passage_not_found(shared: TestClient, passage_id: str) -> None:
    expect(
        shared.get("/rag/document", params={"doc_id": DOC_ID, "passage_id": passage_id}),
        404,
        error="Passage not found",
        message="요청하신 패시지를 찾을 수 없습니다.",
    )


def test_document_500_internal_error(client: TestClient) -> None:
    assert client.post("/rag/insert", json=news()).status_code == 200
    wait_indexed(client)
    break_table(client, "chunks")
    expect(
        client.get("/rag/document", params={"doc_id": DOC_ID}),
        500,
        error="Internal server error",
        message="문서 조회 중 오류가 발생했습니다.",
    )


# ── §5 /rag/data/show: 400 required, 400 invalid collection ───────────────────────────────
def test_data_show_400_collection_name_required(shared: TestClient) -> None:
    expect(
        shared.get("/rag/data/show"),
        400,
        error="collection_name is required",
        message="collection_name은 필수 입력값입니다.",
    )


def test_data_show_400_invalid_collection(shared: TestClient) -> None:
    expect(
        shared.get("/rag/data/show", params={"collection_name": "no-such-domain"}),
        400,
        error="Invalid Collection",
        message="유효한 Collection 이름을 입력해야 합니다.",
    )


# ── §6 /reranker/enhanced-search: F000001–F000005 ─────────────────────────────────────────
def test_enhanced_F000001_missing_query(shared: TestClient) -> None:
    expect(
        shared.get("/reranker/enhanced-search"),
        400,
        result_code="F000001",
        message="검색어(query_text)는 필수 입력값입니다.",
    )


def test_enhanced_F000002_search_service_error(rerank_client: TestClient) -> None:
    assert rerank_client.post("/rag/insert", json=news()).status_code == 200
    wait_indexed(rerank_client)
    drop_vectors(rerank_client, "news")
    response = rerank_client.get(
        "/reranker/enhanced-search", params={"query_text": "메타버스", "domain": "news"}
    )
    expect(response, 500, result_code="F000002", message="검색 서비스 오류")


def test_enhanced_F000003_no_results_is_200(shared: TestClient) -> None:
    response = shared.get(
        "/reranker/enhanced-search", params={"query_text": "메타버스", "domain": "sports"}
    )
    expect(response, 200, result_code="F000003", message="검색 결과가 없습니다.")
    assert response.json()["search_result"] == []


def test_enhanced_F000004_rerank_error(client: TestClient) -> None:
    """The default reranker (a hub name) cannot load offline: 503, naming the setting."""
    response = client.get("/reranker/enhanced-search", params={"query_text": "메타버스"})
    expect(response, 503, result_code="F000004", message="재랭킹 처리 중 오류가 발생했습니다.")
    assert "PLANRAG_RERANK__MODEL" in response.json()["detail"]


def test_enhanced_F000005_other_error(rerank_client: TestClient) -> None:
    break_table(rerank_client, "knowledge_bases")
    response = rerank_client.get("/reranker/enhanced-search", params={"query_text": "메타버스"})
    expect(response, 500, result_code="F000005", message="통합 검색 중 오류가 발생했습니다.")


# ── §7 /reranker/rerank: no JSON, invalid input, failure ─────────────────────────────────
CANDIDATES = {"query": "메타버스", "results": [{"text": "메타버스 시장"}, {"text": "주식 시장"}]}


@pytest.mark.parametrize("body", [b"", b"{}", b"null"])
def test_rerank_400_no_json_data(shared: TestClient, body: bytes) -> None:
    response = shared.post(
        "/reranker/rerank", content=body, headers={"content-type": "application/json"}
    )
    expect(response, 400, error="No JSON data provided")


@pytest.mark.parametrize(
    "body",
    [
        {"query": "메타버스"},
        {"results": [{"text": "a"}]},
        {"query": "메타버스", "results": [{"doc_id": "no text"}]},
        {"query": "메타버스", "results": "not a list"},
        [CANDIDATES],
    ],
)
def test_rerank_400_invalid_input_format(shared: TestClient, body: object) -> None:
    expect(shared.post("/reranker/rerank", json=body), 400, error="Invalid input format")


def test_rerank_400_invalid_top_k(shared: TestClient) -> None:
    response = shared.post("/reranker/rerank", params={"top_k": 0}, json=CANDIDATES)
    expect(response, 400, error="Invalid input format")


def test_rerank_503_when_no_reranker_can_load(client: TestClient) -> None:
    response = client.post("/reranker/rerank", json=CANDIDATES)
    expect(response, 503, error="Reranking failed")
    assert "PLANRAG_RERANK__MODEL" in response.json()["detail"]


def break_reranker(client: TestClient) -> None:
    reranker = client.app.state.runtime.rerankers.get()  # type: ignore[attr-defined]

    def fail(query: str, passages: list[str]) -> list[float]:
        raise RuntimeError("the model crashed")

    reranker.score = fail


def test_rerank_500_reranking_failed(rerank_client: TestClient) -> None:
    break_reranker(rerank_client)
    response = rerank_client.post("/reranker/rerank", json=CANDIDATES)
    expect(response, 500, error="Reranking failed")


# ── §8 /reranker/batch_rerank: failure (and the same input errors as §7) ─────────────────
def test_batch_rerank_503_when_no_reranker_can_load(client: TestClient) -> None:
    response = client.post("/reranker/batch_rerank", json=[CANDIDATES])
    expect(response, 503, error="Batch reranking failed")
    assert "PLANRAG_RERANK__MODEL" in response.json()["detail"]


def test_batch_rerank_500_batch_reranking_failed(rerank_client: TestClient) -> None:
    break_reranker(rerank_client)
    response = rerank_client.post("/reranker/batch_rerank", json=[CANDIDATES])
    expect(response, 500, error="Batch reranking failed")


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"", "No JSON data provided"),
        (b"[]", "No JSON data provided"),
        (b"{}", "No JSON data provided"),
        (b'[{"query": "q"}]', "Invalid input format"),
        (b'{"query": "q", "results": []}', "Invalid input format"),
    ],
)
def test_batch_rerank_400_bad_input(shared: TestClient, body: bytes, error: str) -> None:
    response = shared.post(
        "/reranker/batch_rerank", content=body, headers={"content-type": "application/json"}
    )
    expect(response, 400, error=error)
