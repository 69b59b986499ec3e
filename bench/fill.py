"""Filling a knowledge base with many chunks quickly: real embeddings of real texts, written through
the product's own stores (documents and chunks in the metadata DB, vectors through MilvusStore).

Used by `bench.ann` to reach 100k chunks without embedding 100k texts. Rows beyond the real
embeddings are real vectors perturbed by Gaussian noise and renormalised (their text is the text
of the vector they were derived from).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from bench.report import RESULTS_DIR, log
from planrag.core.types import Chunk, DocumentMetadata, DocumentStatus
from planrag.llm.embedders import Embedder
from planrag.runtime import Runtime
from planrag.services.ingestion import EMBED_BATCH
from planrag.stores.vector import VectorRecord

CHUNKS_PER_DOC = 100
UPSERT_ROWS = 2000


def embed_pool(embedder: Embedder, texts: list[str], cache: bool) -> np.ndarray:
    """Unit vectors of `texts` (n × dim), cached under bench/results/ (gitignored) when asked."""
    key = hashlib.sha256("\x00".join([embedder.name, *texts]).encode("utf-8")).hexdigest()[:16]
    path = RESULTS_DIR / f"ann-pool-{key}.npy"
    if cache and path.exists():
        log(f"using cached embeddings {path.name}")
        return np.load(path)
    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        vectors += embedder.embed(texts[start : start + EMBED_BATCH])
        if start // EMBED_BATCH % 8 == 0:
            log(f"  embedded {len(vectors)}/{len(texts)}")
    matrix = np.asarray(vectors, dtype=np.float32)
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, matrix)
    return matrix


def synthesize(
    base: np.ndarray, size: int, noise: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """`size` unit vectors: the real ones first, then perturbed copies of random real ones.

    Returns (vectors, source index into `base` of each row). The noise vector has expected norm
    `noise`, so a copy's cosine to its source is about 1/sqrt(1 + noise²).
    """
    real = min(size, len(base))
    sources = np.arange(real)
    if size == real:
        return base[:real].copy(), sources
    rng = np.random.default_rng(seed)
    extra = rng.integers(0, real, size - real)
    dim = base.shape[1]
    perturbed = base[extra] + rng.standard_normal((len(extra), dim)).astype(np.float32) * (
        noise / np.sqrt(dim)
    )
    perturbed /= np.linalg.norm(perturbed, axis=1, keepdims=True)
    return np.vstack([base[:real], perturbed]), np.concatenate([sources, extra])


def _add_document(runtime: Runtime, kb_id: str, number: int, texts: list[str]) -> str:
    body = "\n\n".join(texts).encode("utf-8")
    digest = hashlib.sha256(body + f"{kb_id}:{number}".encode()).hexdigest()
    doc, _ = runtime.metadata.add_document(
        kb_id,
        f"bench-{number:05d}.txt",
        "txt",
        len(body),
        digest,
        DocumentMetadata(title=f"bench document {number}"),
    )
    return doc.id


def fill_kb(
    runtime: Runtime,
    kb_id: str,
    texts: list[str],
    vectors: np.ndarray,
    sources: np.ndarray,
    tokens: list[list[str]] | None = None,
) -> None:
    """Documents of CHUNKS_PER_DOC chunks, status completed, vectors upserted in large batches.

    With `tokens` (the lexical tokens of each text) every chunk gets its BM25 terms, so the
    documents' indexes agree and a server's start-up check leaves them alone; without, a
    `planrag serve` on this data dir re-indexes (and, having no files, fails) every document."""
    pending: list[VectorRecord] = []
    for number, start in enumerate(range(0, len(vectors), CHUNKS_PER_DOC)):
        rows = range(start, min(start + CHUNKS_PER_DOC, len(vectors)))
        chunk_texts = [texts[sources[i]] for i in rows]
        doc_id = _add_document(runtime, kb_id, number, chunk_texts)
        chunks = [
            Chunk(id=f"{doc_id}:{pos}", doc_id=doc_id, position=pos, text=text, end=len(text))
            for pos, text in enumerate(chunk_texts)
        ]
        terms = None
        if tokens is not None:
            terms = {c.id: tokens[sources[i]] for c, i in zip(chunks, rows, strict=True)}
        runtime.metadata.replace_chunks(doc_id, chunks, terms)
        pending += [
            VectorRecord(
                chunk_id=chunk.id,
                doc_id=doc_id,
                text=chunk.text,
                title=f"bench document {number}",
                vector=vectors[i].tolist(),
            )
            for chunk, i in zip(chunks, rows, strict=True)
        ]
        runtime.metadata.set_status(doc_id, DocumentStatus.completed, chunk_count=len(chunks))
        if len(pending) >= UPSERT_ROWS:
            runtime.vectors.upsert(kb_id, pending)
            pending = []
        if number % 100 == 0:
            log(f"  filled {rows.stop}/{len(vectors)}")
    runtime.vectors.upsert(kb_id, pending)


def data_size_mb(data_dir: Path) -> float:
    return round(sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file()) / 2**20, 1)
