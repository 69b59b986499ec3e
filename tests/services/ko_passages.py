"""Our Korean fixture documents (tests/fixtures/ko_company) as the numbered passages a reader
reads: each whole file one passage, titled by its heading, ranked in the order given."""

from __future__ import annotations

from pathlib import Path

from planrag.services.answers import Passage

KO = Path(__file__).resolve().parents[1] / "fixtures" / "ko_company"


def passages(*names: str) -> list[Passage]:
    found = []
    for n, name in enumerate(names, 1):
        text = (KO / name).read_text()
        found.append(
            Passage(
                n=n,
                chunk_id=f"c{n}",
                doc_id=name,
                knowledge_base="kb",
                score=1.0 / n,
                title=text.splitlines()[0].lstrip("# "),
                content=text,
            )
        )
    return found
