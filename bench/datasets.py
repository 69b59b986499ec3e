"""Evaluation datasets from ../shared/data as BEIR-style files for `planrag eval`.

The JSON sets are BEIR-style already; CISI (SMART format) is converted here, at run time, into
bench/results/ (git-ignored): the data is never copied into the repository.
ko_news_2017 has no queries or judgements (dated headlines for time filters), so it is not a
retrieval set.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.corpus import DEFAULT_DATA_DIR

RESULTS = Path(__file__).resolve().parent / "results"
BEIR_SETS = {
    "publichealthqa_ko": "publichealthqa_ko/publichealthqa_ko.json",
    "allganize_rag_ko": "allganize_rag_ko/allganize_rag_ko_200.json",
    "hotpotqa_200": "hotpotqa_dev_subset/hotpotqa_200.json",
}
_RECORD = re.compile(r"^\.I\s+(\d+)\s*$", re.MULTILINE)
_FIELD = re.compile(r"^\.([A-Z])\s*$", re.MULTILINE)


def smart_records(text: str) -> dict[str, dict[str, str]]:
    """`.I id` records with `.T/.A/.W/.X…` fields → {id: {field letter: text}}."""
    records: dict[str, dict[str, str]] = {}
    starts = list(_RECORD.finditer(text))
    for i, match in enumerate(starts):
        body = text[match.end() : starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        fields: dict[str, str] = {}
        marks = list(_FIELD.finditer(body))
        for j, mark in enumerate(marks):
            end = marks[j + 1].start() if j + 1 < len(marks) else len(body)
            fields[mark.group(1)] = " ".join(body[mark.end() : end].split())
        records[match.group(1)] = fields
    return records


def cisi(data_dir: Path = DEFAULT_DATA_DIR) -> Path:
    """CISI as BEIR JSON: 1,460 abstracts, the 76 queries that have judgements."""
    folder = data_dir / "cisi"
    docs = smart_records((folder / "CISI.ALL").read_text(encoding="utf-8", errors="replace"))
    queries = smart_records((folder / "CISI.QRY").read_text(encoding="utf-8", errors="replace"))
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "CISI.REL").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            qrels.setdefault(parts[0], {})[parts[1]] = 1
    dataset = {
        "corpus": {i: {"title": f.get("T", ""), "text": f.get("W", "")} for i, f in docs.items()},
        "queries": {i: f.get("W", "") for i, f in queries.items() if i in qrels},
        "qrels": qrels,
    }
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "cisi.json"
    out.write_text(json.dumps(dataset, ensure_ascii=False))
    return out


def all_datasets(data_dir: Path = DEFAULT_DATA_DIR) -> dict[str, Path]:
    found = {name: data_dir / rel for name, rel in BEIR_SETS.items() if (data_dir / rel).exists()}
    if (data_dir / "cisi" / "CISI.ALL").exists():
        found["cisi"] = cisi(data_dir)
    return found
