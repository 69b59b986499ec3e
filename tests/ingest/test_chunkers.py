from __future__ import annotations

import random
import re

import pytest

from planrag.core.types import Chunk, ChunkingConfig, ChunkKind
from planrag.ingest.chunkers import chunk_document
from planrag.ingest.parsers import ParsedDocument, parse_document
from planrag.ingest.windows import count_tokens
from planrag.text.korean import split_sentences

KOREAN_SENTENCES = [
    "대한민국은 민주공화국이다.",
    "대한민국의 주권은 국민에게 있다.",
    "모든 권력은 국민으로부터 나온다.",
    "대한민국의 영토는 한반도와 그 부속도서로 한다.",
    "국가는 법률이 정하는 바에 의하여 재외국민을 보호할 의무를 진다.",
    "국군은 국가의 안전보장과 국토방위의 신성한 의무를 수행한다.",
    "정당의 설립은 자유이며, 복수정당제는 보장된다.",
    "모든 국민은 인간으로서의 존엄과 가치를 가진다.",
    "모든 국민은 법 앞에 평등하다.",
    "모든 국민은 신체의 자유를 가진다.",
    "모든 국민은 거주·이전의 자유를 가진다.",
    "모든 국민은 직업선택의 자유를 가진다.",
]
ENGLISH = (
    "Retrieval augmented generation combines search with language models. The retriever finds "
    "passages that are relevant to a question. The generator writes an answer grounded in them. "
    "Chunking decides how documents are cut before indexing. Chunks that are too large dilute "
    "the signal, while chunks that are too small lose their context. Overlap between windows "
    "keeps sentences that straddle a boundary retrievable from both sides."
)


def korean_text(paragraphs: int = 6, per_paragraph: int = 5) -> str:
    sentences = KOREAN_SENTENCES * (paragraphs * per_paragraph // len(KOREAN_SENTENCES) + 1)
    return "\n\n".join(
        " ".join(sentences[i * per_paragraph : (i + 1) * per_paragraph]) for i in range(paragraphs)
    )


def doc_of(text: str) -> ParsedDocument:
    return parse_document(text.encode(), "md")


def size(text: str, unit: str) -> int:
    return len(text) if unit == "chars" else count_tokens(text)


def check_honest(doc: ParsedDocument, chunks: list[Chunk], doc_id: str = "doc") -> None:
    """Ids, positions, offsets and text agree; nothing blank; every character is in a chunk."""
    assert chunks
    covered = [False] * len(doc.text)
    for position, chunk in enumerate(chunks):
        assert chunk.id == f"{doc_id}:{position}"
        assert chunk.position == position
        assert chunk.doc_id == doc_id
        assert chunk.text.strip()
        assert chunk.text == doc.text[chunk.start : chunk.end] == chunk.text.strip()
        assert chunk.page == doc.page_at(chunk.start)
        covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
    missed = [i for i, ch in enumerate(doc.text) if not ch.isspace() and not covered[i]]
    assert missed == []


def check_windows(chunks: list[Chunk], limit: int, overlap: int, unit: str) -> None:
    """Sizes within the limit; consecutive windows overlap (by at most `overlap` characters when
    counting characters, or by a whole last sentence of up to twice that) or, without overlap,
    do not."""
    for chunk in chunks:
        assert size(chunk.text, unit) <= limit
    for previous, current in zip(chunks, chunks[1:], strict=False):
        assert current.start > previous.start
        if overlap:
            assert current.start < previous.end
            if unit == "chars":
                assert previous.end - current.start <= 2 * overlap
        else:
            assert current.start >= previous.end


# --- size ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("chunk_size", "overlap"), [(100, 20), (200, 0), (60, 15), (500, 50)])
def test_size_chars(chunk_size: int, overlap: int) -> None:
    doc = doc_of(korean_text())
    config = ChunkingConfig(strategy="size", chunk_size=chunk_size, chunk_overlap=overlap)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    check_windows(chunks, chunk_size, overlap, "chars")
    assert all(chunk.kind == ChunkKind.chunk and chunk.parent_id is None for chunk in chunks)
    assert len(chunks) >= len(doc.text) // chunk_size


def test_an_overlap_opens_at_a_sentence_start() -> None:
    # The last sentence (107 characters) is longer than the overlap: the next window repeats
    # it whole rather than opening on "projectors are designed …".
    faq = (
        "## What is the warranty?\nBoth models come with a two-year warranty. Customers in the EU "
        "get a third year free when they register within 30 days.\n\n## Who manufactures the "
        "Lumen projectors?\nLumen projectors are designed in Oslo by Lumen Optics AS and "
        "assembled by Kyoto Precision in Shiga, Japan.\n\n## When was the X200 released?\nThe "
        "X200 went on sale on 14 October 2024, eleven months after the X100."
    )
    doc = doc_of(faq)
    config = ChunkingConfig(strategy="size", chunk_size=280, chunk_overlap=100)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    assert len(chunks) == 2
    assert chunks[1].text.startswith("Lumen projectors are designed")
    # A sentence start inside the overlap is taken as it is (the overlap only shrinks).
    config = ChunkingConfig(strategy="size", chunk_size=280, chunk_overlap=120)
    assert chunk_document(doc, config, "doc")[1].text.startswith("Lumen projectors are")
    config = ChunkingConfig(strategy="size", chunk_size=280, chunk_overlap=60)
    assert chunk_document(doc, config, "doc")[1].text.startswith("Lumen projectors are")
    # Longer than twice the overlap, the sentence is cut at a word start as before.
    config = ChunkingConfig(strategy="size", chunk_size=280, chunk_overlap=20)
    assert chunk_document(doc, config, "doc")[1].text.startswith("Kyoto Precision")


def test_size_never_cuts_inside_a_word_when_spaces_are_near() -> None:
    doc = doc_of(korean_text() + "\n\n" + ENGLISH)
    chunks = chunk_document(doc, ChunkingConfig(chunk_size=80, chunk_overlap=10), "doc")
    for chunk in chunks[:-1]:
        assert doc.text[chunk.end].isspace()
        assert chunk.start == 0 or doc.text[chunk.start - 1].isspace()


def test_size_prefers_sentence_ends() -> None:
    # Every sentence is shorter than the last fifth of a window, so every window can end at one.
    doc = doc_of(korean_text())
    assert max(map(len, KOREAN_SENTENCES)) < 200 * 0.2
    chunks = chunk_document(doc, ChunkingConfig(chunk_size=200, chunk_overlap=0), "doc")
    assert len(chunks) > 3
    assert all(chunk.text.endswith(".") for chunk in chunks)


def test_size_hard_cut_without_any_space() -> None:
    doc = ParsedDocument(text="가나다라마바사아자차" * 50)
    chunks = chunk_document(doc, ChunkingConfig(chunk_size=100, chunk_overlap=10), "doc")
    check_honest(doc, chunks)
    assert [len(chunk.text) for chunk in chunks[:-1]] == [100] * (len(chunks) - 1)
    assert all(b.start == a.end - 10 for a, b in zip(chunks, chunks[1:], strict=False))


def test_size_tokens_unit() -> None:
    doc = doc_of(ENGLISH + "\n\n" + korean_text())
    config = ChunkingConfig(strategy="size", unit="tokens", chunk_size=30, chunk_overlap=5)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    check_windows(chunks, 30, 5, "tokens")
    assert max(len(chunk.text) for chunk in chunks) > 30  # counted in tokens, not characters
    assert max(count_tokens(chunk.text) for chunk in chunks) >= 25  # and windows are well filled
    overlaps = [a.end - b.start for a, b in zip(chunks, chunks[1:], strict=False)]
    assert all(  # 5 tokens, or a whole last sentence of up to 10
        count_tokens(doc.text[b.start : a.end]) <= 10
        for a, b in zip(chunks, chunks[1:], strict=False)
    )
    assert all(gap > 0 for gap in overlaps)


def test_short_document_is_one_chunk() -> None:
    doc = doc_of("짧은 문서입니다.")
    for strategy in ("size", "context_aware"):
        chunks = chunk_document(doc, ChunkingConfig(strategy=strategy), "d")  # type: ignore[arg-type]
        assert [(c.id, c.text, c.start, c.end) for c in chunks] == [
            ("d:0", doc.text, 0, len(doc.text))
        ]


@pytest.mark.parametrize("strategy", ["size", "parent_child", "context_aware"])
def test_ids_are_deterministic(strategy: str) -> None:
    doc = doc_of("# 제목\n\n" + korean_text())
    config = ChunkingConfig(strategy=strategy, chunk_size=120, chunk_overlap=20)  # type: ignore[arg-type]
    first = chunk_document(doc, config, "kb1-doc7")
    assert first == chunk_document(doc, config, "kb1-doc7")
    assert [chunk.id for chunk in first] == [f"kb1-doc7:{i}" for i in range(len(first))]


@pytest.mark.parametrize("strategy", ["size", "parent_child", "context_aware"])
def test_blank_document_has_no_chunks(strategy: str) -> None:
    config = ChunkingConfig(strategy=strategy)  # type: ignore[arg-type]
    assert chunk_document(ParsedDocument(text=""), config, "d") == []
    assert chunk_document(ParsedDocument(text=" \n\n \t"), config, "d") == []


# --- parent / child -----------------------------------------------------------------------------


@pytest.mark.parametrize("unit", ["chars", "tokens"])
def test_parent_child(unit: str) -> None:
    doc = doc_of(korean_text(paragraphs=10) + "\n\n" + ENGLISH)
    parent_size, child_size = (300, 80) if unit == "chars" else (100, 25)
    config = ChunkingConfig(
        strategy="parent_child",
        unit=unit,  # type: ignore[arg-type]
        parent_size=parent_size,
        child_size=child_size,
        chunk_size=200,
        chunk_overlap=50,
    )
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    parents = [chunk for chunk in chunks if chunk.kind == ChunkKind.parent]
    assert len(parents) >= 3
    check_windows(parents, parent_size, 0, unit)
    child_overlap = min(50, child_size // 4)
    for parent in parents:
        assert parent.parent_id is None
        children = [chunk for chunk in chunks if chunk.parent_id == parent.id]
        assert children, "every parent has at least one child"
        # children follow their parent directly, inside its span, and cover it
        assert chunks[parent.position + 1 : parent.position + 1 + len(children)] == children
        assert all(c.kind == ChunkKind.child for c in children)
        assert all(parent.start <= c.start and c.end <= parent.end for c in children)
        check_windows(children, child_size, child_overlap, unit)
        assert children[0].start == parent.start and children[-1].end == parent.end
    assert all(c.kind in (ChunkKind.parent, ChunkKind.child) for c in chunks)
    assert sum(len([c for c in chunks if c.parent_id == p.id]) for p in parents) == len(
        chunks
    ) - len(parents)


# --- context aware ------------------------------------------------------------------------------

MARKDOWN = f"""# 헌법 개요

{" ".join(KOREAN_SENTENCES[:2])}

짧은 문단 하나.

짧은 문단 둘.

## 기본권

{" ".join(KOREAN_SENTENCES[7:12] * 3)}

## English section
{ENGLISH}

```python
# not a heading: a comment inside a code block
print("hello")
```

### 빈 절

## 마지막 절

마지막 문단이다.
"""
HEADING_LINE = re.compile(r"^#{1,6} .*$", re.MULTILINE)


def headings_in(doc: ParsedDocument) -> list[int]:
    offsets = [m.start() for m in HEADING_LINE.finditer(doc.text)]
    code = doc.text.index("# not a heading")
    return [offset for offset in offsets if offset != code]


def joined_heading(doc: ParsedDocument) -> int:
    """The heading under the bare "### 빈 절": the bare heading joins its section."""
    return doc.text.index("## 마지막 절")


def test_context_aware_never_crosses_a_heading() -> None:
    doc = doc_of(MARKDOWN)
    config = ChunkingConfig(strategy="context_aware", chunk_size=120, chunk_overlap=20)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    headings = headings_in(doc)
    assert len(headings) == 5
    crossable = joined_heading(doc)
    for chunk in chunks:
        assert size(chunk.text, "chars") <= 120
        inside = [h for h in headings if chunk.start < h < chunk.end and h != crossable]
        assert inside == [], f"chunk {chunk.id} crosses a heading: {chunk.text!r}"
    # each heading opens a chunk (headings stay with the text that follows them), but a
    # heading with nothing under it opens the next section's chunk
    starts = {chunk.start for chunk in chunks}
    assert all(h in starts for h in headings if h != crossable)
    # the code block's comment is not a heading: the code stays in one chunk
    assert any("# not a heading" in c.text and 'print("hello")' in c.text for c in chunks)


def test_context_aware_merges_small_paragraphs_of_a_section() -> None:
    doc = doc_of(MARKDOWN)
    config = ChunkingConfig(strategy="context_aware", chunk_size=120, chunk_overlap=20)
    texts = [chunk.text for chunk in chunk_document(doc, config, "doc")]
    assert (
        "# 헌법 개요\n\n" + " ".join(KOREAN_SENTENCES[:2]) + "\n\n짧은 문단 하나.\n\n짧은 문단 둘."
        in texts
    )
    # a heading with nothing under it joins the next section (never a chunk of its own)
    assert "### 빈 절" not in texts
    assert "### 빈 절\n\n## 마지막 절\n\n마지막 문단이다." in texts


def test_context_aware_splits_large_korean_paragraph_at_sentence_ends() -> None:
    paragraph = " ".join(KOREAN_SENTENCES * 2)
    doc = doc_of(f"## 긴 문단\n\n{paragraph}")
    config = ChunkingConfig(strategy="context_aware", chunk_size=100, chunk_overlap=10)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    start = doc.text.index(paragraph)
    sentence_ends = {start + end for _, end in split_sentences(paragraph)}
    sentence_starts = {start + begin for begin, _ in split_sentences(paragraph)}
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk.text) <= 100
        assert chunk.end in sentence_ends
        assert chunk.start in sentence_starts or chunk.start == 0
    # sentences are packed: no two neighbouring chunks would have fitted together
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.end - a.start > 100


def test_context_aware_sentence_longer_than_chunk_falls_back_to_windows() -> None:
    long_sentence = "이 문장은 " + "아주 " * 80 + "길다."
    doc = doc_of(f"# 제목\n\n짧은 문장이다. {long_sentence} 다음 문장이다.")
    config = ChunkingConfig(strategy="context_aware", chunk_size=60, chunk_overlap=10)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    assert all(len(chunk.text) <= 60 for chunk in chunks)
    assert chunks[0].text.startswith("# 제목\n\n짧은 문장이다.")
    assert chunks[-1].text.endswith("다음 문장이다.")
    windows = [c for c in chunks if "아주" in c.text]
    assert len(windows) >= 4
    assert all(b.start < a.end for a, b in zip(windows, windows[1:], strict=False))  # overlap


def test_context_aware_tokens_unit() -> None:
    doc = doc_of(MARKDOWN)
    config = ChunkingConfig(strategy="context_aware", unit="tokens", chunk_size=25, chunk_overlap=5)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    assert all(count_tokens(chunk.text) <= 25 for chunk in chunks)
    assert max(len(chunk.text) for chunk in chunks) > 25
    headings = [h for h in headings_in(doc) if h != joined_heading(doc)]
    assert all(not any(c.start < h < c.end for h in headings) for c in chunks)


def test_context_aware_makes_no_heading_only_chunk() -> None:
    """A document title over its first article, a heading over one sentence longer than the
    chunk, a heading closing the document: each heading joins text, never a chunk alone."""
    sentence = (
        "인사 규정은 " + "모든 임직원에게 적용되는 근무와 휴가에 관한 기준을 정한다 " * 6 + "."
    )
    text = (
        "# 한빛로보틱스 인사 규정 (2025년 개정)\n\n## 제1조 (목적)\n\n"
        f"{sentence}\n\n## 제2조 (연차)\n\n연차 휴가는 15일이다.\n\n## 부칙"
    )
    doc = doc_of(text)
    config = ChunkingConfig(strategy="context_aware", chunk_size=120, chunk_overlap=10)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    for chunk in chunks:
        body = [line for line in chunk.text.splitlines() if line and not line.startswith("#")]
        assert body, f"heading-only chunk: {chunk.text!r}"
    assert chunks[0].text.startswith(
        "# 한빛로보틱스 인사 규정 (2025년 개정)\n\n## 제1조 (목적)\n\n인사"
    )
    assert any(c.text.startswith("## 제2조 (연차)\n\n연차 휴가는 15일이다.") for c in chunks)


def test_context_aware_plain_text_without_headings() -> None:
    doc = ParsedDocument(text=korean_text())
    config = ChunkingConfig(strategy="context_aware", chunk_size=150, chunk_overlap=10)
    chunks = chunk_document(doc, config, "doc")
    check_honest(doc, chunks)
    assert all(len(c.text) <= 150 and c.page is None for c in chunks)


# --- robustness ---------------------------------------------------------------------------------

_WORDS = [
    *"가나다라마바사",
    "국민",
    "민주공화국",
    "모든",
    "the",
    "retrieval",
    "3.14",
    "2024년",
]
_WORDS += [
    "은",
    "는",
    "이다.",
    "있다!",
    "why?",
    "#",
    "## 제목",
    "\n",
    "\n\n",
    "\n\n\n",
    "  ",
    "-",
    "a" * 70,
]


def random_text(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 400)))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("strategy", ["size", "parent_child", "context_aware"])
@pytest.mark.parametrize("unit", ["chars", "tokens"])
def test_random_texts_keep_every_invariant(seed: int, strategy: str, unit: str) -> None:
    rng = random.Random(seed)
    text = random_text(rng)
    doc = ParsedDocument(text=text)
    chunk_size = rng.choice([20, 37, 64, 150])
    config = ChunkingConfig(
        strategy=strategy,  # type: ignore[arg-type]
        unit=unit,  # type: ignore[arg-type]
        chunk_size=chunk_size,
        chunk_overlap=rng.randint(0, chunk_size - 1),
        parent_size=rng.choice([100, 250]),
        child_size=rng.choice([20, 45]),
    )
    chunks = chunk_document(doc, config, "r")
    if not text.strip():
        assert chunks == []
        return
    check_honest(doc, chunks, "r")
    for chunk in chunks:
        limit = {
            ChunkKind.chunk: config.chunk_size,
            ChunkKind.parent: config.parent_size,
            ChunkKind.child: config.child_size,
        }[chunk.kind]
        assert size(chunk.text, unit) <= limit
        if chunk.kind == ChunkKind.child:
            parent = next(c for c in chunks if c.id == chunk.parent_id)
            assert parent.start <= chunk.start < chunk.end <= parent.end
