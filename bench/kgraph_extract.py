"""Korean extraction bench (issue 26): the rule extractor against our gold sentences.

`tests/fixtures/ko_company/graph_gold.jsonl`: sentences of our own (companies, people, schools,
products, places; distractors such as a name that begins another person's name and companies
named after people), each with gold entities (name, type) and typed relations (head, type,
tail), in two parts: `dev` (the patterns were written against it) and `held_out` (written
before the rules were tuned, never tuned on). Sentences are grouped into documents of 12 (the
extractor resolves "정 대표" within its document), one chunk per sentence.

Scores per sentence: an entity counts when its name (NFKC, case-folded, spaces as `_`) and type
match; "names only" ignores the type. A relation counts when head, type and tail match
(PARTNER_OF either way round); `related_to` (co-occurrence) is not scored — the gold lists only
what a sentence states — and its count is reported.

    python -m bench.kgraph_extract                   # this checkout's extractor
    PYTHONPATH=/work/main python bench/kgraph_extract.py --label before   # another checkout's

Writes bench/results/kgraph_extract_<label>.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

GOLD = Path(__file__).resolve().parents[1] / "tests/fixtures/ko_company/graph_gold.jsonl"
RESULTS = Path(__file__).resolve().parent / "results"
SYMMETRIC = {"PARTNER_OF"}


def key(name: str) -> str:
    return "_".join(unicodedata.normalize("NFKC", name).casefold().split())


def _extractor() -> Any:
    try:
        from planrag.ingest.rule_extraction import RuleExtractor
    except ImportError:  # a checkout from before issue 26
        from planrag.ingest.extraction import RuleExtractor  # type: ignore[attr-defined,no-redef]
    return RuleExtractor()


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 3), "recall": round(r, 3), "f1": round(f, 3), "gold": tp + fn}


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from planrag.ingest.extraction import ChunkText

    extractor = _extractor()
    docs: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        docs.setdefault(row["doc"], []).append(row)
    counts: Counter[str] = Counter()
    errors: list[dict[str, Any]] = []
    for doc, items in docs.items():
        chunks = [ChunkText(chunk_id=r["id"], doc_id=doc, text=r["text"]) for r in items]
        for row, graph in zip(items, extractor.extract(chunks), strict=True):
            _count(row, graph, counts, errors)
    types = sorted({k.split(":")[1] for k in counts if ":" in k} - {"rel", "names", "all"})
    out: dict[str, Any] = {
        "sentences": len(rows),
        "entities": _prf(counts["tp:all"], counts["fp:all"], counts["fn:all"]),
        "entities (names only)": _prf(counts["tp:names"], counts["fp:names"], counts["fn:names"]),
        "entities by type": {
            t: _prf(counts[f"tp:{t}"], counts[f"fp:{t}"], counts[f"fn:{t}"]) for t in types
        },
        "relations": _prf(counts["tp:rel"], counts["fp:rel"], counts["fn:rel"]),
        "related_to edges": counts["related_to"],
        "errors": errors[:400],
    }
    return out


def _count(row: dict[str, Any], graph: Any, counts: Counter[str], errors: list[Any]) -> None:
    gold = {(key(n), t) for n, t in row["entities"]}
    found = {(key(e.name), e.type) for e in graph.entities}
    for name, type_ in found | gold:
        hit = (name, type_) in gold and (name, type_) in found
        kind = "tp" if hit else ("fp" if (name, type_) in found else "fn")
        counts[f"{kind}:all"] += 1
        counts[f"{kind}:{type_}"] += 1
        if not hit:
            errors.append({"id": row["id"], kind: [name, type_]})
    gold_names, found_names = {n for n, _ in gold}, {n for n, _ in found}
    counts["tp:names"] += len(gold_names & found_names)
    counts["fp:names"] += len(found_names - gold_names)
    counts["fn:names"] += len(gold_names - found_names)
    names = {e.key: key(e.name) for e in graph.entities}
    gold_rel = {(key(h), t, key(o)) for h, t, o in row["relations"]}
    found_rel = set()
    for rel in graph.relations:
        if rel.type == "related_to":
            counts["related_to"] += 1
            continue
        h, o = names.get(rel.source, rel.source), names.get(rel.target, rel.target)
        if rel.type in SYMMETRIC and (o, rel.type, h) in gold_rel:
            h, o = o, h
        found_rel.add((h, rel.type, o))
    for triple in found_rel | gold_rel:
        kind = (
            "tp"
            if triple in gold_rel and triple in found_rel
            else ("fp" if triple in found_rel else "fn")
        )
        counts[f"{kind}:rel"] += 1
        if kind != "tp":
            errors.append({"id": row["id"], f"rel_{kind}": list(triple)})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="after")
    parser.add_argument("--gold", type=Path, default=GOLD)
    parser.add_argument("--errors", action="store_true", help="print the misses")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.gold.read_text().splitlines() if line.strip()]
    report = {}
    for split in ("dev", "held_out"):
        report[split] = score([r for r in rows if r["split"] == split])
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"kgraph_extract_{args.label}.json").write_text(
        json.dumps(report, ensure_ascii=False, indent=1)
    )
    for split, result in report.items():
        errors = result.pop("errors")
        print(f"== {split} ({result['sentences']} sentences)")
        print(json.dumps({k: v for k, v in result.items()}, ensure_ascii=False, indent=1))
        if args.errors:
            for error in errors:
                print("  ", json.dumps(error, ensure_ascii=False))


if __name__ == "__main__":
    sys.path.append(str(Path(__file__).resolve().parents[1]))
    main()
