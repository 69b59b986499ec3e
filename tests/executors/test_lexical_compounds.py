"""BM25 terms hold Korean compounds both ways (joined and split), content words do not."""

from __future__ import annotations

from planrag.stores.bm25 import LexicalIndex
from planrag.stores.lexical import LexicalRow
from planrag.text.tokenizer import LexicalTokenizer, tokenize_texts

DOCS = {
    "corona": "코로나바이러스는 새로운 병원체로 호흡기 질환을 일으킨다.",
    "flu": "독감 바이러스는 겨울에 흔하다.",
    "hands": "손 씻기는 감염 예방의 기본이다.",
}


def test_index_tokens_add_compounds_joined_and_split() -> None:
    tokenizer = LexicalTokenizer()
    # Kiwi splits a compound written as one word: the joined form counts too.
    assert tokenizer.tokenize("신종 코로나바이러스란?") == ["신종", "코로나", "바이러스"]
    assert tokenizer.index_tokens("신종 코로나바이러스란?") == [
        "신종",
        "코로나",
        "바이러스",
        "코로나바이러스",
    ]
    # Nouns written apart are not a compound.
    assert "코로나바이러스" not in tokenizer.index_tokens("코로나 시기의 바이러스")
    # Kiwi keeps a known name whole across a space: its words count too.
    assert tokenizer.tokenize("코로나바이러스 감염증") == ["코로나바이러스_감염증"]
    assert tokenizer.index_tokens("코로나바이러스 감염증") == [
        "코로나바이러스_감염증",
        "코로나바이러스",
        "감염증",
    ]
    # So do a knowledge base's multi-word user words; Latin text is unchanged.
    words = LexicalTokenizer(["한결 대학교"]).index_tokens("한결 대학교 연구소")
    assert {"한결_대학교", "한결", "대학교", "연구소"} <= set(words)
    assert tokenizer.index_tokens("Marine robots") == tokenizer.tokenize("Marine robots")
    # What ingestion stores for BM25.
    assert tokenize_texts((), ["신종 코로나바이러스란?"]) == [
        tokenizer.index_tokens("신종 코로나바이러스란?")
    ]


def test_bm25_matches_a_compound_however_it_is_written() -> None:
    tokenizer = LexicalTokenizer()
    rows = [
        LexicalRow(chunk_id=c, doc_id=c, tokens=tokens)
        for c, tokens in zip(DOCS, tokenizer.index_tokens_many(DOCS.values()), strict=True)
    ]
    index = LexicalIndex.build(rows)
    hits = index.search(tokenizer.index_tokens("코로나바이러스 감염증이란?"), 3)
    assert [h.chunk_id for h in hits] == ["corona"]
