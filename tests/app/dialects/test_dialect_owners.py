"""Per-user documents in the spec 000, 003 and 004 dialects, with auth off (the `user_id`
extension, or spec 000's `tags.user` / `tags_filter.user`, is trusted) and on (the principal is
the user): user A's request never holds user B's text or document ids in any field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from planrag.core.settings import RerankSettings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.owners import QUESTION, WORDS, team_app, upload, wait
from tests.app.sse import events

OTHER = {"alice": "bob", "bob": "alice"}


@pytest.fixture(scope="module", params=["auth-off", "auth-on"])
def team(  # type: ignore[no-untyped-def]
    request, tmp_path_factory, embedders: EmbedderRegistry, rerank_model_dir: Path
) -> Iterator[dict[str, Any]]:
    auth = request.param == "auth-on"
    rerank = RerankSettings(model=str(rerank_model_dir))
    yield from team_app(tmp_path_factory.mktemp(request.param), embedders, auth, rerank=rerank)


def call(
    team: dict[str, Any], who: str | None, method: str, path: str, **kw: Any
) -> httpx.Response:
    """A request as `who` (None: no user with auth off, the admin key with auth on)."""
    params = dict(kw.pop("params", {}))
    if who is not None and not team["heads"][who]:  # auth off: the user_id extension
        params["user_id"] = who
    headers = team["heads"][who or "admin"]
    return team["client"].request(method, path, params=params, headers=headers, **kw)


def assert_only_own(team: dict[str, Any], who: str, response: httpx.Response) -> None:
    assert response.status_code == 200, response.text
    other = OTHER[who]
    assert WORDS[other] not in response.text
    assert team["docs"][other]["id"] not in response.text
    assert WORDS[who] in response.text  # not vacuous: the user's own document is there


SEARCH = {"query_text": QUESTION, "domain": "team", "top_k": 10}
RETRIEVE_003 = {"query": QUESTION, "grade": 0.0, "knowledgeBases": ["team"]}
RETRIEVE_004 = {"query": QUESTION, "resources": ["rag://team"], "max_results": 10}


@pytest.mark.parametrize("who", ["alice", "bob"])
def test_spec000_reads_show_only_the_users_documents(team, who: str) -> None:  # type: ignore[no-untyped-def]
    assert_only_own(team, who, call(team, who, "GET", "/rag/search", params=SEARCH))
    enhanced = {**SEARCH, "raw_results": 10, "top_k": 5}
    assert_only_own(team, who, call(team, who, "GET", "/reranker/enhanced-search", params=enhanced))
    summary = call(
        team, who, "POST", "/prompt/summarize", json={"query": QUESTION, "domain": "team"}
    )
    assert_only_own(team, who, summary)
    chat = call(
        team, who, "POST", "/prompt/chat", json={"query": QUESTION, "knowledge_bases": ["team"]}
    )
    assert_only_own(team, who, chat)
    own, foreign = team["docs"][who]["id"], team["docs"][OTHER[who]]["id"]
    assert_only_own(team, who, call(team, who, "GET", "/rag/document", params={"doc_id": own}))
    refused = call(team, who, "GET", "/rag/document", params={"doc_id": foreign})
    assert refused.status_code == 404 and WORDS[OTHER[who]] not in refused.text


@pytest.mark.parametrize("who", ["alice", "bob"])
def test_spec003_and_004_show_only_the_users_documents(  # type: ignore[no-untyped-def]
    team, who: str, embedders: EmbedderRegistry
) -> None:
    assert_only_own(team, who, call(team, who, "POST", "/api/v1/rag/retrieve", json=RETRIEVE_003))
    vector = embedders.get().embed_queries([QUESTION])[0]
    similar = {"queryEmbedding": vector, "topK": 10, "knowledgeBases": ["team"]}
    assert_only_own(
        team, who, call(team, who, "POST", "/api/v1/chunks/similarity-search", json=similar)
    )
    # naming the other's document narrows to nothing, never to theirs
    foreign = {**RETRIEVE_003, "docIds": [team["docs"][OTHER[who]]["id"]]}
    got = call(team, who, "POST", "/api/v1/rag/retrieve", json=foreign)
    assert got.status_code == 200 and got.json()["results"] == []
    local = call(team, who, "POST", "/api/v1/retrieve", json={**RETRIEVE_004, "local_search": True})
    assert_only_own(team, who, local)
    background = {**RETRIEVE_004, "background_search": True}
    assert_only_own(team, who, call(team, who, "POST", "/api/v1/retrieve", json=background))


def test_who_the_user_is(team) -> None:  # type: ignore[no-untyped-def]
    """Auth off without a user: none of a per-user KB's documents. Auth on: naming another
    user is a 403."""
    if team["heads"]["alice"]:
        bob = team["users"]["bob"]
        params = {**SEARCH, "user_id": bob}
        got = team["client"].get("/rag/search", params=params, headers=team["heads"]["alice"])
        assert got.status_code == 403 and WORDS["bob"] not in got.text
        return
    for method, path, kw in (
        ("GET", "/rag/search", {"params": SEARCH}),
        ("POST", "/api/v1/rag/retrieve", {"json": RETRIEVE_003}),
        ("POST", "/api/v1/retrieve", {"json": {**RETRIEVE_004, "local_search": True}}),
    ):
        got = call(team, None, method, path, **kw)
        assert got.status_code == 200, got.text
        assert WORDS["alice"] not in got.text and WORDS["bob"] not in got.text


def test_spec000_insert_sets_the_owner(team) -> None:  # type: ignore[no-untyped-def]
    """The owner is the principal with auth on, `tags.user` with auth off; another user can
    neither read, delete nor replace the document."""
    client, heads, admin = team["client"], team["heads"], team["heads"]["admin"]
    kb = client.post(
        "/api/knowledge-bases", json={"name": "notes", "per_user": True}, headers=admin
    ).json()
    doc = {
        "domain": "notes",
        "title": "알파카 메모",
        "author": "alice",
        "text": "알파카 메모: 회의는 목요일이다.",
        "tags": {"date": "20250101", "user": "alice"},
    }
    assert client.post("/rag/insert", json=doc, headers=heads["alice"]).status_code == 200
    client.app.state.runtime.ingestion.wait(timeout=120)  # type: ignore[attr-defined]
    listed = client.get(f"/api/knowledge-bases/{kb['id']}/documents", headers=admin).json()
    assert [d["metadata"]["user_id"] for d in listed] == [team["users"]["alice"]]
    public = "20250101-알파카-메모"
    if not heads["alice"]:  # auth off: spec 000's own user field finds it again
        found = client.get(
            "/rag/search",
            params={"query_text": "회의", "domain": "notes", "tags_filter": '{"user": "alice"}'},
        )
        assert found.status_code == 200 and "목요일" in found.text
    got = call(team, "alice", "GET", "/rag/document", params={"doc_id": public})
    assert got.status_code == 200 and "목요일" in got.text
    assert call(team, "bob", "GET", "/rag/document", params={"doc_id": public}).status_code == 404
    gone = {"date": "20250101", "title": "알파카 메모", "author": "alice", "domain": "notes"}
    assert call(team, "bob", "DELETE", "/rag/delete", params=gone).status_code == 200
    assert call(team, "alice", "GET", "/rag/document", params={"doc_id": public}).status_code == 200
    if not heads["alice"]:  # auth off, no tags.user: an unowned document, re-insertable
        unowned = {**doc, "title": "주인 없는 메모", "tags": {"date": "20250102"}}
        for _ in range(2):
            assert client.post("/rag/insert", json=unowned).status_code == 200
    theft = {**doc, "text": "바꿔치기", "tags": {"date": "20250101", "user": "bob"}}
    replaced = client.post("/rag/insert", json=theft, headers=heads["bob"])
    assert replaced.status_code == 403, replaced.text


MUSK = "일론 머스크는 SpaceX의 CEO이다. SpaceX는 Starship을 만든다."
TESLA = "Elon Musk, CEO of Tesla, met Tim Cook. 일론 머스크는 테슬라의 창업자다."
TESLA_WORDS = ("Tesla", "테슬라", "Tim Cook")


def test_graph_search_names_only_the_users_entities(team) -> None:  # type: ignore[no-untyped-def]
    """On a per-user KB with a graph, entities and relations another user's document alone
    holds never show: not in spec 004's entities, not in /retrieve's graph_metadata."""
    client, heads, admin = team["client"], team["heads"], team["heads"]["admin"]
    body = {"name": "graphs", "per_user": True, "graph_backend": "ontology"}
    kb = client.post("/api/knowledge-bases", json=body, headers=admin).json()
    for who, name, text in (("alice", "musk.txt", MUSK), ("bob", "tesla.txt", TESLA)):
        form = {} if heads[who] else {"user_id": who}
        made = upload(client, kb["id"], name, text, heads[who], **form)
        assert made.status_code == 202, made.text
    wait(client, kb["id"], admin)
    question = {"query": "일론 머스크와 관련된 회사는?", "resources": ["rag://graphs"]}
    got = call(
        team, "alice", "POST", "/api/v1/retrieve", json={**question, "background_search": True}
    )
    assert got.status_code == 200, got.text
    names = {e["entity"] for e in got.json()["result"]["entities"]}
    assert "SpaceX" in names and not names & set(TESLA_WORDS)
    assert not any(w in got.text for w in TESLA_WORDS)
    theirs = call(
        team, "bob", "POST", "/api/v1/retrieve", json={**question, "background_search": True}
    )
    assert "테슬라" in {e["entity"] for e in theirs.json()["result"]["entities"]}
    assert "SpaceX" not in theirs.text and "Starship" not in theirs.text
    ask = {"question": "일론 머스크와 관계있는 회사는?", "knowledge_bases": ["graphs"]}
    if not heads["alice"]:
        ask["user_id"] = "alice"
    asked = client.post("/ai/v2/ask", json=ask, headers=heads["alice"])
    assert asked.status_code == 200, asked.text
    plan = next(d for n, d in events(asked) if n == "search_plan")["plan"]
    assert plan["graph"]["enabled"], plan  # the ask path's graph search ran, restricted
    assert "SpaceX" in asked.text and not any(w in asked.text for w in TESLA_WORDS)
    if heads["alice"]:  # /retrieve names no user: with auth on the principal is the user
        search = {"query": question["query"], "enable_graph_search": True, "top_k": 5}
        hits = client.post(
            f"/api/knowledge-bases/{kb['id']}/retrieve", json=search, headers=heads["alice"]
        )
        assert hits.status_code == 200 and hits.json(), hits.text
        meta = hits.json()[0]["graph_metadata"]
        assert meta and "SpaceX" in str(meta)
        assert not any(w in hits.text for w in TESLA_WORDS)
        # the console's graph pages: the admin sees the whole graph, alice her documents' part
        url = f"/api/knowledge-bases/{kb['id']}/graph"
        whole = client.get(url, headers=admin).json()
        tesla = next(n for n in whole["nodes"] if n["name"] in TESLA_WORDS)
        mine = client.get(url, headers=heads["alice"])
        assert mine.status_code == 200 and "SpaceX" in mine.text, mine.text
        assert not any(w in mine.text for w in TESLA_WORDS)
        near = client.get(url, params={"entity": tesla["name"]}, headers=heads["alice"])
        assert near.json()["nodes"] == [], near.text
        sources = f"{url}/entities/{tesla['id']}/sources"
        assert client.get(sources, headers=admin).status_code == 200
        assert client.get(sources, headers=heads["alice"]).status_code == 404
