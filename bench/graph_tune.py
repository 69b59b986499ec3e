"""Offline tuning of graph search's scoring and merge on a KB kept by `bench.graph quality
--data-dir` (ingested once): each question's base candidates are computed once (the retrieval
service's own pool, as graph search receives it), then every variant of graph scoring
(the weight of a chunk titled after a reached entity, how specific its entity must be to promote it)
and of the merge
is scored on them in seconds.

    python -m bench.graph_tune --data-dir bench/results/graph/minilm --set hotpotqa_200 \
        --model sentence-transformers/all-MiniLM-L6-v2

Prints and writes one row per variant (nDCG@10, Recall@10, all-gold Recall@10, MRR@10).
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable
from pathlib import Path

from bench.datasets import RESULTS, all_datasets
from bench.graph import _settings, kept_mapping
from bench.report import load_average, log
from planrag.core.types import title_text
from planrag.executors.context import Candidate, QueryContext
from planrag.executors.graph import BRIDGE_HOPS, POOL, merge
from planrag.executors.graph_search import GraphHit, GraphSearch, Titles
from planrag.runtime import Runtime
from planrag.services.evaluation import DEPTH, BeirDataset
from planrag.services.metrics import all_found_at, mrr_at, ndcg_at, recall_at
from planrag.services.retrieval import MAX_QUERY_CHARS, RetrieveRequest
from planrag.stores.bundle import StoreBundle

Base = list[tuple[str, str, float]]
Merge = Callable[[Base, list[GraphHit], Callable[[list[str]], dict[str, float]]], list[str]]


def capture(runtime: Runtime, kb_id: str, text: str) -> tuple[QueryContext, list[Candidate]]:
    """The base strategy's candidates for one question (its pool of POOL, as graph search
    receives them), and a context to score other chunks' cosines with."""
    body = RetrieveRequest.model_validate(
        {
            "top_k": POOL,
            "query": text[:MAX_QUERY_CHARS],
            "score_threshold": 0.0,
            "strategy": "hybrid",
        }
    )
    hits = runtime.retrieval.retrieve(kb_id, body)
    kb = runtime.metadata.get_kb(kb_id)
    embedder = runtime.embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
    stores = StoreBundle(vector=runtime.vectors, lexical=runtime.bm25)
    ctx = QueryContext(kb, text[:MAX_QUERY_CHARS], embedder, stores)
    return ctx, [Candidate(chunk_id=h.chunk_id, doc_id=h.doc_id, score=h.score) for h in hits]


def titles_of(runtime: Runtime) -> Titles:
    """Documents' titles, as the retrieval service gives graph search them."""

    def run(doc_ids: list[str]) -> dict[str, str]:
        return {d.id: title_text(d) for d in runtime.metadata.get_documents(doc_ids).values()}

    return run


def memo(
    scores: Callable[[list[str]], dict[str, float]],
) -> Callable[[list[str]], dict[str, float]]:
    """Cosines of chunks to one question, each fetched once."""
    known: dict[str, float] = {}

    def run(ids: list[str]) -> dict[str, float]:
        missing = [c for c in ids if c not in known]
        if missing:
            found = scores(missing)
            known.update({c: found.get(c, 0.0) for c in missing})
        return {c: known[c] for c in ids}

    return run


def boost(factor: float) -> Merge:
    """The merge before tuning: every graph-found chunk × (1 + (factor − 1) · path), graph-only
    chunks at their cosine, rescaled so the best is 1."""

    def run(base, hits, scores):  # type: ignore[no-untyped-def]
        path = {h.chunk_id: h.score for h in hits}
        score = {c: s for c, _, s in base}
        missing = [c for c in path if c not in score]
        score.update(scores(missing))
        boosted = {c: s * (1 + (factor - 1) * path.get(c, 0.0)) for c, s in score.items()}
        return sorted(boosted, key=lambda c: (-boosted[c], c))

    return run


def kept(keep: int, add: int, factor: float = 1.5, promote: int = 0) -> Merge:
    """The merge of planrag.executors.graph (top `keep` kept, `add` graph-only chunks, `promote`
    chunks titled after a reached entity right below the kept top)."""

    def run(base, hits, scores):  # type: ignore[no-untyped-def]
        return [c for c, _, _, _ in merge(base, hits, scores, factor, keep, add, promote)]

    return run


MERGES: dict[str, Merge] = {
    "boost 1.5 (before)": boost(1.5),
    **{
        f"keep {k} add {a} ×{f} promote {p}": kept(k, a, f, p)
        for k, a, f, p in itertools.product((5, 7), (0, 5), (1.5, 2.0), (0, 1, 2, 3))
    },
}


def scores_of(ranking: list[str], qrels: dict[str, int]) -> dict[str, float]:
    return {
        "ndcg@10": ndcg_at(ranking, qrels, DEPTH),
        "recall@10": recall_at(ranking, qrels, DEPTH),
        "all_recall@10": all_found_at(ranking, qrels, DEPTH),
        "mrr@10": mrr_at(ranking, qrels, DEPTH),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--set", default="hotpotqa_200")
    parser.add_argument("--model")
    parser.add_argument("--hops", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--about", nargs="*", type=float, default=[0.0, 1.0, 2.0])
    parser.add_argument("--about-max", nargs="*", type=int, default=[5, 10, 20, 3000])
    args = parser.parse_args()
    datasets = all_datasets()
    datasets["hotpotqa_24"] = datasets["hotpotqa_200"].with_name("hotpotqa_24.json")
    data = BeirDataset.load(datasets[args.set])
    runtime = Runtime.open(_settings(str(args.data_dir), args.model))
    rows: dict[str, dict[str, float]] = {}
    try:
        kb = runtime.metadata.get_kb_by_name(f"graph-{args.set}")
        mapping = kept_mapping(runtime, kb.id)
        store = runtime.graphs.get(kb.graph_backend)
        judged = [(q, t) for q, t in data.queries.items() if data.qrels.get(q)]
        captured = [capture(runtime, kb.id, t) for _, t in judged]
        log(f"{len(judged)} base results captured; load {load_average()}")

        def add(label: str, rankings: list[list[str]]) -> None:
            total: dict[str, float] = {}
            for (qid, _), chunks in zip(judged, rankings, strict=True):
                docs = list(dict.fromkeys(mapping[doc_of[c]] for c in chunks[: DEPTH * 3]))
                for k, v in scores_of(docs, data.qrels[qid]).items():
                    total[k] = total.get(k, 0.0) + v
            rows[label] = {k: round(v / len(judged), 4) for k, v in total.items()}
            log(f"{label:40s} {json.dumps(rows[label])}")

        doc_of: dict[str, str] = {}
        cosines = [memo(ctx.dense_scores) for ctx, _ in captured]
        bases: list[Base] = []
        for _, candidates in captured:
            bases.append([(c.chunk_id, c.doc_id, c.score) for c in candidates])
            doc_of.update({c.chunk_id: c.doc_id for c in candidates})
        add("graph off", [[c for c, _, _ in b] for b in bases])
        titles = titles_of(runtime)
        for hops, most, about in itertools.product(args.hops, args.about_max, args.about):
            search = GraphSearch(
                store, kb.graph_backend, 0.5, BRIDGE_HOPS, titles, about, about_max=most
            )
            results = [search.search(kb.id, ctx.text, hops, 30) for ctx, _ in captured]
            for r in results:
                doc_of.update({h.chunk_id: h.doc_id for h in r.hits})
            for name, run in MERGES.items():
                for gate in (True,):
                    rankings = []
                    for cosine, base, r in zip(cosines, bases, results, strict=True):
                        exact = any(m.exact for m in r.metadata.matched_entities)
                        skip = gate and not (r.metadata.analysis.multi_hop or exact)
                        hits = [] if skip else r.hits
                        plain = [c for c, _, _ in base]
                        rankings.append(run(base, hits, cosine) if hits else plain)
                    label = f"{hops}h about{about}≤{most} {name}{' gated' if gate else ''}"
                    add(label, rankings)
    finally:
        runtime.close()
    out = RESULTS / "graph" / f"tune_{args.set}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"load": load_average(), "rows": rows}, indent=2))
    best = sorted(rows.items(), key=lambda kv: (-kv[1]["all_recall@10"], -kv[1]["ndcg@10"]))
    for label, row in best[:25]:
        print(f"{label:45s} {json.dumps(row)}")


if __name__ == "__main__":
    main()
