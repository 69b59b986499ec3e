"""Entities of a question: Kiwi proper nouns (NNP; adjacent ones also joined, "일론 머스크"),
with titles such as 씨, 님, 배우, 감독 stripped ("오영수 배우", "이정재씨" → 오영수, 이정재), quoted
phrases, and Latin proper nouns (capitalised words not opening the question, acronyms).

Shared by query time (the NER filter) and anything else that needs a question's names.
"""

from __future__ import annotations

import re

from planrag.text.korean import get_kiwi

TITLES = (
    "씨",
    "님",
    "배우",
    "감독",
    "선수",
    "교수",
    "박사",
    "작가",
    "가수",
    "대표",
    "회장",
    "사장",
    "의원",
    "장관",
    "대통령",
    "기자",
)
_TITLE_SUFFIX = re.compile(r"(?:\s*(?:" + "|".join(TITLES) + r"))+님?$")
_QUOTED = re.compile(r"[\"“”'‘’「」『』]([^\"“”'‘’「」『』]{2,60})[\"“”'‘’「」『』]")
_LATIN_PROPER = re.compile(
    r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z0-9&.-]+(?:\s+[A-Z][a-zA-Z0-9&.-]+)*)"
)
_ACRONYM = re.compile(r"\b[A-Z]{2,}[0-9]*\b")


def _proper_nouns(question: str) -> list[str]:
    names: list[str] = []
    run: list[str] = []
    run_end = -1
    for token in get_kiwi().tokenize(question):
        name = _TITLE_SUFFIX.sub("", token.form) if token.tag == "NNP" else ""
        if len(name) < 2 or name in TITLES:
            run, run_end = [], -1
            continue
        names.append(name)
        run = [*run, name] if token.start - run_end <= 1 else [name]
        run_end = token.start + token.len
        if len(run) > 1:
            names.append(" ".join(run))
    return names


def extract_entities(question: str) -> list[str]:
    found = _proper_nouns(question)
    found += [q.strip() for q in _QUOTED.findall(question)]
    found += [m.strip() for m in _LATIN_PROPER.findall(question.strip())]
    found += _ACRONYM.findall(question)
    return list(dict.fromkeys(e for e in found if len(e) >= 2))
