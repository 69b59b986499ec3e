"""Relation words of a question, in walking order: the chain of typed relations a multi-hop
question asks to follow ("한빛로보틱스에 투자한 벤처캐피털의 대표는 누구인가?" → INVESTED_IN, then
CEO_OF), and the type of what it asks for. Korean chains read left to right, English ones right
to left ("the CEO of the firm that invested in X"). Used by graph search
(`planrag/executors/graph_paths.py`) and by the planner's test for relational questions."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HANGUL = re.compile(r"[\uac00-\ud7a3]")

# (cue, relation types, the type of the entity the step reaches, or "" for any)
_CUES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (r"최고기술책임자|CTO|chief technology officer", ("CTO_OF",), ""),
    (r"대표이사|대표|CEO|최고경영자|사장|chief executive", ("CEO_OF",), ""),
    (r"총장|소장|팀장|본부장|센터장|이사장|이끄|이끈|head of|director", ("HEAD_OF",), ""),
    (r"투자(?!를 유치)|invest", ("INVESTED_IN",), ""),
    (r"졸업|graduat", ("GRADUATED_FROM",), ""),
    (r"창업자|설립자|창업한|설립한 사람|founder|founded by", ("FOUNDED",), "PERSON"),
    (r"언제 설립|설립된 해|설립 연도|몇 년에 설립|when was .* founded", ("FOUNDED_IN",), "DATE"),
    (r"본사|headquarter", ("HEADQUARTERED_IN",), "PLACE"),
    (r"보고하|reports? to", ("REPORTS_TO",), "PERSON"),
    (r"인수|acquir", ("ACQUIRED",), ""),
    (r"파트너|제휴|협약|partner", ("PARTNER_OF",), ""),
    (r"부설|산하|속한|소속된 (?:대학|기관)|part of", ("PART_OF",), ""),
    (r"소속|member of", ("MEMBER_OF", "PART_OF"), ""),
    (
        r"(?:만드는|만든|생산하는|생산한|제조하는|개발한|출시한)(?= 회사| 기업| 곳)|생산|제조"
        r"|makes|produces|manufactur",
        ("PRODUCES",),
        "",
    ),
    (r"출시|released|launched", ("RELEASED_ON",), ""),
    (r"연구하는|연구한다|research", ("RESEARCHES",), ""),
    (r"일했|근무|재직|합류|works? (?:at|for)|worked", ("EMPLOYED_BY",), ""),
    (r"어디에 있|위치|located", ("LOCATED_IN", "HEADQUARTERED_IN"), "PLACE"),
)
CUE = re.compile("|".join(f"(?P<c{i}>{c})" for i, (c, _, _) in enumerate(_CUES)), re.I)
_ASKED_TYPE = (
    (re.compile(r"누구|사람|인물|\bwho\b", re.I), "PERSON"),
    (
        re.compile(
            r"대학교|대학|학교|회사|기업|기관|연구소|은행|어느 곳"
            r"|\bwhich (?:company|firm|university)",
            re.I,
        ),
        "ORGANIZATION",
    ),
    (re.compile(r"어디|지역|도시|\bwhere\b", re.I), "PLACE"),
    (re.compile(r"언제|몇 년|\bwhen\b|\bwhat year\b", re.I), "DATE"),
)


@dataclass(frozen=True)
class Step:
    types: tuple[str, ...]
    reaches: str  # entity type the step should reach, "" any


def relation_chain(question: str) -> list[Step]:
    """The question's relation steps in walking order; the last step reaches what is asked."""
    found: list[tuple[int, tuple[str, ...], str]] = []
    for match in CUE.finditer(question):
        index = int(next(k for k, v in match.groupdict().items() if v)[1:])
        _, types, reaches = _CUES[index]
        if not found or found[-1][1] != types:
            found.append((match.start(), types, reaches))
    if not _HANGUL.search(question):
        found.reverse()
    steps = [Step(types, reaches) for _, types, reaches in found]
    asked = next((t for pattern, t in _ASKED_TYPE if pattern.search(question)), "")
    if steps and asked and not steps[-1].reaches:
        steps[-1] = Step(steps[-1].types, asked)
    return steps
