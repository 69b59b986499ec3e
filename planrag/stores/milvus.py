"""Milvus vector store: Milvus Lite under the data dir by default, any Milvus server by URI.

One collection per knowledge base with the filterable metadata as scalar fields, and a second
one of title vectors keyed by doc_id, created on the first title written (KBs from before title
vectors have none: their title scores are absent).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from pymilvus import DataType, MilvusClient
from pymilvus.exceptions import MilvusException

from planrag.core.errors import EmbeddingMismatch, StoreUnavailable
from planrag.core.filters import Filter, In
from planrag.core.types import Metric
from planrag.stores import milvus_lite_servers
from planrag.stores.milvus_filter import render_milvus
from planrag.stores.vector import (
    TitleRecord,
    VectorHit,
    VectorRecord,
    clamp_cosine,
    cosine_from_distance,
)

log = logging.getLogger(__name__)

TEXT_MAX_BYTES = 65535
OUTPUT_FIELDS = ["chunk_id", "doc_id", "text", "title", "author", "domain", "date"]
EXACT_FALLBACK_ROWS = 10000  # a short filtered search is redone exactly over this many rows
MAX_EF = 4096
_VARCHAR_LIMITS = {"chunk_id": 100, "doc_id": 64, "title": 1000, "author": 200, "domain": 200}


def collection_name(kb_id: str) -> str:
    return "kb_" + kb_id.replace("-", "")


def titles_name(kb_id: str) -> str:
    return collection_name(kb_id) + "_titles"


def _fit(value: str, max_bytes: int) -> str:
    raw = value.encode("utf-8")
    return value if len(raw) <= max_bytes else raw[:max_bytes].decode("utf-8", errors="ignore")


def grpc_options(keepalive_s: float) -> dict[str, int]:
    """gRPC channel options over pymilvus's defaults: keepalive pings at most every
    `keepalive_s` and only during calls. pymilvus pings every 10 s even when idle, which Milvus
    Lite's gRPC server (grpc's default policy: no pings without calls, at most one per 5 min)
    answers with GOAWAY too_many_pings and a dropped connection."""
    return {
        "grpc.keepalive_time_ms": int(keepalive_s * 1000),
        "grpc.keepalive_permit_without_calls": 0,
    }


def connect(uri: str, token: str, options: dict[str, int], timeout_s: float) -> MilvusClient:
    """A client with its own connection (pymilvus would otherwise share one per address, made
    with whatever options its first client gave). A server that does not answer yet (starting,
    or a loaded machine) is retried until `timeout_s`; a Milvus Lite data dir fails at once (its
    error is a lock held by another process, which waiting does not cure)."""
    deadline = time.monotonic() + timeout_s
    while True:
        kwargs: dict[str, Any] = {"grpc_options": options, "dedicated": True}
        try:
            if token:
                kwargs["token"] = token
            return MilvusClient(uri=uri, timeout=min(10.0, timeout_s), **kwargs)
        except Exception as exc:  # pymilvus raises several unrelated types here
            if "://" in uri and time.monotonic() + 1.0 < deadline:
                log.warning("Milvus at %s not reachable yet (%s); retrying", uri, exc)
                time.sleep(1.0)
                continue
            raise StoreUnavailable(
                f"cannot open Milvus at {uri}: {exc}. Is another planrag process using this "
                "data dir? Milvus Lite allows one process; set PLANRAG_MILVUS__URI for a server.",
                setting="PLANRAG_MILVUS__URI",
            ) from exc


class MilvusStore:
    """A `VectorStore` on Milvus. Calls are serialised: Milvus Lite is not thread-safe."""

    def __init__(
        self,
        uri: str,
        token: str = "",
        index_type: str = "HNSW",
        *,
        keepalive_s: float = 300.0,
        connect_timeout_s: float = 30.0,
    ) -> None:
        if "://" not in uri:
            Path(uri).parent.mkdir(parents=True, exist_ok=True)
        self._client = connect(uri, token, grpc_options(keepalive_s), connect_timeout_s)
        self._uri: str | None = uri
        milvus_lite_servers.opened(uri)
        self._index_type = index_type
        self._lock = threading.RLock()
        self._metrics: dict[str, Metric] = {}
        self._dims: dict[str, int] = {}
        self._titles: set[str] = set()  # title collections known to exist and be loaded

    def close(self) -> None:
        with self._lock:
            if self._uri is None:  # closed already
                return
            self._client.close()
            milvus_lite_servers.closed(self._uri)
            self._uri = None

    def create_collection(self, kb_id: str, dim: int, metric: Metric) -> None:
        name = collection_name(kb_id)
        with self._lock:
            if self._client.has_collection(name):
                return
            schema = self._client.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("chunk_id", DataType.VARCHAR, is_primary=True, max_length=100)
            for field in ("doc_id", "title", "author", "domain"):
                schema.add_field(field, DataType.VARCHAR, max_length=_VARCHAR_LIMITS[field])
            schema.add_field("text", DataType.VARCHAR, max_length=TEXT_MAX_BYTES)
            schema.add_field("date", DataType.INT64)
            schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
            index = self._client.prepare_index_params()
            params = {"M": 16, "efConstruction": 200} if self._index_type == "HNSW" else {}
            index.add_index(
                field_name="vector", index_type=self._index_type, metric_type=metric, params=params
            )
            index.add_index(field_name="doc_id", index_type="INVERTED")
            self._client.create_collection(name, schema=schema)
            # sync=False: the collection is empty, so there is nothing to wait for (pymilvus
            # would otherwise poll the index state in 0.5 s sleeps).
            self._client.create_index(name, index, sync=False)
            self._client.load_collection(name)

    def drop_collection(self, kb_id: str) -> None:
        with self._lock:
            for name in (collection_name(kb_id), titles_name(kb_id)):
                if self._client.has_collection(name):
                    self._client.drop_collection(name)
            self._metrics.pop(kb_id, None)
            self._dims.pop(kb_id, None)
            self._titles.discard(kb_id)

    def has_collection(self, kb_id: str) -> bool:
        with self._lock:
            return bool(self._client.has_collection(collection_name(kb_id)))

    def _describe(self, kb_id: str) -> tuple[Metric, int]:
        """Metric and dimension of a collection, loading it on first use in this process
        (a reopened Milvus Lite keeps collections released until loaded)."""
        if kb_id not in self._metrics:
            name = collection_name(kb_id)
            self._client.load_collection(name)
            info = self._client.describe_collection(name)
            dim = next(f["params"]["dim"] for f in info["fields"] if f["name"] == "vector")
            indexes = self._client.list_indexes(name, field_name="vector")
            metric = self._client.describe_index(name, indexes[0])["metric_type"]
            self._metrics[kb_id], self._dims[kb_id] = metric, int(dim)
        return self._metrics[kb_id], self._dims[kb_id]

    def upsert(self, kb_id: str, records: list[VectorRecord]) -> None:
        if not records:
            return
        with self._lock:
            _, dim = self._describe(kb_id)
            rows = [self._row(r, dim) for r in records]
            self._client.upsert(collection_name(kb_id), rows)

    @staticmethod
    def _row(record: VectorRecord, dim: int) -> dict[str, Any]:
        if len(record.vector) != dim:
            raise EmbeddingMismatch(
                f"vector of dimension {len(record.vector)} refused: the collection holds {dim}"
            )
        row = record.model_dump()
        for field, limit in _VARCHAR_LIMITS.items():
            row[field] = _fit(row[field], limit)
        row["text"] = _fit(row["text"], TEXT_MAX_BYTES)
        return row

    def delete(self, kb_id: str, where: Filter) -> None:
        expr = render_milvus(where)
        if not expr:
            raise ValueError("refusing to delete without a filter")
        with self._lock:
            self._describe(kb_id)
            self._client.delete(collection_name(kb_id), filter=expr)

    def search(
        self, kb_id: str, vector: list[float], top_k: int, where: Filter | None = None
    ) -> list[VectorHit]:
        return self.search_many(kb_id, [vector], top_k, where)[0]

    def search_many(
        self, kb_id: str, vectors: list[list[float]], top_k: int, where: Filter | None = None
    ) -> list[list[VectorHit]]:
        """HNSW search of several query vectors in one Milvus call (Milvus Lite's cost per
        call dwarfs its cost per query). A filtered search that comes back short while more
        rows match (Milvus Lite's HNSW filters during the graph walk and misses rare rows once a
        collection is indexed) is answered exactly over the matching rows when they are few,
        else retried with a wider beam."""
        if not vectors:
            return []
        with self._lock:
            metric, dim = self._describe(kb_id)
            for vector in vectors:
                if len(vector) != dim:
                    raise EmbeddingMismatch(
                        f"query vector of dimension {len(vector)}: the collection holds {dim}"
                    )
            ef = max(64, top_k * 2)
            results = self._search(kb_id, metric, vectors, top_k, where, ef)
            short = [i for i, hits in enumerate(results) if len(hits) < top_k]
            if where is None or not short:
                return results
            # One pass over the filter (Milvus Lite evaluates it row by row): the matching rows
            # with their vectors, up to the exact-scan limit; shared by the batch's queries.
            rows = self._client.query(
                collection_name(kb_id),
                filter=render_milvus(where),
                output_fields=[*OUTPUT_FIELDS, "vector"],
                limit=EXACT_FALLBACK_ROWS + 1,
            )
            short = [i for i in short if len(rows) > len(results[i])]  # else nothing else matches
            if len(rows) <= EXACT_FALLBACK_ROWS:
                for i in short:
                    results[i] = self._exact(metric, vectors[i], top_k, rows)
            elif short:
                wide = self._search(
                    kb_id, metric, [vectors[i] for i in short], top_k, where, MAX_EF
                )
                for i, hits in zip(short, wide, strict=True):
                    results[i] = hits
            return results

    def _search(
        self,
        kb_id: str,
        metric: Metric,
        vectors: list[list[float]],
        top_k: int,
        where: Filter | None,
        ef: int,
    ) -> list[list[VectorHit]]:
        params = {"ef": ef} if self._index_type == "HNSW" else {}
        try:
            result = self._client.search(
                collection_name(kb_id),
                data=vectors,
                limit=top_k,
                filter=render_milvus(where),
                output_fields=OUTPUT_FIELDS,
                search_params={"params": params},
            )
        except MilvusException as exc:
            raise StoreUnavailable(f"Milvus search failed: {exc.message}") from exc
        return [[self._hit(metric, item) for item in found] for found in result]

    @staticmethod
    def _hit(metric: Metric, item: dict[str, Any]) -> VectorHit:
        entity = item["entity"]
        distance = float(item["distance"])
        return VectorHit(
            **{k: entity[k] for k in OUTPUT_FIELDS if k != "chunk_id"},
            chunk_id=item.get("chunk_id", entity.get("chunk_id")),
            score=cosine_from_distance(metric, distance),
            distance=distance,
        )

    @staticmethod
    def _exact(
        metric: Metric, vector: list[float], top_k: int, rows: list[dict[str, Any]]
    ) -> list[VectorHit]:
        """The exact nearest of the given rows, with Milvus's distances for the metric."""
        matrix = np.asarray([row["vector"] for row in rows], dtype=np.float64)
        query = np.asarray(vector, dtype=np.float64)
        if metric == "L2":
            distances = ((matrix - query) ** 2).sum(axis=1)
            order = np.argsort(distances)[:top_k]
        else:
            distances = matrix @ query
            if metric == "COSINE":
                with np.errstate(invalid="ignore", divide="ignore"):
                    distances /= np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
                distances = np.nan_to_num(distances, nan=-1.0)
            order = np.argsort(-distances)[:top_k]
        return [
            VectorHit(
                **{k: rows[i][k] for k in OUTPUT_FIELDS},
                score=cosine_from_distance(metric, float(distances[i])),
                distance=float(distances[i]),
            )
            for i in order
        ]

    def get_vectors(self, kb_id: str, chunk_ids: list[str]) -> dict[str, list[float]]:
        if not chunk_ids:
            return {}
        with self._lock:
            self._describe(kb_id)
            rows = self._client.query(
                collection_name(kb_id),
                filter=render_milvus(In(field="chunk_id", values=chunk_ids)),
                output_fields=["chunk_id", "vector"],
            )
        return {row["chunk_id"]: [float(x) for x in row["vector"]] for row in rows}

    def count(self, kb_id: str, where: Filter | None = None) -> int:
        with self._lock:
            self._describe(kb_id)
            rows = self._client.query(
                collection_name(kb_id), filter=render_milvus(where), output_fields=["count(*)"]
            )
        return int(rows[0]["count(*)"])

    def doc_ids(self, kb_id: str) -> set[str]:
        found: set[str] = set()
        page, offset = 16000, 0
        with self._lock:
            self._describe(kb_id)
            while True:
                rows = self._client.query(
                    collection_name(kb_id),
                    filter='chunk_id != ""',
                    output_fields=["doc_id"],
                    limit=page,
                    offset=offset,
                )
                found.update(row["doc_id"] for row in rows)
                if len(rows) < page:
                    return found
                offset += page

    # ── title vectors ──────────────────────────────────────────────────────────────────
    def _has_titles(self, kb_id: str, create: bool) -> bool:
        if kb_id in self._titles:
            return True
        name = titles_name(kb_id)
        if self._client.has_collection(name):
            self._client.load_collection(name)
        elif create:
            _, dim = self._describe(kb_id)
            schema = self._client.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("doc_id", DataType.VARCHAR, is_primary=True, max_length=100)
            schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
            index = self._client.prepare_index_params()
            index.add_index(field_name="vector", index_type="FLAT", metric_type="COSINE")
            self._client.create_collection(name, schema=schema)
            self._client.create_index(name, index, sync=False)
            self._client.load_collection(name)
        else:
            return False
        self._titles.add(kb_id)
        return True

    def upsert_titles(self, kb_id: str, records: list[TitleRecord]) -> None:
        if not records:
            return
        with self._lock:
            _, dim = self._describe(kb_id)
            for record in records:
                if len(record.vector) != dim:
                    raise EmbeddingMismatch(
                        f"title vector of dimension {len(record.vector)}: the KB holds {dim}"
                    )
            self._has_titles(kb_id, create=True)
            self._client.upsert(titles_name(kb_id), [r.model_dump() for r in records])

    def delete_titles(self, kb_id: str, doc_ids: list[str]) -> None:
        with self._lock:
            if doc_ids and self._has_titles(kb_id, create=False):
                self._client.delete(titles_name(kb_id), ids=list(doc_ids))

    def title_scores(self, kb_id: str, vector: list[float], doc_ids: list[str]) -> dict[str, float]:
        if not doc_ids:
            return {}
        with self._lock:
            if not self._has_titles(kb_id, create=False):
                return {}
            rows = self._client.query(
                titles_name(kb_id),
                filter=render_milvus(In(field="doc_id", values=list(doc_ids))),
                output_fields=["doc_id", "vector"],
            )
        if not rows:
            return {}
        query = np.asarray(vector, dtype=np.float64)
        matrix = np.asarray([row["vector"] for row in rows], dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            cosines = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
        scores = {r["doc_id"]: clamp_cosine(float(c)) for r, c in zip(rows, cosines, strict=True)}
        return {doc_id: score for doc_id, score in scores.items() if score is not None}
