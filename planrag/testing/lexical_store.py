"""The lexical-store conformance suite: every lexical backend runs it unchanged; only the
`make_store` fixture differs (haystack's document-store testing pattern).

`make_store(source)` returns an empty store that reads its rows from `source` (kb_id → rows);
the suite changes the rows and calls `mark_dirty`, as ingestion does.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from planrag.core.filters import And, Contains, Eq, In, Range
from planrag.stores.lexical import LexicalRow, LexicalStore, RowSource

MakeStore = Callable[[RowSource], LexicalStore]


def rows() -> list[LexicalRow]:
    """Six chunks of three documents (metadata is the document's); tokens as the tokenizer
    would give them."""
    texts = [
        ["공공", "자전거", "요금", "인상"],
        ["박물관", "월요일", "휴관"],
        ["자전거", "도로", "확충", "자전거"],
        ["museum", "close", "monday"],
        ["bike", "rental", "fee"],
        ["집", "차", "빵"],  # one-syllable Korean nouns count
    ]
    return [
        LexicalRow(
            chunk_id=f"doc{i % 3}:{i}",
            doc_id=f"doc{i % 3}",
            tokens=tokens,
            title=f"Title {i % 3}",
            author=["kim", "lee", "o'brien"][i % 3],
            domain="news" if i % 3 == 1 else "blog",
            date=20240101 + i % 3,
        )
        for i, tokens in enumerate(texts)
    ]


class LexicalStoreConformance:
    """Mixin: subclasses provide a `make_store` fixture (see the module docstring)."""

    @pytest.fixture
    def data(self) -> dict[str, list[LexicalRow]]:
        return {"kb": rows()}

    @pytest.fixture
    def store(self, make_store: MakeStore, data: dict[str, list[LexicalRow]]) -> LexicalStore:
        return make_store(lambda kb_id: list(data.get(kb_id, [])))

    def test_is_a_lexical_store(self, store: LexicalStore) -> None:
        assert isinstance(store, LexicalStore)

    def test_search_best_first_with_normalised_scores(self, store: LexicalStore) -> None:
        hits = store.search("kb", ["자전거"], 10)
        assert [h.chunk_id for h in hits] == ["doc2:2", "doc0:0"]  # twice the word ranks first
        assert all(0.0 <= h.score <= 1.0 for h in hits)
        assert hits[0].raw >= hits[1].raw and hits[0].score >= hits[1].score

    def test_unknown_words_and_empty_kbs_find_nothing(self, store: LexicalStore) -> None:
        assert store.search("kb", ["없는말"], 10) == []
        assert store.search("kb", [], 10) == []
        assert store.search("empty", ["자전거"], 10) == []
        assert store.size("empty") == 0

    def test_one_syllable_tokens_are_searchable(self, store: LexicalStore) -> None:
        assert [h.chunk_id for h in store.search("kb", ["빵"], 10)] == ["doc2:5"]

    def test_k_limits(self, store: LexicalStore) -> None:
        assert len(store.search("kb", ["자전거", "museum", "bike"], 2)) == 2

    def test_filters(self, store: LexicalStore) -> None:
        words = ["자전거", "museum", "bike", "휴관"]
        one_doc = store.search("kb", words, 10, In(field="doc_id", values=["doc1"]))
        assert {h.chunk_id for h in one_doc} == {"doc1:1", "doc1:4"}
        by_author = store.search("kb", words, 10, Eq(field="author", value="o'brien"))
        assert {h.chunk_id for h in by_author} == {"doc2:2"}
        dated = store.search("kb", words, 10, Range(field="date", gte=20240102, lte=20240103))
        assert {h.chunk_id for h in dated} == {"doc1:1", "doc1:4", "doc2:2"}
        title = Contains(field="title", value="Title 0")
        both = And(items=[title, Eq(field="domain", value="blog")])
        assert {h.chunk_id for h in store.search("kb", words, 10, both)} == {"doc0:0", "doc0:3"}
        assert store.search("kb", words, 10, In(field="doc_id", values=[])) == []

    def test_ranges_match_dated_rows_only(
        self, store: LexicalStore, data: dict[str, list[LexicalRow]]
    ) -> None:
        """An undated row (date 0) is in no range, an open-start one ("before X") included."""
        undated = rows()[0].model_copy(update={"chunk_id": "doc9:9", "doc_id": "doc9", "date": 0})
        data["kb"] = [*data["kb"], undated]
        store.mark_dirty("kb")
        before = Range(field="date", lte=20240102)
        assert {h.chunk_id for h in store.search("kb", ["자전거"], 10, before)} == {"doc0:0"}
        assert {h.chunk_id for h in store.search("kb", ["자전거"], 10)} >= {"doc9:9"}

    def test_scores_for_given_chunks(self, store: LexicalStore) -> None:
        scores = store.scores_for("kb", ["자전거"], ["doc0:0", "doc1:1", "missing"])
        assert scores["doc0:0"] > 0.0
        assert scores.get("doc1:1", 0.0) == 0.0 and scores.get("missing", 0.0) == 0.0
        searched = {h.chunk_id: h.score for h in store.search("kb", ["자전거"], 10)}
        assert scores["doc0:0"] == pytest.approx(searched["doc0:0"])

    def test_changes_are_seen_after_mark_dirty(
        self, store: LexicalStore, data: dict[str, list[LexicalRow]]
    ) -> None:
        assert store.size("kb") == 6
        data["kb"] = [r for r in data["kb"] if r.doc_id != "doc2"]
        store.mark_dirty("kb")
        assert store.size("kb") == 4
        assert [h.chunk_id for h in store.search("kb", ["자전거"], 10)] == ["doc0:0"]

    def test_knowledge_bases_are_separate_and_drop_forgets(
        self, store: LexicalStore, data: dict[str, list[LexicalRow]]
    ) -> None:
        data["other"] = [rows()[3]]
        assert [h.chunk_id for h in store.search("other", ["museum"], 10)] == ["doc0:3"]
        assert store.search("other", ["자전거"], 10) == []
        store.drop("other")
        data.pop("other")
        assert store.search("other", ["museum"], 10) == []
        assert store.size("kb") == 6
