"""Chunking strategies: fixed size with overlap, parent-child, and context-aware (Markdown + Kiwi).

Every chunk records honest offsets: `chunk.text == doc.text[chunk.start:chunk.end]`, already
stripped and never empty. Ids are `f"{doc_id}:{position}"`, position counting every chunk returned
(parents included), so re-chunking the same document with the same config gives the same ids.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from planrag.core.types import Chunk, ChunkingConfig, ChunkKind
from planrag.ingest.parsers import ParsedDocument
from planrag.ingest.sections import split_paragraphs, split_sections
from planrag.ingest.windows import Ruler, split_windows
from planrag.text.korean import split_sentences
from planrag.text.offsets import trim

Span = tuple[int, int]


def chunk_document(doc: ParsedDocument, config: ChunkingConfig, doc_id: str) -> list[Chunk]:
    """Split a parsed document into chunks according to the knowledge base's chunking config."""
    ruler = Ruler(doc.text, config.unit)
    if config.strategy == "parent_child":
        return _parent_child_chunks(doc, config, doc_id, ruler)
    if config.strategy == "context_aware":
        spans = context_aware_spans(doc.text, config.chunk_size, config.chunk_overlap, ruler)
    else:
        spans = split_windows(
            doc.text, 0, len(doc.text), config.chunk_size, config.chunk_overlap, ruler
        )
    chunks: list[Chunk] = []
    for start, end in spans:
        _append(chunks, doc, doc_id, (start, end), ChunkKind.chunk)
    return chunks


def _parent_child_chunks(
    doc: ParsedDocument, config: ChunkingConfig, doc_id: str, ruler: Ruler
) -> list[Chunk]:
    """Parents of `parent_size` (no overlap), each followed by its children of `child_size`."""
    text = doc.text
    child_overlap = min(config.chunk_overlap, config.child_size // 4)
    chunks: list[Chunk] = []
    for parent_start, parent_end in split_windows(text, 0, len(text), config.parent_size, 0, ruler):
        parent = _append(chunks, doc, doc_id, (parent_start, parent_end), ChunkKind.parent)
        if parent is None:
            continue
        children = split_windows(
            text, parent.start, parent.end, config.child_size, child_overlap, ruler
        )
        for child in children:
            _append(chunks, doc, doc_id, child, ChunkKind.child, parent_id=parent.id)
    return chunks


def _append(
    chunks: list[Chunk],
    doc: ParsedDocument,
    doc_id: str,
    span: Span,
    kind: ChunkKind,
    parent_id: str | None = None,
) -> Chunk | None:
    """Append a chunk for the trimmed span (nothing for a blank span); return it."""
    start, end = trim(doc.text, *span)
    if start >= end:
        return None
    position = len(chunks)
    chunk = Chunk(
        id=f"{doc_id}:{position}",
        doc_id=doc_id,
        position=position,
        text=doc.text[start:end],
        kind=kind,
        parent_id=parent_id,
        page=doc.page_at(start),
        start=start,
        end=end,
    )
    chunks.append(chunk)
    return chunk


def context_aware_spans(text: str, size: int, overlap: int, ruler: Ruler) -> list[Span]:
    """Heading sections, then paragraphs merged up to `size` within a section.

    A paragraph over `size` is split at sentence ends (Kiwi), packing sentences up to `size`;
    a sentence over `size` falls back to fixed windows with `overlap`. Spans never cross a heading.
    """

    def split_sentence(span: Span, pending: Span | None) -> list[Span]:
        # What is still being merged (a heading, a short paragraph) opens the first window
        # rather than standing alone as a chunk.
        start = span[0] if pending is None else pending[0]
        return split_windows(text, start, span[1], size, overlap, ruler)

    def split_paragraph(span: Span, pending: Span | None) -> list[Span]:
        return _pack(_sentence_segments(text, span), size, ruler, split_sentence, pending)

    spans: list[Span] = []
    for section in split_sections(text):
        paragraphs = split_paragraphs(text, *section)
        spans.extend(_pack(paragraphs, size, ruler, split_paragraph))
    return spans


def _pack(
    pieces: list[Span],
    size: int,
    ruler: Ruler,
    split_large: Callable[[Span, Span | None], list[Span]],
    pending: Span | None = None,
) -> list[Span]:
    """Merge consecutive pieces while the merged span stays within `size`.

    A piece over `size` goes to `split_large` together with the span still being merged (so a
    heading or a short paragraph can open the first part of what follows); the last part it
    returns stays open for the next pieces.
    """
    packed: list[Span] = []
    for piece in pieces:
        if ruler.length(*piece) > size:
            parts = split_large(piece, pending)
            packed.extend(parts[:-1])
            pending = parts[-1] if parts else None
        elif pending is not None and ruler.length(pending[0], piece[1]) <= size:
            pending = (pending[0], piece[1])
        else:
            if pending is not None:
                packed.append(pending)
            pending = piece
    if pending is not None:
        packed.append(pending)
    return packed


def _sentence_segments(text: str, span: Span) -> list[Span]:
    """text[span] cut at the start of each sentence after the first, so the segments cover every
    character of the span (whatever Kiwi left between sentences stays with the sentence before)."""
    start, end = span
    sentences = split_sentences(text[start:end])
    cuts = [start] + [start + s for s, _ in sentences[1:]] + [end]
    segments = [trim(text, a, b) for a, b in pairwise(cuts)]
    return [(a, b) for a, b in segments if a < b]
