"""Our copies of the spec's request examples (used when ../shared/spec is absent, as in a plain
clone) parse to the requests the contract tests expect — and, when the specification is present,
to exactly the spec's own examples."""

from __future__ import annotations

from tests.app.dialects.spec_examples import (
    copied_spec_text,
    curl_examples,
    json_requests,
    original_spec_text,
    request_lines,
)


def parsed(prefix: str, text: str) -> list:
    if prefix == "003":
        return json_requests(text)
    return request_lines(text) + curl_examples(text)


def test_our_copies_cover_every_example_route() -> None:
    assert {e.route for e in parsed("000", copied_spec_text("000"))} == {
        *("/rag/insert", "/rag/search", "/rag/delete", "/rag/data/show"),
        *("/reranker/enhanced-search", "/reranker/rerank", "/reranker/batch_rerank"),
        *("/prompt/summarize", "/prompt/chat", "/prompt/models"),
    }
    assert [route for route, _ in parsed("003", copied_spec_text("003"))] == [
        "/api/v1/rag/retrieve",
        "/api/v1/chunks/similarity-search",
    ]
    assert [e.route for e in parsed("004", copied_spec_text("004"))] == [
        "/api/v1/retrieve/resources",
        "/api/v1/retrieve",
    ]


def test_our_copies_say_what_the_spec_says_when_it_is_present() -> None:
    for prefix in ("000", "003", "004"):
        original = original_spec_text(prefix)
        if original is not None:
            assert parsed(prefix, copied_spec_text(prefix)) == parsed(prefix, original), prefix
