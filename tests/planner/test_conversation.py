# ruff: noqa: E501  (the conversation table reads best one case per line)
"""Follow-up questions without an LLM: a table of two- and three-turn Korean and English
conversations with the standalone plan fields each follow-up must produce, reported as accuracy
(every case must hold)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from planrag.planner import time_range
from planrag.planner.conversation import Source, Turn, resolve, trim_history

TZ = ZoneInfo("Asia/Seoul")
NOW = datetime(2025, 11, 21, 10, 0, tzinfo=TZ)  # a Friday
SOURCES = [Source(doc_id=f"d{i}", title=f"문서 {i}") for i in range(1, 5)]

# (earlier questions, follow-up, expected): expected keys —
#   words: must appear in the standalone question; time: (from, to) its plan resolves to, or
#   None for no time; doc: the source it points at; carried: kinds that must be carried.
CASES: list[tuple[list[str], str, dict]] = [
    # a changed time, the same topic (Korean)
    (["2024년 인사 규정 변경 알려줘"], "그럼 작년에는?", {"words": ["인사 규정"], "time": ("2024-01-01", "2024-12-31")}),
    (["지난주 회의록 요약해줘"], "그럼 이번 주는?", {"words": ["회의록"], "time": ("2025-11-17", "2025-11-21")}),
    (["9월 보안 점검 결과"], "10월은?", {"words": ["보안 점검"], "time": ("2025-10-01", "2025-10-31")}),
    (["최근 3개월 동안의 인사 규정 변경"], "그럼 작년 하반기에는요?", {"words": ["인사 규정"], "time": ("2024-07-01", "2024-12-31")}),
    (["어제 나온 주가 기사"], "그저께는?", {"words": ["주가"], "time": ("2025-11-19", "2025-11-19")}),
    (["올해 매출 보고서"], "그럼 작년 거는?", {"words": ["매출 보고서"], "time": ("2024-01-01", "2024-12-31")}),
    (["지난달 예산 집행 현황"], "그러면 지난 분기는 어땠어?", {"words": ["예산 집행"], "time": ("2025-07-01", "2025-09-30")}),
    (["이번 달 채용 공고"], "지난달은요?", {"words": ["채용 공고"], "time": ("2025-10-01", "2025-10-31")}),
    (["2023년 상반기 고객 불만 사례"], "하반기는?", {"words": ["고객 불만"], "time": ("2023-07-01", "2023-12-31")}),
    (["Q1 2024 revenue"], "and Q2?", {"words": ["revenue"], "time": ("2024-04-01", "2024-06-30")}),
    (["최근 일주일 장애 보고"], "그럼 최근 한 달은?", {"words": ["장애 보고"], "time": ("2025-10-22", "2025-11-21")}),
    # a changed time, the same topic (English)
    (["What changed in the leave policy last month?"], "what about two months ago?", {"words": ["leave policy"], "time": ("2025-09-01", "2025-09-30")}),
    (["security incidents this week"], "and last week?", {"words": ["security incidents"], "time": ("2025-11-10", "2025-11-16")}),
    (["budget reports in 2024"], "how about 2023?", {"words": ["budget reports"], "time": ("2023-01-01", "2023-12-31")}),
    (["release notes from September"], "and October?", {"words": ["release notes"], "time": ("2025-10-01", "2025-10-31")}),
    (["hiring news yesterday"], "what about today?", {"words": ["hiring news"], "time": ("2025-11-21", "2025-11-21")}),
    (["outage reports last year"], "and this year?", {"words": ["outage reports"], "time": ("2025-01-01", "2025-11-21")}),
    # an ordinal reference to the previous answer's sources
    (["지난주 회의록 요약해줘"], "그 중 두 번째 문서 요약해줘", {"doc": "d2"}),
    (["회의록 보여줘"], "첫 번째 글 자세히 알려줘", {"doc": "d1"}),
    (["회의록 보여줘"], "세번째 자료는 누가 썼어?", {"doc": "d3"}),
    (["회의록 보여줘"], "마지막 문서 요약해줘", {"doc": "d4"}),
    (["회의록 보여줘"], "2번째 거 다시 설명해줘", {"doc": "d2"}),
    (["show the latest release notes"], "summarize the second one", {"doc": "d2"}),
    (["show the latest release notes"], "what does the first document say about pricing?", {"doc": "d1"}),
    (["show the latest release notes"], "open the last result", {"doc": "d4"}),
    (["show the latest release notes"], "the 3rd article, please", {"doc": "d3"}),
    # a pronoun or demonstrative for the previous subject
    (["Who is the CEO of SpaceX?"], "and who founded it?", {"words": ["SpaceX"]}),
    (["Tell me about Kubernetes"], "what are its main components?", {"words": ["Kubernetes"]}),
    (["When did OpenAI release GPT-4?"], "who leads it now?", {"words": ["OpenAI"]}),
    (["삼성전자 3분기 실적 알려줘"], "그 회사의 4분기 전망은?", {"words": ["삼성전자"]}),
    (["카카오뱅크 금리 정책"], "그곳의 대출 한도는?", {"words": ["카카오뱅크"]}),
    (["홍길동 팀장의 보고서"], "그 사람이 쓴 다른 글은?", {"words": ["홍길동"]}),
    # the same topic again, asked another way
    (["연차 휴가 규정"], "그럼 요약해줘", {"words": ["연차 휴가 규정"]}),
    (["remote work policy"], "summarize it", {"words": ["remote work policy"]}),
    (["보안 교육 일정"], "더 자세히 설명해줘", {"words": ["보안 교육 일정"]}),
    # a standalone question after a conversation stays itself
    (["지난주 회의록 요약해줘"], "연차 휴가는 며칠인가요?", {"words": ["연차 휴가"], "same": True}),
    (["security incidents this week"], "How do I reset my VPN password?", {"words": ["VPN password"], "same": True}),
    # three turns: the last turn is the one that counts
    (["2024년 인사 규정 변경 알려줘", "작년 인사 규정 변경 알려줘"], "그럼 올해는?", {"words": ["인사 규정"], "time": ("2025-01-01", "2025-11-21")}),
    (["security incidents this week", "security incidents last week"], "and the week before?", {"words": ["security incidents"]}),
    (["회의록 보여줘", "지난주 회의록"], "그 중 첫 번째 문서 요약해줘", {"doc": "d1"}),
    (["Who is the CEO of SpaceX?", "who founded SpaceX?"], "when was it founded?", {"words": ["SpaceX"]}),
    (["9월 보안 점검 결과", "10월 보안 점검 결과"], "11월은?", {"words": ["보안 점검"], "time": ("2025-11-01", "2025-11-21")}),
    (["삼성전자 실적", "삼성전자 4분기 전망"], "그 회사 배당은?", {"words": ["삼성전자"]}),
]  # fmt: skip


def history(questions: list[str]) -> list[Turn]:
    return [Turn(question=q, knowledge_bases=["team"], sources=SOURCES) for q in questions]


def check(earlier: list[str], question: str, expected: dict) -> list[str]:
    """What is wrong with the follow-up's standalone plan (empty when right)."""
    followup = resolve(question, history(earlier), NOW, TZ)
    problems = []
    for word in expected.get("words", []):
        if word.lower() not in followup.standalone.lower():
            problems.append(f"'{word}' missing from {followup.standalone!r}")
    if "time" in expected:
        # the period the standalone question names (a filter only when it scopes documents)
        named = time_range.resolve(followup.standalone, NOW, TZ)
        got = named.iso() if named else None
        if got != expected["time"]:
            problems.append(f"time {got} != {expected['time']} ({followup.standalone!r})")
    if followup.doc_id != expected.get("doc"):
        problems.append(f"doc {followup.doc_id} != {expected.get('doc')}")
    if expected.get("same") and followup.standalone != question:
        problems.append(f"changed a standalone question: {followup.standalone!r}")
    if followup.knowledge_bases != ["team"]:
        problems.append("knowledge bases not carried")
    return problems


@pytest.mark.parametrize(("earlier", "question", "expected"), CASES)
def test_follow_up(earlier: list[str], question: str, expected: dict) -> None:
    assert check(earlier, question, expected) == []


def test_accuracy_over_the_table(capsys) -> None:
    right = sum(not check(*case) for case in CASES)
    with capsys.disabled():
        print(f"\nfollow-up rules: {right}/{len(CASES)} conversations right")
    assert len(CASES) >= 40
    assert right == len(CASES)


def test_no_history_keeps_the_question() -> None:
    followup = resolve("그럼 작년에는?", [], NOW, TZ)
    assert (followup.standalone, followup.source, followup.carried) == (
        "그럼 작년에는?",
        "none",
        [],
    )


def test_an_ordinal_beyond_the_sources_points_at_nothing() -> None:
    followup = resolve("열 번째 문서 요약해줘", history(["회의록"]), NOW, TZ)
    assert followup.doc_id is None


def test_history_is_trimmed_oldest_first() -> None:
    turns = [Turn(question=f"q{i} " + "x" * 100) for i in range(10)]
    kept = trim_history(turns, budget_chars=350)
    assert [t.question[:2] for t in kept] == ["q7", "q8", "q9"]
    assert trim_history(turns[:1], budget_chars=10) == turns[:1]  # the last turn always stays
