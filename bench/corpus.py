"""Benchmark inputs built at run time from the shared evaluation data (never copied into the repo).

The data lives in `../shared/data` next to the checkout (override with PLANRAG_BENCH_DATA).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_DATA_DIR = Path(
    os.environ.get("PLANRAG_BENCH_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)
HOTPOTQA = "hotpotqa_dev_subset/hotpotqa_200.json"
KOREAN_SETS = (
    "allganize_rag_ko/allganize_rag_ko_200.json",
    "publichealthqa_ko/publichealthqa_ko.json",
)
CISI = "cisi/CISI.ALL"

# A sentence ends at . ! ? (or 다./요. in Korean) followed by whitespace; good enough for pools.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CISI_TEXT = re.compile(r"^\.W\n(.*?)(?=^\.[A-Z]\b)", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Paragraph:
    title: str
    text: str


def _load(data_dir: Path, relative: str) -> dict[str, Any]:
    path = data_dir / relative
    if not path.exists():
        raise SystemExit(f"benchmark data missing: {path} (set PLANRAG_BENCH_DATA)")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _paragraphs(data: dict[str, Any]) -> list[Paragraph]:
    corpus: dict[str, dict[str, str]] = data["corpus"]
    return [
        Paragraph(title=(doc.get("title") or "").strip(), text=doc["text"].strip())
        for doc in corpus.values()
        if doc.get("text", "").strip()
    ]


def english_paragraphs(data_dir: Path = DEFAULT_DATA_DIR) -> list[Paragraph]:
    """HotpotQA dev-subset corpus: 1,990 Wikipedia paragraphs."""
    return _paragraphs(_load(data_dir, HOTPOTQA))


def korean_paragraphs(data_dir: Path = DEFAULT_DATA_DIR) -> list[Paragraph]:
    """Korean finance-report passages (allganize) then public-health FAQ answers."""
    found: list[Paragraph] = []
    for relative in KOREAN_SETS:
        found += _paragraphs(_load(data_dir, relative))
    return found


def korean_queries(data_dir: Path = DEFAULT_DATA_DIR) -> list[str]:
    """The questions of the two Korean sets (allganize, then public health), distinct."""
    found: list[str] = []
    for relative in KOREAN_SETS:
        queries: dict[str, str] = _load(data_dir, relative)["queries"]
        found += [q.strip() for q in queries.values() if q.strip()]
    return list(dict.fromkeys(found))


def english_queries(data_dir: Path = DEFAULT_DATA_DIR) -> list[str]:
    """The 200 HotpotQA questions."""
    queries: dict[str, str] = _load(data_dir, HOTPOTQA)["queries"]
    return [q.strip() for q in queries.values() if q.strip()]


def cisi_texts(data_dir: Path = DEFAULT_DATA_DIR) -> list[str]:
    """Abstracts of the CISI collection (SMART format, `.W` fields)."""
    path = data_dir / CISI
    if not path.exists():
        return []
    raw = path.read_text(encoding="utf-8", errors="replace") + "\n.I 0\n"
    return [" ".join(m.split()) for m in _CISI_TEXT.findall(raw) if m.strip()]


def pack_documents(paragraphs: list[Paragraph], n_docs: int, doc_chars: int) -> list[str]:
    """Concatenate consecutive paragraphs (title line + text) into documents of ~doc_chars.

    Stops at n_docs or when the paragraphs run out; never repeats a paragraph.
    """
    docs: list[str] = []
    parts: list[str] = []
    size = 0
    for para in paragraphs:
        block = f"{para.title}\n{para.text}" if para.title else para.text
        parts.append(block)
        size += len(block) + 2
        if size >= doc_chars:
            docs.append("\n\n".join(parts) + "\n")
            parts, size = [], 0
            if len(docs) == n_docs:
                return docs
    if parts and len(docs) < n_docs:
        docs.append("\n\n".join(parts) + "\n")
    return docs


def sentences(text: str, min_chars: int = 30) -> list[str]:
    """Sentences of at least `min_chars` characters, whitespace collapsed."""
    found = (" ".join(s.split()) for s in _SENTENCE_END.split(text))
    return [s for s in found if len(s) >= min_chars]


def text_pool(data_dir: Path = DEFAULT_DATA_DIR) -> list[str]:
    """Distinct real passages for vector benches, English first.

    HotpotQA paragraphs and their sentences, CISI abstracts and their sentences, then Korean
    passages and sentences. Duplicates removed, order kept.
    """
    pool: list[str] = []
    english = english_paragraphs(data_dir)
    pool += [" ".join(p.text.split()) for p in english]
    for para in english:
        pool += sentences(para.text)
    cisi = cisi_texts(data_dir)
    pool += cisi
    for abstract in cisi:
        pool += sentences(abstract)
    korean = korean_paragraphs(data_dir)
    pool += [" ".join(p.text.split()) for p in korean]
    for para in korean:
        pool += sentences(para.text)
    return list(dict.fromkeys(t for t in pool if t))
