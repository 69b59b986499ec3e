"""Per-user documents (spec 002 `user_id`, post ownership) and `category_ids`, with auth off
(the body's user_id is trusted) and on (the principal is the user): user A's ask never returns
user B's passages in any event; document mode refuses another user's document with 403."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from planrag.llm.embedders import EmbedderRegistry
from tests.app.owners import NOW, QUESTION, sse, team_app, upload, wait


@pytest.fixture(scope="module", params=["auth-off", "auth-on"])
def team(request, tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    auth = request.param == "auth-on"
    yield from team_app(tmp_path_factory.mktemp(request.param), embedders, auth)


def ask(team: dict[str, Any], who: str, **body: Any) -> httpx.Response:
    body = {"question": QUESTION, "now": NOW, "knowledge_bases": ["team"], **body}
    if team["heads"][who] == {}:  # auth off: spec 002 clients send user_id
        body.setdefault("user_id", who)
    return team["client"].post("/ai/v2/ask", json=body, headers=team["heads"][who])


@pytest.mark.parametrize(("who", "other"), [("alice", "bob"), ("bob", "alice")])
def test_an_ask_never_returns_another_users_passages(team, who: str, other: str) -> None:  # type: ignore[no-untyped-def]
    response = ask(team, who)
    stream = sse(response)
    own, foreign = team["docs"][who], team["docs"][other]
    foreign_word = "비버" if other == "bob" else "알파카"
    own_word = "알파카" if who == "alice" else "비버"
    assert foreign_word not in response.text and foreign["id"] not in response.text
    context = next(d for n, d in stream if n == "context")
    assert [p["doc_id"] for p in context["passages"]] == [own["id"]]
    assert own_word in response.text
    assert [n for n, _ in stream][-1] == "end"


def test_a_listing_shows_only_the_users_documents(team) -> None:  # type: ignore[no-untyped-def]
    response = ask(team, "alice", question="최근 글 목록 보여줘")
    assert "비버" not in response.text and team["docs"]["bob"]["id"] not in response.text


def test_document_mode_refuses_another_users_document(team) -> None:  # type: ignore[no-untyped-def]
    refused = ask(team, "alice", doc_id=team["docs"]["bob"]["id"], question="요약해줘")
    assert refused.status_code == 403, refused.text
    assert "비버" not in refused.text
    own = ask(team, "alice", doc_id=team["docs"]["alice"]["id"], question="요약해줘")
    assert "알파카" in own.text and "비버" not in own.text


def test_who_the_user_is(team) -> None:  # type: ignore[no-untyped-def]
    """Auth off: no user_id, no documents of a per-user KB. Auth on: the principal is the user;
    a body or upload naming someone else is refused."""
    client, bob = team["client"], team["users"]["bob"]
    if not team["heads"]["alice"]:
        body = {"question": QUESTION, "now": NOW, "knowledge_bases": ["team"]}
        response = client.post("/ai/v2/ask", json=body)
        context = next(d for n, d in sse(response) if n == "context")
        assert context["passages"] == []
        assert "알파카" not in response.text and "비버" not in response.text
        return
    assert ask(team, "alice", user_id=bob).status_code == 403
    assert ask(team, "alice", user_id=team["users"]["alice"]).status_code == 200
    made = upload(
        client, team["kb"]["id"], "x.md", "다른 사람 이름으로", team["heads"]["alice"], user_id=bob
    )
    assert made.status_code == 403


def test_the_owner_is_shown_and_the_flag_can_change(team) -> None:  # type: ignore[no-untyped-def]
    client, kb, admin = team["client"], team["kb"], team["heads"]["admin"]
    got = client.get(
        f"/api/knowledge-bases/{kb['id']}/documents/{team['docs']['bob']['id']}", headers=admin
    ).json()
    assert got["metadata"]["user_id"] == team["users"]["bob"]
    path = f"/api/knowledge-bases/{kb['id']}"
    if team["heads"]["alice"]:  # a user of the KB cannot switch isolation off (nor delete it)
        for who in ("alice", "bob"):
            refused = client.patch(path, json={"per_user": False}, headers=team["heads"][who])
            assert refused.status_code == 403, refused.text
            assert client.delete(path, headers=team["heads"][who]).status_code == 403
        listed = client.get(f"{path}/documents", headers=team["heads"]["alice"]).json()
        assert [d["id"] for d in listed] == [team["docs"]["alice"]["id"]]
    assert client.patch(path, json={"per_user": False}, headers=admin).json()["per_user"] is False
    try:
        shared = ask(team, "alice")
        assert "비버" in shared.text  # no longer per-user: everyone's documents
    finally:
        assert client.patch(path, json={"per_user": True}, headers=admin).json()["per_user"]


def test_category_ids_filter_by_tags(team) -> None:  # type: ignore[no-untyped-def]
    client, admin = team["client"], team["heads"]["admin"]
    kb = client.post("/api/knowledge-bases", json={"name": "cats"}, headers=admin).json()
    for name, text, tags in (
        ("a.md", "출장비 정산 규정: 영수증은 7일 안에 낸다.", "7"),
        ("b.md", "출장비 정산 규정: 해외 출장은 사전 승인을 받는다.", "9"),
    ):
        assert upload(client, kb["id"], name, text, admin, tags=tags).status_code == 202
    wait(client, kb["id"], admin)
    body = {"question": "출장비 정산 규정", "now": NOW, "knowledge_bases": ["cats"]}
    for cats, kept, dropped in (([7], "영수증", "사전 승인"), (["9"], "사전 승인", "영수증")):
        response = client.post("/ai/v2/ask", json={**body, "category_ids": cats}, headers=admin)
        stream = sse(response)
        plan = next(d for n, d in stream if n == "search_plan")["plan"]
        assert plan["filters"]["tags"] == [str(cats[0])]
        assert kept in response.text and dropped not in response.text
    both = client.post("/ai/v2/ask", json=body, headers=admin)
    assert "영수증" in both.text and "사전 승인" in both.text


def test_openai_chat_answers_each_user_from_their_documents(team) -> None:  # type: ignore[no-untyped-def]
    client, heads = team["client"], team["heads"]
    for who, own, foreign in (("alice", "알파카", "비버"), ("bob", "비버", "알파카")):
        body: dict[str, Any] = {
            "model": "team",
            "messages": [{"role": "user", "content": QUESTION}],
        }
        if not heads[who]:
            body["user"] = who  # OpenAI's end-user field, trusted with auth off
        response = client.post("/v1/chat/completions", json=body, headers=heads[who])
        assert response.status_code == 200, response.text
        assert own in response.text and foreign not in response.text
    if heads["alice"]:  # auth on: naming someone else is refused
        body = {"model": "team", "messages": [{"role": "user", "content": QUESTION}]}
        body["user"] = team["users"]["bob"]
        assert (
            client.post("/v1/chat/completions", json=body, headers=heads["alice"]).status_code
            == 403
        )


def test_the_document_api_keeps_other_users_documents_out(team) -> None:  # type: ignore[no-untyped-def]
    """With auth on a non-admin sees only their documents of a per-user KB (list, get, chunks,
    delete); with auth off everyone is the open admin and sees all."""
    client, heads, kb = team["client"], team["heads"], team["kb"]
    path = f"/api/knowledge-bases/{kb['id']}/documents"
    bob_doc = team["docs"]["bob"]["id"]
    listed = {d["id"] for d in client.get(path, headers=heads["alice"]).json()}
    if not heads["alice"]:
        assert bob_doc in listed
        return
    assert listed == {team["docs"]["alice"]["id"]}
    for method, suffix in (("GET", ""), ("GET", "/chunks"), ("DELETE", "")):
        got = client.request(method, f"{path}/{bob_doc}{suffix}", headers=heads["alice"])
        missing = client.request(method, f"{path}/no-such-doc{suffix}", headers=heads["alice"])
        # exactly what a missing document gets: nothing tells that the id exists
        assert got.status_code == missing.status_code == 404 and "비버" not in got.text
        assert same_answer(got, bob_doc, missing, "no-such-doc")
    chunks = client.get(f"{path}/{bob_doc}/chunks", headers=heads["bob"])
    assert chunks.status_code == 200 and "비버" in chunks.text
    assert bob_doc in {d["id"] for d in client.get(path, headers=heads["admin"]).json()}


def test_retrieve_on_a_per_user_kb_returns_only_the_callers_documents(team) -> None:  # type: ignore[no-untyped-def]
    client, heads, kb = team["client"], team["heads"], team["kb"]
    path = f"/api/knowledge-bases/{kb['id']}/retrieve"
    got = client.post(path, json={"query": QUESTION}, headers=heads["alice"])
    assert got.status_code == 200, got.text
    if heads["alice"]:  # auth on: the caller's own
        assert [h["doc_id"] for h in got.json()] == [team["docs"]["alice"]["id"]]
    else:  # auth off: /retrieve names no user, so nothing of a per-user KB
        assert got.json() == []
    assert "비버" not in got.text


def test_planning_sees_only_the_users_documents(team) -> None:  # type: ignore[no-untyped-def]
    """Facets (authors, dates) and the relax check's count are the asker's documents only: the
    plan never takes another user's author as a filter, and a period only another user's
    documents cover is relaxed rather than searched empty."""
    client, heads, admin = team["client"], team["heads"], team["heads"]["admin"]
    kb = client.post(
        "/api/knowledge-bases", json={"name": "dated", "per_user": True}, headers=admin
    ).json()
    for who, text, author, date in (
        ("alice", "출장 규정: 알파카 팀은 기차로 간다.", "김철수", "2025-01-10"),
        ("bob", "출장 규정: 비버 팀은 비행기로 간다.", "이영희", "2024-03-05"),
    ):
        form = {"author": author, "date": date} | ({} if heads[who] else {"user_id": who})
        made = upload(client, kb["id"], f"{who}-trip.md", text, heads[who], **form)
        assert made.status_code == 202, made.text
    wait(client, kb["id"], admin)

    def plan_of(question: str) -> tuple[dict[str, Any], str]:
        response = ask(team, "alice", question=question, knowledge_bases=["dated"])
        return next(d for n, d in sse(response) if n == "search_plan"), response.text

    envelope, _ = plan_of("이영희가 쓴 출장 규정")
    assert envelope["plan"]["filters"]["authors"] == []  # bob's author is not in alice's catalog
    envelope, _ = plan_of("김철수가 쓴 출장 규정")
    assert envelope["plan"]["filters"]["authors"] == ["김철수"]
    envelope, text = plan_of("2024년 3월 출장 규정")
    relaxed = envelope["relaxed"]
    assert relaxed is not None, envelope  # bob's March 2024 document does not count for alice
    assert [s["documents"] for s in relaxed["steps"]] == [1]  # alice's one document
    assert "알파카" in text and "비버" not in text


def same_answer(got: httpx.Response, got_id: str, other: httpx.Response, other_id: str) -> bool:
    """The two answers are the same but for the id each names."""
    return (got.status_code, got.text.replace(got_id, "ID")) == (
        other.status_code,
        other.text.replace(other_id, "ID"),
    )


PATCHES: dict[str, Any] = {
    "title": "가로챈 제목",
    "author": "가로챈 저자",
    "domain": "stolen",
    "date": "2020-01-01",
    "info": "가로챈 정보",
    "tags": ["stolen"],
    "user_id": None,  # per test: the caller's own id, the other user's id, or null
}


def test_patch_checks_the_owner_for_every_field(team) -> None:  # type: ignore[no-untyped-def]
    """PATCH on a per-user KB: another user's document is a 404 (as a missing one) whatever
    the field and changes nothing; the owner edits their document but cannot give it away (nor
    take one); an admin may do both. With auth off the caller is the open admin."""
    client, heads, users = team["client"], team["heads"], team["users"]
    if not heads["alice"]:
        return
    kb = client.post(
        "/api/knowledge-bases", json={"name": "patchy", "per_user": True}, headers=heads["admin"]
    ).json()
    path = f"/api/knowledge-bases/{kb['id']}/documents"
    docs = {}
    for who, text in (("alice", "알파카 메모"), ("bob", "비버 메모")):
        made = upload(client, kb["id"], f"{who}-memo.md", text, heads[who])
        assert made.status_code == 202, made.text
        docs[who] = made.json()[0]["id"]
    wait(client, kb["id"], heads["admin"])

    def metadata(doc_id: str) -> dict[str, Any]:
        got = client.get(f"{path}/{doc_id}", headers=heads["admin"])
        return dict(got.json()["metadata"])

    bob_before = metadata(docs["bob"])
    for field, value in PATCHES.items():
        for tried in [value] if field != "user_id" else [users["alice"], users["bob"], None]:
            body = {field: tried}
            got = client.patch(f"{path}/{docs['bob']}", json=body, headers=heads["alice"])
            missing = client.patch(f"{path}/no-such-doc", json=body, headers=heads["alice"])
            assert got.status_code == 404, (field, tried, got.text)
            assert same_answer(got, docs["bob"], missing, "no-such-doc"), (field, tried)
            assert "비버" not in got.text
    assert metadata(docs["bob"]) == bob_before
    listed = client.get(path, headers=heads["bob"]).json()
    assert [d["id"] for d in listed] == [docs["bob"]]

    # The owner: every field but the owner; handing the document over (or clearing the
    # owner) is an admin's act.
    for field, value in PATCHES.items():
        if field == "user_id":
            continue
        got = client.patch(f"{path}/{docs['alice']}", json={field: value}, headers=heads["alice"])
        assert got.status_code == 200, (field, got.text)
        assert got.json()["metadata"][field] == value
    for owner in (users["bob"], None):
        body = {"user_id": owner}
        got = client.patch(f"{path}/{docs['alice']}", json=body, headers=heads["alice"])
        assert got.status_code == 403, (owner, got.text)
    same = {"user_id": users["alice"]}
    assert client.patch(f"{path}/{docs['alice']}", json=same, headers=heads["alice"]).is_success
    assert metadata(docs["alice"])["user_id"] == users["alice"]

    # An admin hands bob's document to alice: now hers alone.
    given = {"user_id": users["alice"]}
    got = client.patch(f"{path}/{docs['bob']}", json=given, headers=heads["admin"])
    assert got.status_code == 200 and got.json()["metadata_updated"] == ["user_id"]
    wait(client, kb["id"], heads["admin"])
    assert {d["id"] for d in client.get(path, headers=heads["alice"]).json()} == set(docs.values())
    assert client.get(path, headers=heads["bob"]).json() == []
