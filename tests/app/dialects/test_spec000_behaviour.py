"""Spec 000 behaviour: stable ids and replacement, every search filter, passages, deletion,
collection counts, enhanced search and reranking with a real (random-weight) cross-encoder."""

from __future__ import annotations

import json
import re

from fastapi.testclient import TestClient

from planrag.llm.rerankers import CrossEncoderReranker
from tests.app.dialects.conftest import news, wait_indexed

DOC_ID = "20240315-메타버스-뉴스"


def insert(client: TestClient, **changes: object) -> None:
    response = client.post("/rag/insert", json=news(**changes))
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "received"}


def documents_of(client: TestClient, domain: str) -> list[dict]:
    kb = client.app.state.runtime.metadata.get_kb_by_name(domain)  # type: ignore[attr-defined]
    return client.get(f"/api/knowledge-bases/{kb.id}/documents").json()


def search(client: TestClient, **params: object) -> list[dict]:
    response = client.get("/rag/search", params={"query_text": "메타버스", **params})
    assert response.status_code == 200, response.text
    assert response.json()["result_code"] == "F000000"
    return response.json()["search_result"]


def test_insert_creates_the_domain_and_the_spec_id_reads_back(client: TestClient) -> None:
    insert(client)
    wait_indexed(client)
    body = client.get("/rag/document", params={"doc_id": DOC_ID}).json()
    assert body["doc_id"] == DOC_ID and body["domain"] == "news" and body["status"] == "completed"
    assert body["info"] == news()["info"] and body["tags"] == news()["tags"]
    assert [p["passage_id"] for p in body["passages"]] == [1]
    assert body["passages"][0]["text"] == news()["text"]
    kbs = [kb["name"] for kb in client.get("/api/knowledge-bases").json()]
    assert kbs == ["news"]


def test_reinserting_replaces_instead_of_duplicating(client: TestClient) -> None:
    insert(client)
    insert(client)  # identical: left alone
    wait_indexed(client)
    insert(client, text="메타버스 플랫폼 제페토의 이용자가 늘었다.", author="네이버")
    wait_indexed(client)
    docs = documents_of(client, "news")
    assert len(docs) == 1 and docs[0]["status"] == "completed"
    body = client.get("/rag/document", params={"doc_id": DOC_ID}).json()
    assert body["passages"][0]["text"] == "메타버스 플랫폼 제페토의 이용자가 늘었다."
    hits = search(client, domain="news")
    assert {h["author"] for h in hits} == {"네이버"}
    assert all("비대면" not in h["text"] for h in hits)


def test_the_same_id_in_another_domain_moves_the_document(client: TestClient) -> None:
    insert(client)
    wait_indexed(client)
    insert(client, domain="tech")
    wait_indexed(client)
    assert documents_of(client, "news") == []
    assert client.get("/rag/document", params={"doc_id": DOC_ID}).json()["domain"] == "tech"


def test_every_search_filter(client: TestClient) -> None:
    insert(client)
    insert(
        client,
        title="메타버스 교육",
        author="교육부",
        text="메타버스 교실에서 학생들이 수업을 듣는다.",
        info={"press_num": "교육신문"},
        tags={"date": "20240410", "user": "teacher"},
    )
    insert(
        client,
        domain="tech",
        title="메타버스 기기",
        author="삼성전자",
        text="메타버스 헤드셋 신제품이 공개되었다.",
        tags={"date": "20240501"},
    )
    wait_indexed(client)
    titles = lambda hits: sorted(h["title"] for h in hits)  # noqa: E731
    assert titles(search(client)) == ["메타버스 교육", "메타버스 기기", "메타버스 뉴스"]
    assert titles(search(client, domain="news")) == ["메타버스 교육", "메타버스 뉴스"]
    assert titles(search(client, author="삼성전자")) == ["메타버스 기기", "메타버스 뉴스"]
    assert titles(search(client, start_date="20240401")) == ["메타버스 교육", "메타버스 기기"]
    assert titles(search(client, end_date="20240315")) == ["메타버스 뉴스"]
    assert titles(search(client, title="교육")) == ["메타버스 교육"]
    assert titles(search(client, info_filter='{"press_num": "교육신문"}')) == ["메타버스 교육"]
    assert titles(search(client, tags_filter='{"user": "admin"}')) == ["메타버스 뉴스"]
    assert titles(search(client, tags_filter='{"date": "20240501"}')) == ["메타버스 기기"]
    assert search(client, domain="sports") == []
    assert len(search(client, top_k=1)) == 1
    hits = search(client, domain="news", title="뉴스")
    assert hits[0]["doc_id"] == DOC_ID and 0.0 <= hits[0]["score"] <= 1.0
    params = client.get(
        "/rag/search",
        params={"query_text": "메타버스", "domain": "news", "start_date": "20240301"},
    ).json()["search_params"]
    assert params == {
        "query_text": "메타버스",
        "top_k": 5,
        "filters": {"domain": "news", "date_range": {"start": "20240301"}},
    }


def test_passages_of_a_long_document(client: TestClient) -> None:
    sentences = [f"{i}번째 문단은 메타버스 산업의 다른 측면을 설명한다. " * 6 for i in range(1, 6)]
    insert(client, text="\n\n".join(sentences))
    wait_indexed(client)
    body = client.get("/rag/document", params={"doc_id": DOC_ID}).json()
    passages = body["passages"]
    assert len(passages) > 1
    assert [p["position"] for p in passages] == list(range(1, len(passages) + 1))
    second = client.get("/rag/document", params={"doc_id": DOC_ID, "passage_id": 2}).json()
    assert second["passages"] == [passages[1]]
    shown = client.get("/rag/data/show", params={"collection_name": "news"}).json()
    assert shown["partition_nums"] == {"_default": len(passages)}
    fields = {f["name"]: f for f in shown["schema"]["fields"]}
    assert fields["vector"] == {"name": "vector", "type": "FLOAT_VECTOR", "params": {"dim": 384}}
    assert fields["date"]["type"] == "INT64" and fields["doc_id"]["type"] == "VARCHAR"


def test_delete_needs_the_matching_author_and_domain(client: TestClient) -> None:
    insert(client)
    wait_indexed(client)
    params = {"date": "20240315", "title": "메타버스 뉴스", "author": "삼성전자", "domain": "news"}
    for wrong in ({"author": "LG전자"}, {"domain": "tech"}, {"date": "20240316"}):
        assert client.delete("/rag/delete", params={**params, **wrong}).status_code == 200
        assert client.get("/rag/document", params={"doc_id": DOC_ID}).status_code == 200
    assert client.delete("/rag/delete", params=params).json() == {"status": "received"}
    assert client.get("/rag/document", params={"doc_id": DOC_ID}).status_code == 404
    assert search(client, domain="news") == []
    assert client.delete("/rag/delete", params=params).status_code == 200  # idempotent


def test_enhanced_search_reranks_candidates(rerank_client: TestClient, rerank_model_dir) -> None:  # type: ignore[no-untyped-def]
    for i in range(4):
        insert(
            rerank_client,
            title=f"메타버스 기사 {i}",
            text=f"메타버스 관련 {i}번째 기사 본문이다. 시장 동향 {i}.",
        )
    wait_indexed(rerank_client)
    response = rerank_client.get(
        "/reranker/enhanced-search",
        params={"query_text": "메타버스 동향", "top_k": 2, "raw_results": 3, "domain": "news"},
    )
    body = response.json()
    assert response.status_code == 200 and body["result_code"] == "F000000", body
    assert body["search_params"]["raw_results"] == 3 and body["search_params"]["top_k"] == 2
    hits = body["search_result"]
    assert len(hits) == 2
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    reranker = CrossEncoderReranker(str(rerank_model_dir))
    for hit in hits:
        expected = reranker.score("메타버스 동향", [hit["text"]])[0]
        assert abs(hit["score"] - expected) < 1e-4


def test_rerank_and_batch_rerank_order_and_cut(rerank_client: TestClient) -> None:
    candidates = [
        {"passage_id": i, "doc_id": f"d{i}", "text": text, "score": 0.1, "metadata": {"k": i}}
        for i, text in enumerate(["메타버스 시장", "주식 시장 하락", "날씨 맑음", "메타버스 교육"])
    ]
    body = {"query": "메타버스 동향", "results": candidates}
    full = rerank_client.post("/reranker/rerank", json=body).json()
    assert full["total"] == 4 and full["reranked"] is True and full["query"] == "메타버스 동향"
    scores = [r["score"] for r in full["results"]]
    assert scores == sorted(scores, reverse=True)
    assert {r["passage_id"] for r in full["results"]} == {0, 1, 2, 3}
    assert all(r["metadata"] == {"k": r["passage_id"]} for r in full["results"])
    cut = rerank_client.post("/reranker/rerank", params={"top_k": 2}, json=body).json()
    assert cut["results"] == full["results"][:2] and cut["total"] == 2
    batch = rerank_client.post(
        "/reranker/batch_rerank", params={"top_k": 1}, json=[body, {**body, "query": "날씨"}]
    ).json()
    assert [b["query"] for b in batch] == ["메타버스 동향", "날씨"]
    assert batch[0]["results"] == full["results"][:1]
    assert all(b["total"] == 1 and b["reranked"] for b in batch)
    empty = rerank_client.post("/reranker/rerank", json={"query": "q", "results": []}).json()
    assert empty == {"query": "q", "results": [], "total": 0, "reranked": True}


def test_openapi_documents_every_dialect_route_with_examples(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    routes = {
        ("post", "/rag/insert"): "spec-000 rag",
        ("get", "/rag/search"): "spec-000 rag",
        ("delete", "/rag/delete"): "spec-000 rag",
        ("get", "/rag/document"): "spec-000 rag",
        ("get", "/rag/data/show"): "spec-000 rag",
        ("get", "/reranker/enhanced-search"): "spec-000 reranker",
        ("post", "/reranker/rerank"): "spec-000 reranker",
        ("post", "/reranker/batch_rerank"): "spec-000 reranker",
        ("post", "/api/v1/rag/retrieve"): "spec-003",
        ("post", "/api/v1/chunks/similarity-search"): "spec-003",
        ("get", "/api/v1/health"): "spec-003",
        ("get", "/api/v1/retrieve/resources"): "spec-004",
        ("post", "/api/v1/retrieve"): "spec-004",
        ("post", "/prompt/summarize"): "spec-000 prompt",
        ("post", "/prompt/chat"): "spec-000 prompt",
        ("get", "/prompt/models"): "spec-000 prompt",
        ("post", "/ai/v2/plan"): "ask (spec 002)",
        ("post", "/ai/v2/ask"): "ask (spec 002)",
        ("get", "/ai/v2/traces"): "ask (spec 002)",
        ("get", "/ai/v2/traces/{trace_id}"): "ask (spec 002)",
    }
    for (method, path), tag in routes.items():
        operation = spec["paths"][path][method]
        assert operation["tags"] == [tag], path
        if "requestBody" in operation:
            assert has_examples(operation["requestBody"], spec), f"{path}: request example"
        elif operation.get("parameters"):
            assert has_examples(operation["parameters"], spec), f"{path}: parameter examples"
        assert has_examples(operation["responses"]["200"], spec), f"{path}: response example"
    assert "20240315-메타버스-뉴스" in json.dumps(spec, ensure_ascii=False)


def has_examples(node: object, spec: dict) -> bool:
    """Whether an OpenAPI node, or a schema it refers to, carries an example."""
    text = json.dumps(node)
    refs = re.findall(r'"#/components/schemas/([^"]+)"', text)
    schemas = [json.dumps(spec["components"]["schemas"][ref]) for ref in refs]
    return any('"example' in t for t in [text, *schemas])


def test_reinserting_while_the_first_version_is_indexing_leaves_no_stale_passages(
    client: TestClient,
) -> None:
    long_text = "\n\n".join(
        f"{i}번째 문단: 메타버스 산업의 한 측면을 길게 설명한다. " * 8 for i in range(12)
    )
    insert(client, text=long_text)
    insert(client, text="짧은 새 본문이다.")  # no wait: the first version may still be indexing
    wait_indexed(client)
    body = client.get("/rag/document", params={"doc_id": DOC_ID}).json()
    assert [p["text"] for p in body["passages"]] == ["짧은 새 본문이다."]
    shown = client.get("/rag/data/show", params={"collection_name": "news"}).json()
    assert shown["partition_nums"] == {"_default": 1}
