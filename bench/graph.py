"""Graph RAG: quality with the graph off and on, indexing cost, graph query latency.

    python -m bench.graph quality [--sets hotpotqa_200 …] [--strategy hybrid] [--hops 1 2]
                                  [--data-dir bench/results/graph/minilm]
    python -m bench.graph cost [--set hotpotqa_200] [--docs 400]
    python -m bench.graph latency [--entities 10000] [--queries 200]
    python -m bench.graph reextract --sets hotpotqa_200 --data-dir bench/results/graph/minilm
    python -m bench.graph reextract --kb-prefix set- --sets hotpotqa_200 cisi \
                                    --data-dir bench/results/kgraph/e5   (a copy of the lead's
                                    shared e5 ingestion: /work/benchdata/e5/data)

quality: each set ingested once into a KB with graph_backend=ontology (the rule extractor), then
the strategy scored with graph search off and on (nDCG@10, Recall@10, all-gold Recall@10: both
gold paragraphs of a HotpotQA question in the top 10). Graph off is the same KB searched
without the graph, so the two runs differ only by graph search. With `--data-dir` each set's KB
(`graph-<set>`) is kept there and reused by later runs (ingested once: tuning re-runs only the
queries, as bench.fusion keeps its KBs); `ingest_s` is then the first run's, recorded beside it.
cost: the first N documents of a set indexed into a KB without a graph and into one with one
(same process, same model), the ratio of indexing times (target ≤ 1.25).
latency: an embedded store filled with a synthetic graph of N two-word names (chunks of 4 entities,
co-occurrence relations), graph search (match → 2 hops → mentions) timed on questions naming
one entity each; p50/p95 to set beside the base strategy's query p50 (target ≤ +10 ms).
reextract: a kept KB's graph dropped and extracted again from its stored chunks with the current
rule extractor, document by document with the KB-wide alias unification indexing applies (to try
extractor changes without embedding the corpus again). A KB ingested without a graph (the shared
e5 ingestion: `--kb-prefix set-`) is made an `ontology` KB first — on the copy only — and marked
ingested (`<set>.ingest.json`, ingest time unknown: null), so `quality` then scores it as is.
Figures are measured, never asserted; the load average is recorded with them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench.datasets import RESULTS, all_datasets
from bench.report import load_average, log, machine
from planrag.core.errors import KnowledgeBaseNotFound
from planrag.core.settings import Settings
from planrag.core.types import ChunkKind, DocumentStatus, KnowledgeBase
from planrag.executors.graph_search import GraphSearch
from planrag.ingest.extraction import ChunkText
from planrag.ingest.rule_extraction import RuleExtractor
from planrag.runtime import Runtime
from planrag.services.entity_unification import unify
from planrag.services.evaluation import BeirDataset, EvalSession, ingest_corpus
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.stores.graph import ChunkGraph, Entity, Relation
from planrag.stores.ontology import OntologyGraphStore
from planrag.stores.sparql import EmbeddedSparql
from planrag.stores.tables import KnowledgeBaseRow


def _settings(tmp: str, model: str | None = None) -> Settings:
    extra = {"embedding": {"model": model}} if model else {}
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=Path(tmp), graph={"extractor": "rule"}, **extra
    )


def kept_session(
    runtime: Runtime, name: str, data: BeirDataset, folder: Path, prefix: str = "graph-"
) -> EvalSession:
    """The set's graph KB in a persistent data dir: ingested the first time (its time recorded in
    `<folder>/<set>.ingest.json` with the load), reused afterwards (an interrupted ingestion
    resumes: uploading again is idempotent)."""
    try:
        kb = runtime.metadata.get_kb_by_name(f"{prefix}{name}")
    except KnowledgeBaseNotFound:
        create = KnowledgeBaseCreate.model_validate(
            {"name": f"{prefix}{name}", "graph_backend": "ontology"}
        )
        kb = runtime.knowledge_bases.create(create)
    record = folder / f"{name}.ingest.json"
    if record.exists():  # ingested: corpus ids from the file names (uploading again audits each)
        mapping = kept_mapping(runtime, kb.id)
        ingest_s = json.loads(record.read_text())["ingest_s"] or 0.0
        return EvalSession.existing(runtime, data, kb.id, mapping, ingest_s=ingest_s)
    started, load = time.perf_counter(), load_average()
    mapping = ingest_corpus(runtime, kb.id, data)
    runtime.bm25.index(kb.id)
    if not record.exists():
        spent = round(time.perf_counter() - started, 1)
        taken = {"ingest_s": spent, "load_before": load, "load_after": load_average()}
        record.write_text(json.dumps(taken))
    ingest_s = json.loads(record.read_text())["ingest_s"]
    return EvalSession.existing(runtime, data, kb.id, mapping, ingest_s=ingest_s)


def kept_mapping(runtime: Runtime, kb_id: str) -> dict[str, str]:
    """planrag document id → corpus id of a kept KB (documents are named `<corpus id>.txt`)."""
    docs = runtime.metadata.list_documents(kb_id, [DocumentStatus.completed])
    return {d.id: d.filename.removesuffix(".txt") for d in docs}


def quality(
    names: list[str],
    strategy: str,
    hops: list[int],
    model: str | None,
    data_dir: Path | None = None,
    prefix: str = "graph-",
) -> dict[str, object]:
    datasets = all_datasets()
    small = datasets.get("hotpotqa_200")
    if small is not None:  # 24 questions: a quick check beside the 200
        datasets["hotpotqa_24"] = small.with_name("hotpotqa_24.json")
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = data_dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        runtime = Runtime.open(_settings(str(folder), model))
        try:
            for name in names:
                data = BeirDataset.load(datasets.get(name) or Path(name))
                log(f"{name}: ingesting {len(data.corpus)} documents with the graph")
                if data_dir is None:
                    session = EvalSession(runtime, data, {"graph_backend": "ontology"})
                else:
                    session = kept_session(runtime, name, data, data_dir, prefix)
                with session:
                    results[name] = _score(runtime, name, session, strategy, hops)
        finally:
            runtime.close()
    return results


def _score(
    runtime: Runtime, name: str, session: EvalSession, strategy: str, hops: list[int]
) -> dict[str, object]:
    stats = runtime.knowledge_bases.get(session.kb_id).graph
    row: dict[str, object] = {
        "model": runtime.embedders.default_model,
        "ingest_s": round(session.ingest_s, 1),
        "entities": stats.entities if stats else None,
        "relations": stats.relations if stats else None,
        "load_before": load_average(),
    }
    row["graph off"] = session.run(strategy).as_json()  # type: ignore[arg-type]
    log(f"{name} graph off {json.dumps(row['graph off'])}")
    for h in hops:
        report = session.run(
            strategy,  # type: ignore[arg-type]
            enable_graph_search=True,
            graph_hops=h,
        ).as_json()
        row[f"graph on, {h} hop(s)"] = report
        log(f"{name} graph on {h} {json.dumps(report)}")
    row["load_after"] = load_average()
    return row


def reextract(
    names: list[str], data_dir: Path, model: str | None, prefix: str = "graph-"
) -> dict[str, object]:
    """Each kept KB's graph rebuilt from its chunks (the rule extractor and the KB-wide alias
    unification, document by document, as indexing runs them)."""
    runtime = Runtime.open(_settings(str(data_dir), model))
    out: dict[str, object] = {}
    try:
        extractor = RuleExtractor()
        for name in names:
            kb = _graph_kb(runtime, f"{prefix}{name}", data_dir / f"{name}.ingest.json")
            store = runtime.graphs.get(kb.graph_backend)
            started = time.perf_counter()
            store.drop_graph(kb.id)
            store.create_graph(kb.id)
            docs = runtime.metadata.list_documents(kb.id, [DocumentStatus.completed])
            for doc in docs:
                texts = [
                    ChunkText(chunk_id=c.id, doc_id=doc.id, text=c.text)
                    for c in runtime.metadata.list_chunks(
                        doc.id, [ChunkKind.chunk, ChunkKind.child]
                    )
                ]
                store.add(kb.id, unify(store, kb.id, extractor.extract(texts)))
            stats = store.stats(kb.id)
            out[name] = {
                "documents": len(docs),
                "entities": stats.entities,
                "relations": stats.relations,
                "seconds": round(time.perf_counter() - started, 1),
            }
            log(f"{name}: graph extracted again {json.dumps(out[name])}")
    finally:
        runtime.close()
    return out


def _graph_kb(runtime: Runtime, name: str, record: Path) -> KnowledgeBase:
    """The kept KB, made an `ontology` graph KB when it was ingested without one (a copy of the
    shared e5 ingestion: the metadata row is changed here, never through the API, which does
    not let a KB gain a graph), and marked ingested for `quality`."""
    kb = runtime.metadata.get_kb_by_name(name)
    if kb.graph_backend == "none":
        with runtime.metadata.session() as session:
            row = session.get(KnowledgeBaseRow, kb.id)
            assert row is not None
            row.graph_backend = "ontology"
        kb = runtime.metadata.get_kb(kb.id)
    if not record.exists():
        record.write_text(json.dumps({"ingest_s": None, "note": "copied, not ingested here"}))
    return kb


def cost(name: str, docs: int, model: str | None) -> dict[str, object]:
    data = BeirDataset.load(all_datasets()[name])
    subset = dict(list(data.corpus.items())[:docs])
    part = BeirDataset(corpus=subset, queries={}, qrels={})
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        runtime = Runtime.open(_settings(tmp, model))
        try:
            runtime.embedders.get().embed(["warm up"])
            runs = [("without graph", {}), ("with graph", {"graph_backend": "ontology"})] * 2
            for label, settings in runs:  # alternated; each side's best of two
                with EvalSession(runtime, part, settings) as session:
                    best = min(timings.get(label, session.ingest_s), session.ingest_s)
                    timings[label] = round(best, 2)
                    log(f"{label}: {session.ingest_s:.1f} s for {len(subset)} documents")
        finally:
            runtime.close()
    return {
        "set": name,
        "documents": len(subset),
        **timings,
        "ratio": round(timings["with graph"] / timings["without graph"], 3),
        "load": load_average(),
    }


def _names(rng: random.Random, n: int) -> list[str]:
    """Distinct two-word capitalised names ("Koravin Telsa"), as questions name entities."""
    syllables = [a + b for a in "bdgklmnprstvz" for b in "aeiou"]
    names: set[str] = set()
    while len(names) < n:
        words = ("".join(rng.choices(syllables, k=rng.randint(2, 3))) for _ in range(2))
        names.add(" ".join(w.capitalize() for w in words))
    return sorted(names)


def latency(entities: int, queries: int) -> dict[str, object]:
    rng = random.Random(7)
    names = _names(rng, entities)
    keys = [n.lower().replace(" ", "_") for n in names]
    with tempfile.TemporaryDirectory() as tmp:
        store = OntologyGraphStore(EmbeddedSparql(Path(tmp) / "g"))
        chunks = []
        for c in range(entities // 2):
            picked = rng.sample(range(entities), 4)
            ents = [Entity(key=keys[i], name=names[i]) for i in picked]
            rels = [
                Relation(source=keys[a], target=keys[b])
                for a, b in zip(picked, picked[1:], strict=False)
            ]
            chunks.append(
                ChunkGraph(chunk_id=f"c{c}", doc_id=f"d{c // 10}", entities=ents, relations=rels)
            )
        started = time.perf_counter()
        for start in range(0, len(chunks), 500):
            store.add("kb", chunks[start : start + 500])
        fill_s = time.perf_counter() - started
        search = GraphSearch(store, "ontology")
        times = []
        for q in range(queries):
            question = f"What does {names[rng.randrange(entities)]} work with?"
            started = time.perf_counter()
            result = search.search("kb", question, hops=2, limit=20)
            times.append((time.perf_counter() - started) * 1000)
            assert q or result.hits, "the synthetic graph must answer"
        stats = store.stats("kb")
        store.close()
    times.sort()
    return {
        "entities": stats.entities,
        "relations": stats.relations,
        "fill_s": round(fill_s, 2),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(len(times) * 0.95) - 1], 2),
        "queries": queries,
        "load": load_average(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["quality", "cost", "latency", "reextract"])
    parser.add_argument("--sets", nargs="*", default=["hotpotqa_200"])
    parser.add_argument("--set", default="hotpotqa_200")
    parser.add_argument("--strategy", default="hybrid")
    parser.add_argument("--hops", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--entities", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--model", help="embedding model (default: PLANRAG's default)")
    parser.add_argument("--data-dir", type=Path, help="keep (and reuse) the quality KBs here")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--kb-prefix", default="graph-", help="kept KBs are named <prefix><set>")
    args = parser.parse_args()
    if args.what == "quality":
        result = quality(
            args.sets, args.strategy, args.hops, args.model, args.data_dir, args.kb_prefix
        )
    elif args.what == "reextract":
        if args.data_dir is None:
            parser.error("reextract needs the --data-dir of kept KBs")
        result = reextract(args.sets, args.data_dir, args.model, args.kb_prefix)
    elif args.what == "cost":
        result = cost(args.set, args.docs, args.model)
    else:
        result = latency(args.entities, args.queries)
    payload = {"bench": f"graph {args.what}", "machine": machine(), "result": result}
    out = args.out or RESULTS / f"graph_{args.what}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False))
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
