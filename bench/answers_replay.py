"""The extractive answer re-read on the passages a `bench.answers` run saved, and its misses
classified by cause: for fitting the reader without asking the server again.

    python -m bench.answers_replay RUN.json [--set hotpot] [--start 0] [--limit 100] [--classify] \
        [--floors FLOORS.json] [--no-heads]

Each saved row holds the numbered passages `/ai/v2/ask` gave the answer; this checkout's
`Extractor` (with e5, as the ask path reads an e5 knowledge base) reads them again with the row's
question. Rows whose answer came from a multi-step chain are re-read the same way (the chain's
own text is `step_execution.py`'s), so figures are close to, not the same as, a run through the
server; the ask run (`bench.answers`) is the measure reported. `--floors`: the knowledge bases'
cross-lingual evidence floors, as the ask path reads them from their calibrations
(`{"kb name": {"passage": {"hangul>latin": …}, "sentence": {…}}}`); without it the reader's
absolute floor serves. `--no-heads`: the reader without an English which/what question's
wh-phrase (`text/asked_heads.py`: no head weight, no "described lead" rule in the second hop),
to judge that signal on held-out questions.

`--classify` sorts every question whose lead misses the gold answer by the first cause that fits:

- `yes/no`: the gold answer is "yes" or "no";
- `comparison`: "…, A or B?", "Are A and B both …", "… in common";
- `retrieval`: no passage holds the gold answer;
- `other sentence, same passage`: the lead's passage holds the gold answer, another sentence;
- `second hop`: only passages other than the lead's hold it (a bridge question's second hop);
- `not found`: the answer says nothing was found.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pickle
import re
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers import FIXTURE_SETS, KO_FILES, SHARED, gold_in, lead_of, load_set, summarise  # noqa: E402
from bench.report import RESULTS_DIR  # noqa: E402
from planrag.core.types import CrossFloors  # noqa: E402
from planrag.services.answers import Passage  # noqa: E402
from planrag.services.extractive import Extractor  # noqa: E402

_COMPARISON = re.compile(r",?\s\w[^,?]*\bor\b [^?]+\?\s*$|\bboth\b|\bin common\b|\bsame\b", re.I)


class CachedEmbedder:
    """e5, its vectors kept on disk between runs (the replay re-reads the same sentences)."""

    def __init__(self, path: Path) -> None:
        from planrag.llm.e5 import E5Embedder

        self._e5 = E5Embedder(2)
        self.name = self._e5.name
        self._path = path
        self._cache: dict[tuple[bool, str], list[float]] = (
            pickle.loads(path.read_bytes()) if path.exists() else {}
        )

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts, False)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts, True)

    def _encode(self, texts: list[str], query: bool) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if (query, t) not in self._cache]
        if missing:
            encode = self._e5.embed_queries if query else self._e5.embed
            self._cache.update(zip([(query, t) for t in missing], encode(missing), strict=True))
        return [self._cache[(query, t)] for t in texts]

    def save(self) -> None:
        self._path.write_bytes(pickle.dumps(self._cache))


def cause(row: dict[str, Any], answer: str) -> str:
    """The first cause that fits a miss (see the module's list)."""
    golds = [g for g in row["golds"] if g]
    if golds and golds[0].casefold() in ("yes", "no"):
        return "yes/no"
    if _COMPARISON.search(row["question"]):
        return "comparison"
    if not answer or answer.startswith(("I found no", "질문과 관련된")):
        return "not found"
    passages = {p["n"]: p for p in row["passages"]}
    holding = [n for n, p in passages.items() if gold_in(golds, p["content"])]
    if not holding:
        return "retrieval"
    cited = re.search(r"\[(\d+)\]", answer)
    lead_n = int(cited.group(1)) if cited else None
    if lead_n in holding:
        return "other sentence, same passage"
    return "second hop"


def gold_texts(name: str) -> dict[str, list[str]]:
    """{question id: its gold documents' texts} of a shared set (empty for our fixtures, whose
    rows keep the saved figure)."""
    if name in KO_FILES or name in FIXTURE_SETS:
        return {}
    docs, questions = load_set(name, SHARED)
    return {q["id"]: [docs[f][1] for f in q["gold_docs"]] for q in questions}


def from_gold(row: dict[str, Any], answer: str, gold_docs: dict[str, list[str]]) -> bool:
    """Whether the answer's first citation is a passage of a gold document (its text inside
    one: shared sets' titles repeat, allganize's many times), else the saved figure."""
    if row.get("id") not in gold_docs:
        return bool(row["lead_from_gold"])
    cited = re.search(r"\[(\d+)\]", answer)
    passage = next((p for p in row["passages"] if cited and p["n"] == int(cited.group(1))), None)
    if passage is None:
        return False
    body = " ".join(passage["content"].split())
    probe = body[len(body) // 3 : len(body) // 3 + 80]
    return any(probe in " ".join(text.split()) for text in gold_docs[row["id"]])


def replay(
    rows: list[dict[str, Any]], extractor: Extractor, gold_docs: dict[str, list[str]]
) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        passages = [Passage.model_validate(p) for p in row["passages"]]
        answer = extractor.read(row["question"], passages, row.get("plan_query")).text()
        golds = [g for g in row["golds"] if g]
        also = row.get("also", [])  # a second part the answer must hold too (ko_s13)
        out.append(
            {
                **row,
                "answer": answer,
                "in_lead": (gold_in(golds, lead_of(answer)) if answer else False)
                if golds
                else None,
                "anywhere": gold_in(golds, answer) and all(gold_in([g], answer) for g in also)
                if golds
                else None,
                "not_found": not answer,
                "disagree": False,
                "length": len(answer),
                "lead_from_gold": from_gold(row, answer, gold_docs),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--set", default="hotpot")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--classify", action="store_true")
    parser.add_argument("--saved", action="store_true", help="classify the saved answers")
    parser.add_argument("--show", action="store_true", help="print every miss")
    parser.add_argument("--floors", type=Path, help="the KBs' evidence floors (JSON)")
    parser.add_argument("--dump", type=Path, help="write every answer (JSON) to compare runs")
    parser.add_argument("--no-heads", action="store_true", help="read without wh-phrases")
    args = parser.parse_args()
    if args.no_heads:
        import planrag.services.reader as reader_module

        reader_module.asked_head = lambda question: None  # type: ignore[assignment]
    rows = json.loads(args.run.read_text())["sets"][args.set]["rows"]
    rows = rows[args.start : args.start + args.limit]
    if not args.saved:
        embedder = CachedEmbedder(RESULTS_DIR / "answers-replay-e5.pkl")
        floors = (
            {
                kb: CrossFloors.model_validate(value)
                for kb, value in json.loads(args.floors.read_text()).items()
            }
            if args.floors
            else None
        )
        extractor = Extractor((), 0.5, embedder, cross_floors=floors)  # type: ignore[arg-type]
        rows = replay(rows, extractor, gold_texts(args.set))
        embedder.save()
    print(json.dumps(summarise(rows), ensure_ascii=False))
    for split in sorted({r["split"] for r in rows if r.get("split")}):
        chosen = [r for r in rows if r.get("split") == split]
        print(f"  {split}", json.dumps(summarise(chosen), ensure_ascii=False))
    if args.dump:
        answers = [[r.get("id"), r["question"], r["answer"]] for r in rows]
        args.dump.write_text(json.dumps(answers, ensure_ascii=False, indent=0))
    if args.classify:
        misses = [r for r in rows if not r["in_lead"]]
        counts = collections.Counter(cause(r, r["answer"]) for r in misses)
        for name, count in counts.most_common():
            print(f"{name}\t{count}")
    if args.show:
        for i, r in enumerate(rows, args.start):
            if r["in_lead"] is False or (r["in_lead"] is None and r["answer"]):
                print(i, cause(r, r["answer"]), r["question"], r["golds"])
                print("   ", lead_of(r["answer"])[:200])


if __name__ == "__main__":
    main()
