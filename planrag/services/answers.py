"""Grounded answers: the numbered passages an answer may cite, the LLM prompt, and the extractive
answer used with no LLM (or when the LLM fails): the question's best-matching sentences of the top
passages, each with its citation."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from planrag.llm.chat import Message
from planrag.prompts import render
from planrag.text.korean import split_sentences
from planrag.text.tokenizer import tokenizer_for

_CITATION = re.compile(r"\[(\d{1,3})\]")
_HANGUL = re.compile(r"[가-힣]")
EXTRACTIVE_SENTENCES = 3
EXTRACTIVE_PASSAGES = 3


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


class Citation(BaseModel):
    n: int
    chunk_id: str
    doc_id: str
    knowledge_base: str
    title: str | None = None


def is_korean(text: str) -> bool:
    return bool(_HANGUL.search(text))


def answer_messages(question: str, passages: list[Passage], max_chars: int) -> list[Message]:
    listing = "\n\n".join(
        f"[{p.n}] {p.title or ''}{f' ({p.date})' if p.date else ''}\n{p.content[:max_chars]}"
        for p in passages
    )
    return [
        {"role": "system", "content": render("answer_system")},
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


def extractive_answer(question: str, passages: list[Passage], user_words: list[str]) -> str:
    """The sentences of the top passages that share the most terms with the question, in
    passage order, each followed by its citation."""
    tokenizer = tokenizer_for(user_words)
    wanted = set(tokenizer.tokenize(question))
    scored: list[tuple[float, int, int, str]] = []
    for rank, passage in enumerate(passages[:EXTRACTIVE_PASSAGES]):
        text = passage.content
        for index, (start, end) in enumerate(split_sentences(text)):
            sentence = " ".join(text[start:end].split())
            if len(sentence) < 8:
                continue
            overlap = len(wanted & set(tokenizer.tokenize(sentence)))
            # Overlap first; then earlier passages and earlier sentences.
            scored.append((overlap - 0.1 * rank - 0.01 * index, rank, index, sentence))
    if not scored:
        return ""
    best = sorted(scored, key=lambda s: -s[0])[:EXTRACTIVE_SENTENCES]
    best.sort(key=lambda s: (s[1], s[2]))
    return " ".join(f"{sentence} [{passages[rank].n}]" for _, rank, _, sentence in best)


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
