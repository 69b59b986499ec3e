"""BM25 over lexical tokens (bm25s), one persisted index per knowledge base.

The tokens of every searchable chunk live in the metadata DB, so an index is always rebuildable.
An index is rebuilt lazily: ingestion and deletion mark it dirty, and the next search (or the
ingestion service once its queue drains) rebuilds it, so a bulk upload costs one rebuild, not
one per document. A search never sees a deleted chunk or misses a completed one.

Scores are normalised to [0, 1] by the query's own scale: with the Lucene BM25 variant a term
that occurs once in a chunk of average length contributes idf / (1 + k1), so a chunk matching
every query term once scores 1.0 and partial matches score the share of the query's information
(idf) they match. Repeated terms and short chunks can exceed that scale and are clipped to 1.0;
ordering always follows the raw BM25 score.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import uuid
from pathlib import Path

import bm25s
import numpy as np

from planrag.core.filters import Filter
from planrag.stores.job_queue import IndexVersions
from planrag.stores.lexical import LexicalHit, LexicalRow, RowSource
from planrag.stores.record_filter import matches

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
K1 = 1.5
B = 0.75


class LexicalIndex:
    """An immutable BM25 index of one knowledge base's chunks."""

    def __init__(self, retriever: bm25s.BM25 | None, rows: list[LexicalRow]) -> None:
        self._retriever = retriever
        self.chunk_ids = [r.chunk_id for r in rows]
        self.doc_ids = [r.doc_id for r in rows]
        # Per-document metadata for filters: evaluated per document, then spread to chunks.
        self._docs: dict[str, LexicalRow] = {}
        for row in rows:
            self._docs.setdefault(row.doc_id, row.model_copy(update={"tokens": []}))
        self._doc_index = {d: i for i, d in enumerate(self._docs)}
        self._chunk_doc = np.asarray([self._doc_index[d] for d in self.doc_ids], dtype=np.int64)
        self._idf = self._idf_table(retriever)
        self._positions = {c: i for i, c in enumerate(self.chunk_ids)}

    @classmethod
    def build(cls, rows: list[LexicalRow]) -> LexicalIndex:
        searchable = [r for r in rows if r.tokens]
        if not searchable:
            return cls(None, [])
        retriever = bm25s.BM25(method="lucene", k1=K1, b=B)
        retriever.index([r.tokens for r in searchable], show_progress=False)
        return cls(retriever, searchable)

    @staticmethod
    def _idf_table(retriever: bm25s.BM25 | None) -> dict[str, float]:
        if retriever is None:
            return {}
        indptr = retriever.scores["indptr"]
        df = np.diff(indptr)
        n = retriever.scores["num_docs"]
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        return {t: float(idf[i]) for t, i in retriever.vocab_dict.items() if t and i < len(idf)}

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def _scores(self, tokens: list[str]) -> tuple[np.ndarray, float] | None:
        """Raw scores of every chunk and the query's normalisation scale, or None."""
        if self._retriever is None:
            return None
        # Repeated query words weigh more (long questions repeat their key terms).
        query = [t for t in tokens if t in self._idf]
        bound = sum(self._idf[t] for t in query) / (1 + K1)
        if not query or bound <= 0:
            return None
        return np.asarray(self._retriever.get_scores(query), dtype=np.float32), bound

    def scores_for(
        self, tokens: list[str], chunk_ids: list[str], clip: bool = True
    ) -> dict[str, float]:
        """Normalised scores of the given chunks (0 for chunks not in the index); unclipped
        (may exceed 1, ordered like raw BM25) when `clip` is false."""
        scored = self._scores(tokens)
        if scored is None:
            return dict.fromkeys(chunk_ids, 0.0)
        scores, bound = scored
        position, top = self._positions, 1.0 if clip else float("inf")
        return {
            c: min(top, float(scores[position[c]]) / bound) if c in position else 0.0
            for c in chunk_ids
        }

    def search(self, tokens: list[str], k: int, where: Filter | None = None) -> list[LexicalHit]:
        scored = self._scores(tokens)
        if scored is None or k <= 0:
            return []
        scores, bound = scored
        if where is not None:
            scores = np.where(self._mask(where), scores, 0.0)
        k = min(k, int(np.count_nonzero(scores)))
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [
            LexicalHit(
                chunk_id=self.chunk_ids[i],
                doc_id=self.doc_ids[i],
                score=min(1.0, float(scores[i]) / bound),
                raw=float(scores[i]),
            )
            for i in top
        ]

    def _mask(self, where: Filter) -> np.ndarray:
        allowed = np.asarray([matches(where, doc.model_dump()) for doc in self._docs.values()])
        return allowed[self._chunk_doc]

    # ── persistence ────────────────────────────────────────────────────────────────────
    def save(self, directory: Path, stamp: int = 0) -> None:
        """Write atomically (a private temp dir renamed into place); `stamp` is the shared
        version the index was built at (several processes may save the same KB)."""
        tmp = directory.with_name(f"{directory.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        tmp.mkdir(parents=True)
        if self._retriever is not None:
            self._retriever.save(str(tmp / "bm25s"))
        docs = [d.model_dump(exclude={"tokens"}) for d in self._docs.values()]
        meta = {
            "version": FORMAT_VERSION,
            "stamp": stamp,
            "chunk_ids": self.chunk_ids,
            "doc_ids": self.doc_ids,
        }
        (tmp / "rows.json").write_text(json.dumps({**meta, "docs": docs}, ensure_ascii=False))
        shutil.rmtree(directory, ignore_errors=True)
        try:
            tmp.rename(directory)
        except OSError:  # another process saved it first: theirs is as good
            shutil.rmtree(tmp, ignore_errors=True)

    @classmethod
    def load(cls, directory: Path, stamp: int | None = None) -> LexicalIndex | None:
        """The saved index, or None when missing, unreadable, or saved at another `stamp`."""
        if not (directory / "rows.json").exists():
            return None
        try:
            meta = json.loads((directory / "rows.json").read_text())
            if meta.get("version") != FORMAT_VERSION:
                return None
            if stamp is not None and meta.get("stamp", 0) != stamp:
                return None
            retriever = (
                bm25s.BM25.load(str(directory / "bm25s"))
                if (directory / "bm25s").exists()
                else None
            )
        except (OSError, ValueError, KeyError) as exc:
            log.warning("BM25 index at %s unreadable (%s): rebuilding", directory, exc)
            return None
        docs = {d["doc_id"]: d for d in meta["docs"]}
        rows = [
            LexicalRow(**{**docs[d], "chunk_id": c, "tokens": []})
            for c, d in zip(meta["chunk_ids"], meta["doc_ids"], strict=True)
        ]
        return cls(retriever, rows)


class BM25Store:
    """Per-KB BM25 indexes under a directory, rebuilt from `source` when dirty.

    With `versions` (several processes over one metadata DB), a change bumps the KB's shared
    version and every process rebuilds (or loads the copy saved at that version) before its next
    search: a process never serves an index older than the last change another one made."""

    def __init__(
        self, root: Path, source: RowSource, versions: IndexVersions | None = None
    ) -> None:
        self._root = root
        self._source = source
        self._versions = versions
        self._built: dict[str, int | None] = {}
        self._indexes: dict[str, LexicalIndex] = {}
        self._dirty: set[str] = set()
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _lock(self, kb_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(kb_id, threading.Lock())

    def _dir(self, kb_id: str) -> Path:
        return self._root / kb_id

    def mark_dirty(self, kb_id: str) -> None:
        with self._guard:
            self._dirty.add(kb_id)
            # The persisted copy is stale too: a crash now must not resurrect it.
            (self._dir(kb_id) / "rows.json").unlink(missing_ok=True)
        if self._versions is not None:
            self._versions.bump(kb_id)  # other processes rebuild before their next search

    def index(self, kb_id: str) -> LexicalIndex:
        """The current index, rebuilt first when documents changed since it was built."""
        with self._lock(kb_id):
            stamp = self._versions.get(kb_id) if self._versions is not None else None
            with self._guard:
                dirty = kb_id in self._dirty
                self._dirty.discard(kb_id)
            current = kb_id in self._indexes and self._built.get(kb_id) == stamp
            if not dirty and current:
                return self._indexes[kb_id]
            loaded = None if dirty else LexicalIndex.load(self._dir(kb_id), stamp)
            if loaded is None:
                loaded = LexicalIndex.build(self._source(kb_id))
                loaded.save(self._dir(kb_id), stamp or 0)
                log.info("BM25 index of %s rebuilt: %d chunks", kb_id, len(loaded))
            self._indexes[kb_id] = loaded
            self._built[kb_id] = stamp
            return loaded

    def search(
        self, kb_id: str, tokens: list[str], k: int, where: Filter | None = None
    ) -> list[LexicalHit]:
        return self.index(kb_id).search(tokens, k, where)

    def scores_for(
        self, kb_id: str, tokens: list[str], chunk_ids: list[str], clip: bool = True
    ) -> dict[str, float]:
        return self.index(kb_id).scores_for(tokens, chunk_ids, clip)

    def size(self, kb_id: str) -> int:
        return len(self.index(kb_id))

    def drop(self, kb_id: str) -> None:
        with self._lock(kb_id):
            self._indexes.pop(kb_id, None)
            self._built.pop(kb_id, None)
            with self._guard:
                self._dirty.discard(kb_id)
            shutil.rmtree(self._dir(kb_id), ignore_errors=True)
