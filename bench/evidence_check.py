"""What the ask path's evidence check lets through, and what it refuses (issue 25, session 9).

    python -m bench.evidence_check --data-dir <copy of /work/benchdata/e5/data> [--limit 60] \
        [--out bench/results/evidence_check.json]

Every question goes through `AskService.run` as a user meets it (rule planner, no LLM: the
extractive answer and its evidence check) on a copy of the lead's e5 data dir, with our fixture
corpus (tests/fixtures/ko_company) ingested into it once as KB `ko-company`. Groups:

- `cross` (answer present): crosslingual.jsonl, English questions over the Korean documents and
  Korean over the English ones; answered when the answer cites a passage of the question's
  document holding the gold answer; `not found` when it says nothing was found.
- `absent` (answer absent): absent_questions.jsonl over ko-company, English and Korean, about
  facts no document holds (near: about the corpus's companies and products; off: general
  knowledge). Any answer is a false answer.
- `other-kb` (answer absent): HotpotQA-200 questions against the Korean KBs
  (set-publichealthqa_ko, set-allganize_rag_ko) and publichealthqa/allganize questions against
  the English ones (set-hotpotqa_24, set-cisi): the KB cannot hold the answer.
- `same` (answer present): each set's own questions against its own KB; false "not found" when
  the gold document is the first passage.

Each ask's first evidence check is recorded (per passage shown: the share of question terms it
holds, whether it is in the question's language, its e5 similarity to the question), so other
rules can be replayed over the same passages (`replay`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.datasets import BEIR_SETS, RESULTS, all_datasets  # noqa: E402
from planrag.core.settings import E5_MODEL, EmbeddingSettings, IngestSettings, Settings  # noqa: E402
from planrag.core.types import CrossFloors, DocumentMetadata  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services import reader as reader_module  # noqa: E402
from planrag.services import reader_evidence  # noqa: E402
from planrag.services.answers import Passage  # noqa: E402
from planrag.services.evaluation import BeirDataset  # noqa: E402
from planrag.services.ingestion import UploadItem  # noqa: E402
from planrag.services.knowledge_bases import KnowledgeBaseCreate  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ko_company"
NOT_FOUND = ("찾지 못했습니다", "found no documents")
KO_KB = "ko-company"
KOREAN_KBS = ["set-publichealthqa_ko", "set-allganize_rag_ko"]
ENGLISH_KBS = ["set-hotpotqa_24", "set-cisi"]
OWN = {"publichealthqa_ko": "set-publichealthqa_ko", "allganize_rag_ko": "set-allganize_rag_ko"}
OWN_EN = {"hotpotqa_24": "set-hotpotqa_24"}

RECORDS: list[dict[str, Any]] = []


def _recording(original: Callable[..., list[int]]) -> Callable[..., list[int]]:
    """Reader.evidence, recording what it saw (the first call of each ask is kept)."""

    def evidence(
        self: reader_module.Reader, question: str, passages: Sequence[Passage]
    ) -> list[int]:
        shown = list(passages[: reader_evidence.READ_PASSAGES])
        terms = self.terms(question)
        # each passage's best piece (its best sentence across languages where the KB has a
        # sentence floor, else its text) and the similarity that piece needs
        pieces = [self._pieces(question, p) for p in shown] if self.has_e5 else []
        sims = [max(self.similarities(question, texts)) for texts, _ in pieces]
        RECORDS.append(
            {
                "question": question,
                "floor": self._floor,
                "coverage": [round(self.coverage(terms, p), 4) for p in shown],
                "crosses": [reader_evidence._crosses(question, p) for p in shown],
                "sims": [round(s, 4) for s in sims],
                "floors": [round(floor, 4) for _, floor in pieces],
            }
        )
        return original(self, question, passages)

    return evidence


def jsonl(name: str) -> list[dict[str, Any]]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def ensure_ko(runtime: Runtime) -> None:
    if any(kb.name == KO_KB for kb in runtime.metadata.list_kbs()):
        return
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=KO_KB, embedding_model=E5_MODEL))
    ids = []
    for path in sorted(p for p in CORPUS.glob("*.md") if p.name != "README.md"):
        item = UploadItem(filename=path.name, data=path.read_bytes())
        doc = runtime.ingestion.upload(kb.id, [item], DocumentMetadata(), background=False)[0]
        ids.append(doc.id)
    runtime.ingestion.index_many(ids)
    runtime.calibrator.refresh(kb.id, force=True)


FAST = False  # --searched: hybrid search + the evidence check only (no planner, no reader)
TOP_K = 5


class _Searched:
    def __init__(self, passages: list[Passage]) -> None:
        self.passages = passages
        self.answer = ""


def searched(runtime: Runtime, kb: str, question: str) -> tuple[dict[str, Any], Any]:
    """The evidence check on the KB's hybrid top 5 (what the rule planner's plan searches),
    without the planner and the reader: the verdict replayed from the recorded features."""
    from planrag.services.retrieval import RetrieveRequest

    knowledge_base = runtime.metadata.get_kb_by_name(kb)
    request = RetrieveRequest(query=question, strategy="hybrid", top_k=TOP_K)  # type: ignore[arg-type]
    hits = runtime.retrieval.retrieve(knowledge_base.id, request)
    passages = [
        Passage(
            n=i,
            chunk_id=h.chunk_id,
            doc_id=h.doc_id,
            knowledge_base=kb,
            score=h.score,
            content=h.content,
        )
        for i, h in enumerate(hits, start=1)
    ]
    embedder = runtime.retrieval.embedder_for(knowledge_base)
    floor = runtime.settings.ask.relevance_floor
    floors = {kb: runtime.calibrator.cross_floors(knowledge_base)}  # as the ask path reads them
    cross_min = runtime.settings.ask.cross_lingual_min
    reader = reader_module.Reader(knowledge_base.user_words, floor, embedder, cross_min, floors)
    start = len(RECORDS)
    evident = reader.evidence(question, passages)
    record = RECORDS[start]
    not_found = not evident
    row = {"kb": kb, "question": question, "not_found": not_found, "evidence": record}
    return row, _Searched(passages)


def ask(runtime: Runtime, kb: str, question: str) -> tuple[dict[str, Any], Any]:
    from planrag.services.ask import AskRequest

    if FAST:
        return searched(runtime, kb, question)

    start = len(RECORDS)
    readable = [runtime.metadata.get_kb_by_name(kb)]
    outcome = runtime.ask.run(AskRequest(question=question, knowledge_bases=[kb]), readable)
    record = RECORDS[start] if len(RECORDS) > start else {}
    not_found = outcome.answer_source == "none" or any(m in outcome.answer for m in NOT_FOUND)
    row = {"kb": kb, "question": question, "not_found": not_found, "evidence": record}
    row["answer"] = outcome.answer[:300]
    return row, outcome


def cited(answer: str) -> set[int]:
    return {int(n) for n in re.findall(r"\[(\d+)\]", answer)}


def run_cross(runtime: Runtime) -> list[dict[str, Any]]:
    kb_id = runtime.metadata.get_kb_by_name(KO_KB).id
    names = {d.id: d.filename for d in runtime.metadata.list_documents(kb_id)}
    rows = []
    for q in jsonl("crosslingual.jsonl"):
        row, outcome = ask(runtime, KO_KB, q["question"])
        held = [
            p
            for p in outcome.passages
            if names.get(p.doc_id) == q["doc"] and q["answer"] in p.content
        ]
        row |= {"id": q["id"], "lang": q["lang"], "group": "cross", "held": bool(held)}
        row["answered"] = any(p.n in cited(outcome.answer) for p in held)
        rows.append(row)
    return rows


def run_absent(runtime: Runtime) -> list[dict[str, Any]]:
    rows = []
    for q in jsonl("absent_questions.jsonl"):
        row, _ = ask(runtime, KO_KB, q["question"])
        rows.append(row | {"id": q["id"], "lang": q["lang"], "kind": q["kind"], "group": "absent"})
    return rows


def run_other(
    runtime: Runtime, sets: dict[str, BeirDataset], limit: int, start: int = 0
) -> list[dict[str, Any]]:
    rows = []
    english = list(sets["hotpotqa_200"].queries.values())[start : start + limit]
    half = (start // 2, start // 2 + limit // 2)
    korean = [t for name in OWN for t in list(sets[name].queries.values())[half[0] : half[1]]]
    for kbs, questions, lang in ((KOREAN_KBS, english, "en"), (ENGLISH_KBS, korean, "ko")):
        for kb in kbs:
            for text in questions:
                row, _ = ask(runtime, kb, text)
                rows.append(row | {"lang": lang, "group": "other-kb"})
    return rows


def run_same(runtime: Runtime, sets: dict[str, BeirDataset], limit: int) -> list[dict[str, Any]]:
    rows = []
    for name, kb in (OWN | OWN_EN).items():
        dataset = sets[name]  # hotpotqa_24: its own file (its questions are not HotpotQA-200's)
        kb_id = runtime.metadata.get_kb_by_name(kb).id
        corpus = {
            d.id: d.filename.rsplit(".", 1)[0] for d in runtime.metadata.list_documents(kb_id)
        }
        queries = {q: t for q, t in dataset.queries.items() if dataset.qrels.get(q)}
        for qid, text in list(queries.items())[:limit]:
            row, outcome = ask(runtime, kb, text)
            first = corpus.get(outcome.passages[0].doc_id) if outcome.passages else None
            gold_first = first is not None and dataset.qrels[qid].get(first, 0) > 0
            lang = "en" if name == "hotpotqa_24" else "ko"
            rows.append(
                row | {"set": name, "lang": lang, "group": "same", "gold_first": gold_first}
            )
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cross = [r for r in rows if r["group"] == "cross"]
    for lang in ("en", "ko"):
        mine = [r for r in cross if r["lang"] == lang]
        if mine:
            out[f"cross {lang} answered"] = f"{sum(r['answered'] for r in mine)}/{len(mine)}"
            out[f"cross {lang} not found (held)"] = [
                r["id"] for r in mine if r["not_found"] and r["held"]
            ]
    for group in ("absent", "other-kb"):
        for lang in ("en", "ko"):
            mine = [r for r in rows if r["group"] == group and r["lang"] == lang]
            if mine:
                wrong = sum(not r["not_found"] for r in mine)
                out[f"{group} {lang} answered anyway"] = f"{wrong}/{len(mine)}"
    for name in (*OWN, *OWN_EN):
        mine = [
            r for r in rows if r["group"] == "same" and r.get("set") == name and r["gold_first"]
        ]
        if mine:
            out[f"same {name} false not found (gold first)"] = (
                f"{sum(r['not_found'] for r in mine)}/{len(mine)}"
            )
    return out


def passes(record: dict[str, Any], cross_min: float | None, same_min: float) -> bool:
    """The evidence check's verdict on a recorded ask, with another absolute cross-lingual
    floor (`cross_min`), or with the floors the run's KBs had (None: calibrated floors)."""
    if not record:
        return True
    coverage = record["coverage"]
    if record["floor"] <= 0 or any(c >= record["floor"] for c in coverage):
        return True
    floors = record.get("floors") or [None] * len(record["sims"])
    return any(
        s >= ((cross_min if cross_min is not None else f) if crosses else same_min)
        for s, crosses, f in zip(record["sims"], record["crosses"], floors, strict=True)
    )


def replay(files: list[Path], floors: list[float]) -> None:
    """Each group's share passing the check by cross-lingual floor (words and the same-language
    floor as the product has them)."""
    rows = [r for f in files for r in json.loads(f.read_text())["rows"]]
    for r in rows:  # runs before the same group had its language
        r.setdefault("lang", "en" if r.get("set") == "hotpotqa_24" else "ko")
    groups = [
        ("cross, answer held", lambda r: r["group"] == "cross" and r["held"]),
        ("absent near", lambda r: r["group"] == "absent" and r["kind"] == "near"),
        ("absent off", lambda r: r["group"] == "absent" and r["kind"] == "off"),
        ("other-kb", lambda r: r["group"] == "other-kb"),
        ("same, gold first", lambda r: r["group"] == "same" and r["gold_first"]),
    ]
    calibrated = all(r["evidence"].get("floors") for r in rows if r["evidence"])
    columns: list[float | None] = [*floors, *([None] if calibrated else [])]
    names = [f"{f:.2f}" if f is not None else "calibrated" for f in columns]
    print("| group | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(columns))
    for label, keep in groups:
        for lang in ("en", "ko"):
            mine = [r for r in rows if keep(r) and r["lang"] == lang]
            if not mine:
                continue
            same = reader_evidence.SAME_LANGUAGE_MIN
            for kb in sorted({r["kb"] for r in mine}):
                held = [r for r in mine if r["kb"] == kb]
                cells = [
                    f"{sum(passes(r['evidence'], f, same) for r in held)}/{len(held)}"
                    for f in columns
                ]
                print(f"| {label} ({lang}, {kb}) | " + " | ".join(cells) + " |")


def save(out: Path, rows: list[dict[str, Any]]) -> None:
    out.parent.mkdir(exist_ok=True)
    body = {"summary": summarise(rows), "rows": rows}
    out.write_text(json.dumps(body, ensure_ascii=False, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replay", nargs="*", type=Path, help="recorded runs: floors replayed")
    parser.add_argument(
        "--floors", nargs="*", type=float, default=[0.70, 0.72, 0.74, 0.75, 0.76, 0.77, 0.78, 0.80]
    )
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--searched", action="store_true", help="search + evidence check only")
    parser.add_argument("--recalibrate", action="store_true", help="recalibrate the KBs first")
    parser.add_argument("--absolute", action="store_true", help="drop the KBs' evidence floors")
    parser.add_argument(
        "--passages", action="store_true", help="passage floors only (session 11's check)"
    )
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument(
        "--start", type=int, default=0, help="other-kb: from this question (30: held out)"
    )
    parser.add_argument("--groups", nargs="*", default=["cross", "absent", "other-kb", "same"])
    parser.add_argument("--out", type=Path, default=RESULTS / "evidence_check.json")
    args = parser.parse_args()
    if args.replay:
        replay(args.replay, args.floors)
        return
    global FAST
    FAST = args.searched
    reader_module.Reader.evidence = _recording(reader_module.Reader.evidence)  # type: ignore[method-assign]
    paths = all_datasets()
    paths["hotpotqa_24"] = paths["hotpotqa_200"].with_name("hotpotqa_24.json")
    sets = {name: BeirDataset.load(paths[name]) for name in (*BEIR_SETS, "hotpotqa_24")}
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=args.data_dir,
        embedding=EmbeddingSettings(model=E5_MODEL, threads=1),
        ingest=IngestSettings(embed_process=False),
    )
    runtime = Runtime.open(settings)
    rows: list[dict[str, Any]] = []
    try:
        ensure_ko(runtime)
        if args.recalibrate:  # the floors of the code under test, on the copy
            for name in (KO_KB, *KOREAN_KBS, *ENGLISH_KBS):
                kb = runtime.metadata.get_kb_by_name(name)
                calibration = runtime.calibrator.refresh(kb.id, force=True)
                floors = calibration.evidence_floor if calibration else None
                sentences = calibration.sentence_floor if calibration else None
                print(name, "evidence floors", floors, "sentences", sentences, flush=True)
        if args.absolute or args.passages:  # before: KBs without (sentence) floors
            dropped: dict[str, Any] = {"sentence_floor": {}} | (
                {"evidence_floor": {}} if args.absolute else {}
            )
            runtime.calibrator.cross_floors = lambda kb: CrossFloors(  # type: ignore[method-assign]
                passage=kb.calibration.evidence_floor if kb.calibration and args.passages else {}
            )
            for name in (KO_KB, *KOREAN_KBS, *ENGLISH_KBS):
                kb = runtime.metadata.get_kb_by_name(name)
                if kb.calibration is not None:
                    plain = kb.calibration.model_copy(update=dropped)
                    runtime.metadata.update_kb(
                        kb.id, {"calibration": plain.model_dump(mode="json")}
                    )
        print("cross_lingual_min", settings.ask.cross_lingual_min, flush=True)
        for group in args.groups:
            if group == "cross":
                rows += run_cross(runtime)
            elif group == "absent":
                rows += run_absent(runtime)
            elif group == "other-kb":
                rows += run_other(runtime, sets, args.limit, args.start)
            elif group == "same":
                rows += run_same(runtime, sets, args.limit)
            print(group, json.dumps(summarise(rows), ensure_ascii=False), flush=True)
            save(args.out, rows)
    finally:
        runtime.close()
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(
        json.dumps({"summary": summarise(rows), "rows": rows}, ensure_ascii=False, indent=1)
    )
    print(json.dumps(summarise(rows), ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
