"""Small talk and questions about the assistant need no retrieval: `mode: direct`, no knowledge
bases searched. Anything that also asks about documents stays `rag`."""

from __future__ import annotations

import pytest

from planrag.core.settings import PlannerSettings
from planrag.planner.direct import is_direct
from planrag.planner.heuristic import HeuristicPlanner
from tests.planner.test_heuristic import scope

DIRECT = [
    # English greetings and thanks
    "hello",
    "Hi!",
    "hey there",
    "hiya!",
    "good morning",
    "Good afternoon, everyone.",
    "thanks a lot!",
    "thank you so much",
    "many thanks",
    "bye, see you later",
    "nice to meet you",
    "how are you?",
    "how are you doing today?",
    "how's it going?",
    "what's up?",
    # English capability questions
    "what can you do?",
    "Hi! What can you do?",
    "what can you help me with?",
    "who are you?",
    "hello, who are you",
    "what are you?",
    "how can you help me?",
    "can you help me?",
    "what kinds of questions can I ask?",
    "what can I ask you?",
    "how does this work?",
    "how do I use this?",
    "what's your name?",
    "tell me about yourself",
    "please introduce yourself",
    "are you a bot?",
    "what are your capabilities?",
    "help",
    "good morning, how are you?",
    "hi there, nice to meet you. what can you do?",
    # Korean
    "안녕하세요",
    "안녕 반가워",
    "감사합니다!",
    "수고하셨습니다",
    "만나서 반가워요",
    "잘 지냈어?",
    "너는 누구야?",
    "안녕! 넌 뭐야?",
    "누구세요?",
    "뭘 할 수 있어?",
    "무엇을 도와줄 수 있어요?",
    "무엇을 도와주실 수 있나요?",
    "어떤 질문을 할 수 있나요?",
    "자기소개 해줘",
    "네 이름이 뭐야?",
    "사용법 알려줘",
    "도움말",
    "안녕하세요, 뭘 할 수 있나요?",
    "ㅎㅎ",
    "안녕 ㅋㅋㅋ",
]

NOT_DIRECT = [
    "안녕하세요, 환불 규정 알려주세요",
    "hi, what is the refund policy?",
    "what is this document about?",
    "help me find the refund policy",
    "what can you tell me about interest rates?",
    "who are the authors of the report?",
    "how does the refund process work?",
    "thanks, and what about last week's meeting?",
    "뭘 할 수 있는지 규정에 나와 있어?",
    "메타버스란 무엇인가요?",
    "이 회사는 누구와 합병했나요?",
    "감사 보고서 요약해줘",
    "ㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎㅎ x",
    "hi " * 40 + "x",
]


@pytest.mark.parametrize("question", DIRECT)
def test_direct_questions_plan_no_retrieval(question: str) -> None:
    assert is_direct(question), question
    plan = HeuristicPlanner(PlannerSettings()).plan(question, scope())
    assert plan.mode == "direct" and plan.knowledge_bases == []


@pytest.mark.parametrize("question", NOT_DIRECT)
def test_questions_about_documents_are_searched(question: str) -> None:
    assert not is_direct(question), question
    assert HeuristicPlanner(PlannerSettings()).plan(question, scope()).mode == "rag"


def test_enough_cases() -> None:
    english = [q for q in DIRECT if q.isascii()]
    assert len(english) >= 30 and len(DIRECT) - len(english) >= 15
