"""Answers as a user reads them: questions with known short answers through `POST /ai/v2/ask`.

    python -m bench.answers [--sets ko,hotpot,allganize] [--limit N] [--label after]

A real `planrag serve` (embedded defaults: e5, hybrid search, no LLM: extractive answers) over
one knowledge base per set, kept under bench/results/answers-data/ (gitignored) and reused:

- `ko`: our Korean fixture corpus (tests/fixtures/ko_company/*.md) and its question/answer pairs
  (qa_answers.jsonl: people, dates, numbers, places, organisations, model names, a few
  cross-lingual); `ko_common` (qa_common_ko.jsonl, 공통점/차이점: also whether the answer cites
  every subject's document), `ko_bridge` (qa_bridge_ko.jsonl, Korean bridge questions),
  `ko_cross` (crosslingual.jsonl) and `ko_absent` (absent_questions.jsonl: facts no document
  holds, so "answered" counts false answers) and `ko_near` (absent_near.jsonl: a detail of a
  subject the documents hold, "says_absent" counting the answers that say so) and `ko_s13`
  (qa_heldout_s13.jsonl: written in session 13 as users ask, colloquial, with spacing slips and
  synonyms; `also`: a second gold "anywhere" must hold too) ask the same KB;
- `ko_fresh`: seven Korean documents in other domains (tests/fixtures/ko_fresh, session 14:
  a hospital, a library, a food company, a lab, minutes, an FAQ), 90 questions as users ask,
  written before any run; its own KB ("answers-ko-fresh");
- `ko_fresh2`: eight more Korean documents (tests/fixtures/ko_fresh2, session 15: an apartment
  notice board, a gym's terms, a startup, a festival, travel insurance, a vocational school, an
  outage report, a bakery), 100 questions as users ask (everyday words for the documents' words),
  written before any run by someone who had not read the reader; its own KB ("answers-ko-fresh2");
  a file's `split` (tune / heldout) is summarised apart;
- `hotpot`: HotpotQA-200 (../shared/data/hotpotqa_dev_subset, 1,990 paragraphs, read at run time,
  never committed), its short answers; `hotpot24`: HotpotQA-24 (same folder, 24 other questions
  over 226 paragraphs, none in the 200): held out, never tuned on (session 13);
- `allganize`: allganize RAG-ko 200 (../shared/data/allganize_rag_ko): its file has no reference
  answers, so only false "not found", whether the lead cites the gold passage, and lengths.

HotpotQA and allganize are too big to ingest per bench on a shared machine: they are read from a
copy of the lead's e5 ingestion (`/work/benchdata/e5/data`: KBs `set-hotpotqa_200` and
`set-allganize_rag_ko`, a document per corpus entry named `<corpus id>.txt`), given as
`--data-dir`; the bench stops rather than ingest them itself.

Per set: the share whose lead (the answer up to its first citation) holds the gold answer, the
share holding it anywhere, false "not found" (the answer says nothing was found, or
`exist_in_post_status.exists` is false, while the gold document is the first hit), verdict
disagreements (`exists` true but the answer says nothing was found, or the reverse), and the mean
and median answer length in characters. Gold matching folds case and ignores spaces and commas;
a Latin gold of three characters or fewer ("no", "U2") must be a whole word, and a "not found"
answer holds no gold (before session 8, "no" was found in "I found no documents").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import httpx  # noqa: E402

from bench.corpus import DEFAULT_DATA_DIR  # noqa: E402
from bench.report import RESULTS_DIR, log, machine, write_json  # noqa: E402
from bench.server import planrag_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = DEFAULT_DATA_DIR  # ../shared/data, or PLANRAG_BENCH_DATA
KO_DIR = ROOT / "tests" / "fixtures" / "ko_company"
FRESH_DIR = ROOT / "tests" / "fixtures" / "ko_fresh"  # session 14: documents nobody tuned on
FRESH2_DIR = ROOT / "tests" / "fixtures" / "ko_fresh2"  # session 15: a second such corpus
NOT_FOUND = ("찾지 못했습니다", "found no documents")
ABSENT = (
    "문서에 없습니다",
    "not in the documents",
    "No document says",
)  # the asked detail is absent, related shown
UPLOAD_BATCH = 40


SHARED_KBS = {"hotpot", "hotpot24", "allganize"}


# The question files over our fixture corpus, all asked of one KB ("answers-ko").
KO_FILES = {
    "ko": "qa_answers.jsonl",
    "ko_common": "qa_common_ko.jsonl",  # 공통점/차이점 questions (session 10)
    "ko_bridge": "qa_bridge_ko.jsonl",  # Korean bridge questions (session 10)
    "ko_cross": "crosslingual.jsonl",  # English over Korean documents and the reverse
    "ko_absent": "absent_questions.jsonl",  # facts no document holds: any answer is false
    "ko_near": "absent_near.jsonl",  # near-absent details (session 11): "says_absent" catches
    # written fresh in session 13 as users ask (colloquial, spacing slips, synonyms), 80
    # answerable and 8 absent; `also`: a second part the answer must hold too (two questions in one)
    "ko_s13": "qa_heldout_s13.jsonl",
}
# Sets over other fixture corpora: {set: (folder, question file)}, each its own KB.
FIXTURE_SETS = {
    # session 14: seven new Korean documents and 90 questions, written before any run
    "ko_fresh": (FRESH_DIR, "qa.jsonl"),
    # session 15: eight more Korean documents and 100 questions, written before any run
    "ko_fresh2": (FRESH2_DIR, "qa.jsonl"),
}


# The KB each set is asked against; the big sets' KBs come from the shared e5 ingestion.
KB_NAMES = {name: "answers-ko" for name in KO_FILES} | {
    "ko_fresh": "answers-ko-fresh",
    "ko_fresh2": "answers-ko-fresh2",
    "hotpot": "set-hotpotqa_200",
    "hotpot24": "set-hotpotqa_24",
    "allganize": "set-allganize_rag_ko",
}


def ko_set(name: str = "ko") -> tuple[dict[str, tuple[str, str]], list[dict[str, Any]]]:
    folder, file = FIXTURE_SETS.get(name, (KO_DIR, KO_FILES.get(name, "")))
    docs = {p.name: (p.name, p.read_text()) for p in sorted(folder.glob("*.md"))}
    docs.pop("README.md", None)
    questions = [json.loads(line) for line in (folder / file).open()]
    for q in questions:
        q["golds"] = [q["answer"], *q.get("aliases", [])] if "answer" in q else []
        q["gold_docs"] = [q["doc"]] if "doc" in q else []
    return docs, questions


def beir_set(path: Path) -> tuple[dict[str, tuple[str, str]], list[dict[str, Any]]]:
    """A BEIR-style set, its documents named as the shared ingestion names them."""
    data = json.loads(path.read_text())
    docs = {
        f"{doc_id}.txt": (doc_id, f"{d.get('title') or ''}\n\n{d['text']}")
        for doc_id, d in data["corpus"].items()
    }
    by_id = {doc_id: name for name, (doc_id, _) in docs.items()}
    answers = data.get("answers", {})
    questions = [
        {
            "id": qid,
            "question": text,
            "golds": [answers[qid]] if qid in answers else [],
            "gold_docs": [by_id[d] for d in data["qrels"].get(qid, {}) if d in by_id],
        }
        for qid, text in data["queries"].items()
    ]
    return docs, questions


def load_set(name: str, shared: Path) -> tuple[dict[str, tuple[str, str]], list[dict[str, Any]]]:
    if name in KO_FILES or name in FIXTURE_SETS:
        return ko_set(name)
    if name == "hotpot":
        return beir_set(shared / "hotpotqa_dev_subset" / "hotpotqa_200.json")
    if name == "hotpot24":
        return beir_set(shared / "hotpotqa_dev_subset" / "hotpotqa_24.json")
    if name == "allganize":
        return beir_set(shared / "allganize_rag_ko" / "allganize_rag_ko_200.json")
    raise SystemExit(
        f"unknown set {name!r}: ko, ko_fresh, ko_fresh2, hotpot, hotpot24 or allganize"
    )


def ensure_kb(
    url: str, name: str, docs: dict[str, tuple[str, str]], ingest: bool = True
) -> tuple[str, dict[str, str]]:
    """The KB `name` holding `docs` (created and filled once, unless `ingest` is false: then
    it must hold them already); {document id: file name}."""
    kbs = httpx.get(f"{url}/api/knowledge-bases", timeout=60).json()
    kb = next((k for k in kbs if k["name"] == name), None)
    if kb is None and not ingest:
        raise SystemExit(f"no KB {name!r}: --data-dir must be a copy of /work/benchdata/e5/data")
    if kb is None:
        kb = httpx.post(f"{url}/api/knowledge-bases", json={"name": name}, timeout=60).json()
    listed = _documents(url, kb["id"])
    have = {d["filename"] for d in listed}
    missing = [f for f in docs if f not in have]
    if missing and not ingest:
        raise SystemExit(f"KB {name!r} lacks {len(missing)} documents (e.g. {missing[0]})")
    for start in range(0, len(missing), UPLOAD_BATCH):
        files = [
            ("files", (f, docs[f][1].encode(), "text/markdown"))
            for f in missing[start : start + UPLOAD_BATCH]
        ]
        response = httpx.post(
            f"{url}/api/knowledge-bases/{kb['id']}/documents", files=files, timeout=600
        )
        response.raise_for_status()
        log(f"  {name}: uploaded {min(start + UPLOAD_BATCH, len(missing))}/{len(missing)}")
    while True:
        listed = _documents(url, kb["id"])
        done = sum(d["status"] in ("completed", "failed") for d in listed)
        if done == len(listed):
            break
        log(f"  {name}: {done}/{len(listed)} indexed")
        time.sleep(10)
    return kb["id"], {d["id"]: d["filename"] for d in listed}


def _documents(url: str, kb_id: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{url}/api/knowledge-bases/{kb_id}/documents", timeout=120)
    response.raise_for_status()
    documents: list[dict[str, Any]] = response.json()
    return documents


def ask(url: str, kb: str, question: str) -> dict[str, Any]:
    events: dict[str, Any] = {}
    answer: list[str] = []
    name = "message"
    with httpx.stream(
        "POST",
        f"{url}/ai/v2/ask",
        json={"question": question, "knowledge_bases": [kb]},
        timeout=600,
    ) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data = json.loads(line[5:])
                if name == "answer":
                    answer.append(data["delta"])
                elif name == "step":
                    events.setdefault("steps", []).append(data)
                else:
                    events[name] = data
    events["answer"] = "".join(answer)
    return events


def _fold(text: str) -> str:
    return "".join(ch for ch in text.casefold() if not ch.isspace() and ch != ",")


def gold_in(golds: list[str], text: str) -> bool:
    """Whether any gold answer is in the text: folded (case, spaces, commas), a short gold
    ("no", "U2", "8") as a whole word, so "no" is not found in "known" or "I found no …"."""
    folded = _fold(text)
    words = set(re.findall(r"\w+", text.casefold()))
    for gold in golds:
        if not gold:
            continue
        if len(gold) <= 3 and gold.isascii() and gold.isalnum():
            if gold.casefold() in words:
                return True
        elif _fold(gold) in folded:
            return True
    return False


def lead_of(answer: str) -> str:
    cut = answer.find("[")
    while cut != -1 and not answer[cut + 1 : cut + 2].isdigit():
        cut = answer.find("[", cut + 1)
    return answer if cut == -1 else answer[:cut]


def score(
    question: dict[str, Any], events: dict[str, Any], files: dict[str, str]
) -> dict[str, Any]:
    answer = events.get("answer", "")
    hits = events.get("search_result", {}).get("hits", [])
    first = files.get(hits[0]["doc_id"]) if hits else None
    exists = bool(events.get("exist_in_post_status", {}).get("exists"))
    said_none = any(p in answer for p in NOT_FOUND)
    golds = [g for g in question["golds"] if g]
    shown = "" if said_none else answer  # "I found no documents" answers nothing
    passages = {p["n"]: p for p in events.get("context", {}).get("passages", [])}
    cited = next(iter(events.get("end", {}).get("citations", [])), None)
    lead_doc = (
        files.get(passages[cited["n"]]["doc_id"]) if cited and cited["n"] in passages else None
    )
    cited_docs = {
        files.get(passages[c["n"]]["doc_id"])
        for c in events.get("end", {}).get("citations", [])
        if c["n"] in passages
    }
    return {
        "id": question.get("id"),
        "question": question["question"],
        "golds": question["golds"],
        "also": question.get("also", []),
        "answer": answer,
        "in_lead": gold_in(golds, lead_of(shown)) if golds else None,
        "anywhere": (
            gold_in(golds, shown) and all(gold_in([g], shown) for g in question.get("also", []))
            if golds
            else None
        ),
        "gold_first": first in question["gold_docs"],
        # a fact no document holds, asked of a named document: "not found" is its right answer
        "absent": question.get("type") == "absent",
        "lead_from_gold": lead_doc in question["gold_docs"] if lead_doc else False,
        "not_found": said_none or not exists,
        "says_absent": any(p in answer for p in ABSENT),
        "cites_docs": set(question["docs"]) <= cited_docs if question.get("docs") else None,
        "split": question.get("split"),
        "disagree": exists == said_none,
        "length": len(answer),
        "exists": exists,
        "passages": list(passages.values()),  # to re-read offline (tuning the reader)
        "plan_query": events.get("search_plan", {}).get("plan", {}).get("query"),
        "steps": len(events.get("steps", [])),
        "step_reads": [  # each step's query and the name it read (why a chain went wrong)
            [s.get("query"), (s.get("answer") or {}).get("text"), s.get("adaptive", False)]
            for s in events.get("steps", [])
        ],
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    graded = [r for r in rows if r["in_lead"] is not None]
    with_docs = [r for r in rows if r.get("cites_docs") is not None]
    lengths = [r["length"] for r in rows]
    pct = lambda part, whole: round(100 * part / whole, 1) if whole else None  # noqa: E731
    return {
        "questions": len(rows),
        "gold_in_lead_pct": pct(sum(r["in_lead"] for r in graded), len(graded)),
        "gold_anywhere_pct": pct(sum(r["anywhere"] for r in graded), len(graded)),
        "lead_cites_gold_doc_pct": pct(sum(r["lead_from_gold"] for r in rows), len(rows)),
        "gold_first": sum(r["gold_first"] for r in rows),
        "false_not_found": sum(
            r["not_found"] and r["gold_first"] and not r.get("absent") for r in rows
        ),
        "not_found": sum(r["not_found"] for r in rows),
        "verdict_disagreements": sum(r["disagree"] for r in rows),
        "says_absent": sum(r.get("says_absent", False) for r in rows),
        "answered": sum(not r["not_found"] and not r.get("says_absent") for r in rows),
        "ungraded_answered": sum(  # questions without a gold (absent facts) answered anyway
            r["in_lead"] is None and not r["not_found"] and not r.get("says_absent") for r in rows
        ),
        "cites_all_docs_pct": pct(sum(r["cites_docs"] for r in with_docs), len(with_docs)),
        "mean_chars": round(statistics.fmean(lengths), 1) if lengths else None,
        "median_chars": statistics.median(lengths) if lengths else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="ko,hotpot,allganize")
    parser.add_argument("--limit", type=int, default=0, help="questions per set (0: all)")
    parser.add_argument("--label", default="run")
    parser.add_argument("--data-dir", type=Path, default=RESULTS_DIR / "answers-data")
    parser.add_argument(
        "--shared", type=Path, default=SHARED, help="PLANRAG_BENCH_DATA, else ../shared/data"
    )
    args = parser.parse_args()
    args.data_dir = args.data_dir.resolve()  # the server runs from its parent directory
    args.data_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"label": args.label, "machine": machine(), "sets": {}}
    with planrag_server(args.data_dir, RESULTS_DIR / "answers-server.log") as server:
        for name in args.sets.split(","):
            docs, questions = load_set(name, args.shared)
            kb_id, files = ensure_kb(
                server.base_url, KB_NAMES[name], docs, ingest=name not in SHARED_KBS
            )
            chosen = questions[: args.limit] if args.limit else questions
            rows = []
            for i, question in enumerate(chosen, 1):
                rows.append(
                    score(question, ask(server.base_url, kb_id, question["question"]), files)
                )
                if i % 25 == 0:
                    log(f"  {name}: {i}/{len(chosen)} {summarise(rows)}")
            splits = {
                split: summarise([r for r in rows if r.get("split") == split])
                for split in sorted({r["split"] for r in rows if r.get("split")})
            }
            results["sets"][name] = {"summary": summarise(rows), "splits": splits, "rows": rows}
            log(f"{name}: {results['sets'][name]['summary']}")
    path = write_json(RESULTS_DIR / f"answers-{args.label}.json", results)
    log(f"wrote {path}")
    for name, result in results["sets"].items():
        print(name, json.dumps(result["summary"], ensure_ascii=False))
        for split, summary in result["splits"].items():
            print(f"  {split}", json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
