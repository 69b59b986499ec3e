"""Grounded answers: the numbered passages an answer may cite, the LLM prompt, canned replies and
citations (the answer without an LLM is `extractive.py`)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from planrag.llm.chat import Message
from planrag.prompts import render

_CITATION = re.compile(r"\[(\d{1,3})\]")
_HANGUL = re.compile(r"[가-힣]")


class LegRanks(BaseModel):
    """A hybrid-found passage's rank by each leg among its search's candidates, and the
    query's script: what its citation teaches the KB's fusion weights."""

    dense: int = Field(ge=1)
    lexical: int = Field(ge=1)
    script: str


class Passage(BaseModel):
    """One numbered passage of the `context` event; answers cite it as [n]."""

    n: int = Field(ge=1)
    chunk_id: str
    doc_id: str
    knowledge_base: str
    title: str | None = None
    date: str | None = None
    score: float
    content: str
    leg_ranks: LegRanks | None = Field(default=None, exclude=True)


class Citation(BaseModel):
    n: int
    chunk_id: str
    doc_id: str
    knowledge_base: str
    title: str | None = None


class UnsupportedCitation(BaseModel):
    """A citation of an LLM answer that its passage does not support (`citation_check.py`)."""

    n: int
    sentence: str
    reason: Literal["no_such_passage", "not_supported"]


def is_korean(text: str) -> bool:
    return bool(_HANGUL.search(text))


def answer_messages(
    question: str, passages: list[Passage], max_chars: int, tone: str | None = None
) -> list[Message]:
    """The answer prompt; `tone` (casual | neutral | formal) adds the register to keep."""
    listing = "\n\n".join(
        f"[{p.n}] {p.title or ''}{f' ({p.date})' if p.date else ''}\n{p.content[:max_chars]}"
        for p in passages
    )
    return [
        {
            "role": "system",
            "content": render("answer_system") + (f"\n{render(f'tone_{tone}')}" if tone else ""),
        },
        {"role": "user", "content": render("answer_user", passages=listing, question=question)},
    ]


def direct_messages(question: str) -> list[Message]:
    return [
        {"role": "system", "content": render("direct_system")},
        {"role": "user", "content": question},
    ]


def canned_reply(question: str) -> str:
    """A greeting's reply when no LLM is configured."""
    if is_korean(question):
        return "안녕하세요! 등록된 문서에 대해 궁금한 점을 물어보세요."
    return "Hello! Ask me anything about your documents."


def no_evidence_reply(question: str) -> str:
    if is_korean(question):
        return "질문과 관련된 문서를 찾지 못했습니다. 기간이나 표현을 바꿔 다시 질문해 주세요."
    return "I found no documents about this. Try another period or other words."


def citations(answer: str, passages: list[Passage]) -> list[Citation]:
    """The passages the answer cites, in order of first citation."""
    by_n = {p.n: p for p in passages}
    cited = dict.fromkeys(int(n) for n in _CITATION.findall(answer))
    return [
        Citation(
            n=n,
            chunk_id=by_n[n].chunk_id,
            doc_id=by_n[n].doc_id,
            knowledge_base=by_n[n].knowledge_base,
            title=by_n[n].title,
        )
        for n in cited
        if n in by_n
    ]
