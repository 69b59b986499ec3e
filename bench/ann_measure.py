"""Timed calls of `bench.ann`: one HTTP retrieve, one raw embed + Milvus Lite search.

Every call returns its timings in seconds under a key ("http", "fields_total", "ids_search", …)
and the ids of its top-k hits, so both sides can be checked to return the same chunks.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
from pymilvus import MilvusClient

from planrag.llm.embedders import Embedder
from planrag.runtime import Runtime
from planrag.services.retrieval import RetrieveRequest
from planrag.stores.milvus import OUTPUT_FIELDS, collection_name

TOP_K = 10
EF = max(64, TOP_K * 2)  # what MilvusStore.search passes for HNSW
RAW_VARIANTS: dict[str, list[str]] = {"fields": OUTPUT_FIELDS, "ids": []}

Timings = dict[str, float]
Call = Callable[[str], tuple[Timings, list[str]]]


class Samples:
    """Per-size timings (seconds) by key, and the first call's hit ids per query (for agreement)."""

    def __init__(self) -> None:
        self.seconds: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.ids: dict[int, dict[str, list[list[str]]]] = defaultdict(lambda: defaultdict(list))

    def add(self, size: int, side: str, timings: Timings, ids: list[str]) -> None:
        for key, value in timings.items():
            self.seconds[size][key].append(value)
        self.ids[size][side].append(ids)


def http_call(client: httpx.Client, kb_id: str) -> Call:
    url = f"/api/knowledge-bases/{kb_id}/retrieve"

    def call(query: str) -> tuple[Timings, list[str]]:
        body = {"query": query, "top_k": TOP_K, "strategy": "ann"}
        start = time.perf_counter()
        response = client.post(url, json=body)
        elapsed = time.perf_counter() - start
        response.raise_for_status()
        hits = [h["chunk_id"] for h in response.json()]
        if len(hits) != TOP_K:
            raise SystemExit(f"kb {kb_id}: {len(hits)} hits for {query!r}")
        return {"http": elapsed}, hits

    return call


def service_call(runtime: Runtime, kb_id: str) -> Call:
    """`RetrievalService.retrieve` in this process: the product's query path without HTTP."""

    def call(query: str) -> tuple[Timings, list[str]]:
        request = RetrieveRequest(query=query, top_k=TOP_K, strategy="ann")
        start = time.perf_counter()
        hits = runtime.retrieval.retrieve(kb_id, request)
        return {"service": time.perf_counter() - start}, [h.chunk_id for h in hits]

    return call


def raw_call(client: MilvusClient, kb_id: str, embedder: Embedder, variant: str) -> Call:
    name = collection_name(kb_id)
    fields = RAW_VARIANTS[variant]
    params = {"params": {"ef": EF}}

    def call(query: str) -> tuple[Timings, list[str]]:
        t0 = time.perf_counter()
        vector = embedder.embed_queries([query])[0]
        t1 = time.perf_counter()
        result = client.search(
            name, data=[vector], limit=TOP_K, output_fields=fields, search_params=params
        )
        t2 = time.perf_counter()
        timings = {
            f"{variant}_total": t2 - t0,
            f"{variant}_embed": t1 - t0,
            f"{variant}_search": t2 - t1,
        }
        return timings, [str(hit["chunk_id"]) for hit in result[0]]

    return call


@contextmanager
def milvus_lite(uri: str) -> Iterator[MilvusClient]:
    """A MilvusClient on a Milvus Lite dir that really lets go of it afterwards.

    `MilvusClient.close()` leaves milvus-lite's in-process server (and its LOCK on the data dir)
    running until the process exits; release it so another process can open the dir.
    """
    client = MilvusClient(uri=uri)
    try:
        yield client
    finally:
        client.close()
        release_milvus_lite(uri)


def release_milvus_lite(uri: str) -> None:
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(os.path.abspath(uri))


def run_calls(samples: Samples, size: int, calls: dict[str, Call], queries: list[str]) -> None:
    """Every query through every call; the order of the calls rotates from query to query."""
    sides = list(calls)
    for i, query in enumerate(queries):
        shift = i % len(sides)
        for side in sides[shift:] + sides[:shift]:
            timings, ids = calls[side](query)
            samples.add(size, side, timings, ids)


def warm(calls: dict[str, Call], queries: list[str]) -> None:
    for query in queries:
        for call in calls.values():
            call(query)


def raw_calls(client: MilvusClient, kb_id: str, embedder: Embedder) -> dict[str, Call]:
    client.load_collection(collection_name(kb_id))
    return {variant: raw_call(client, kb_id, embedder, variant) for variant in RAW_VARIANTS}


def cold_first_query(client: httpx.Client, kb_id: str, query: str) -> float:
    """The first retrieve of a KB after the server started (loads the collection)."""
    timings, _ = http_call(client, kb_id)(query)
    return timings["http"]
