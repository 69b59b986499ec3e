"""Follow-ups that refer to a kind of thing (issue 23): "그 사람/그분/she" → a person named in the
previous answer, "그 회사" → an organisation, "거기" → a place or organisation, with particles that
agree; narrowing ("연합뉴스 것만 보여줘"), "요약해줘", "the one before that", "그 다음 주는?"."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from planrag.core.settings import PlannerSettings
from planrag.core.types import KbFacets
from planrag.planner.conversation import Turn, resolve
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.references import has_batchim, referents, with_particle
from planrag.planner.scope import KbInfo, PlanScope

TZ = ZoneInfo("Asia/Seoul")
NOW = datetime(2025, 11, 21, 10, 0, tzinfo=TZ)  # a Friday

# (previous question, previous answer, follow-up, standalone question expected)
CASES = [
    ("한빛로보틱스의 대표는 누구야?", "한빛로보틱스의 대표이사는 김도윤입니다.",
     "그 사람은 어느 대학을 나왔어?", "김도윤은 어느 대학을 나왔어?"),
    ("한빛로보틱스의 대표는 누구야?", "한빛로보틱스의 대표이사는 김도윤입니다.",
     "그분의 경력은?", "김도윤의 경력은?"),
    ("누리봇 S2 개발을 총괄한 사람은?", "누리봇 S2 개발은 최민호 수석연구원이 총괄했다.",
     "그 사람이 속한 팀은?", "최민호가 속한 팀은?"),  # 이 → 가: 최민호 ends in a vowel
    ("누리봇 S2를 개발한 회사는?", "누리봇 S2는 한빛로보틱스가 개발했습니다.",
     "그 회사는 언제 설립됐어?", "한빛로보틱스는 언제 설립됐어?"),
    ("누리봇 S2를 개발한 회사는?", "누리봇 S2는 한빛로보틱스가 개발했습니다.",
     "그 회사를 세운 사람은?", "한빛로보틱스를 세운 사람은?"),
    ("카카오뱅크 금리 정책", "…", "그곳의 대출 한도는?", "카카오뱅크의 대출 한도는?"),
    # 거기: a place of the answer before the question's organisation; 에 before a verb
    ("한빛로보틱스 본사는 어디야?", "대전 유성구에 있습니다.", "거기 있는 다른 회사는?",
     "대전 유성구에 있는 다른 회사는?"),
    ("한빛로보틱스 본사는 어디야?", "한빛로보틱스 본사는 대전광역시 유성구에 있습니다.",
     "거기 인구는?", "대전광역시 유성구 인구는?"),
    ("한빛로보틱스에 투자한 곳은?", "푸른벤처스가 투자했습니다.", "거기 대표는 누구야?",
     "푸른벤처스 대표는 누구야?"),  # an organisation of the answer when it names no place
    ("본사는 어디야?", "서울에 있습니다.", "거기로 가는 방법은?", "서울로 가는 방법은?"),
    ("Where does Maria Tan work?", "She works at Bluewave Logistics in Busan.",
     "who else works there?", "who else works in Busan?"),
    # a place is no person ("유성구": 유 is a surname); 그 회사 → 한빛로보틱스는
    ("유성구에 있는 회사는?", "대전 유성구에는 한빛로보틱스가 있습니다.",
     "그 회사는 언제 세워졌어?", "한빛로보틱스는 언제 세워졌어?"),
    ("대전 유성구에 있는 로봇 회사는?", "한빛로보틱스입니다. 대표는 김도윤입니다.",
     "그 사람은 어느 대학을 나왔어?", "김도윤은 어느 대학을 나왔어?"),
    ("Who runs Bluewave Logistics?", "Its chief executive officer is Maria Tan.",
     "where did she study?", "where did Maria Tan study?"),
    ("지난주 북한 미사일 기사 알려줘", "…", "연합뉴스 것만 보여줘",
     "연합뉴스 지난주 북한 미사일 기사 알려줘"),
    ("지난주 북한 미사일 기사 알려줘", "…", "요약해줘", "지난주 북한 미사일 기사 알려줘 요약해줘"),
]  # fmt: skip


@pytest.mark.parametrize("asked, answer, question, standalone", CASES)
def test_a_reference_resolves_to_a_name_of_its_kind(asked, answer, question, standalone) -> None:  # type: ignore[no-untyped-def]
    turn = Turn(question=asked, answer=answer)
    assert resolve(question, [turn], NOW, TZ).standalone == standalone


def test_a_person_reference_without_a_person_is_left_alone() -> None:
    # never the company or product of the question instead
    turn = Turn(question="누리봇 S2를 만든 곳은?", answer="확인하지 못했습니다.")
    assert resolve("그 사람은 누구야?", [turn], NOW, TZ).standalone == "그 사람은 누구야?"


def test_a_person_reference_never_takes_a_place() -> None:
    turn = Turn(question="본사가 어디야?", answer="대전광역시 유성구에 있습니다.")
    assert resolve("그 사람 연락처는?", [turn], NOW, TZ).standalone == "그 사람 연락처는?"
    kinds = {r.name: r.kind for r in referents("대전광역시 유성구에 산다")}
    assert kinds == {"대전광역시": "place", "유성구": "place"}
    kinds = {r.name: r.kind for r in referents("누리봇 S2 개발은 박서연 자율주행팀장이 맡았다")}
    assert kinds["박서연"] == "person" and "누리봇 S2" not in kinds  # a product is no referent


def test_there_as_a_word_of_existence_or_greeting_is_no_reference() -> None:
    turn = Turn(question="Who runs Bluewave Logistics?", answer="Maria Tan, in Busan.")
    for question in ("are there other robots?", "is there a manual?", "hi there"):
        assert resolve(question, [turn], NOW, TZ).standalone == question


def test_kinds_and_particles() -> None:
    kinds = {
        r.name: r.kind for r in referents("한빛로보틱스 대표 김도윤은 대전광역시 유성구에 산다")
    }
    assert kinds["한빛로보틱스"] == "organisation" and kinds["김도윤"] == "person"
    assert kinds["대전광역시"] == "place"
    assert has_batchim("김도윤") and not has_batchim("한빛로보틱스")
    assert with_particle("그 회사은 어디", 0, 4, "한빛로보틱스") == "한빛로보틱스는 어디"
    assert with_particle("그 사람가 쓴 글", 0, 4, "김도윤") == "김도윤이 쓴 글"
    assert with_particle("그 회사랑 비교", 0, 4, "한결대학교") == "한결대학교랑 비교"
    assert with_particle("거기으로 가자", 0, 2, "서울") == "서울로 가자"  # ㄹ takes 로
    assert with_particle("거기로 가자", 0, 2, "부산") == "부산으로 가자"


def scope() -> PlanScope:
    facets = KbFacets(kb_id="n", documents=10, authors=["연합뉴스"], date_from="2025-01-01")
    return PlanScope(
        knowledge_bases=[KbInfo(id="n", name="news", facets=facets)],
        requested=False,
        strategies=["hybrid"],
        now=NOW,
    )


def test_narrowing_keeps_the_topic_and_time_and_filters_the_author() -> None:
    turn = Turn(question="지난주 북한 미사일 기사 알려줘")
    standalone = resolve("연합뉴스 것만 보여줘", [turn], NOW, TZ).standalone
    plan = HeuristicPlanner(PlannerSettings()).plan(standalone, scope())
    assert plan.filters.authors == ["연합뉴스"]
    assert plan.filters.time is not None and plan.filters.time.from_ == "2025-11-10"
    assert plan.query == "북한 미사일"


@pytest.mark.parametrize(
    "asked, question, period",
    [
        ("security incidents last week", "what about the one before that?", "2주 전"),
        ("지난주 보안 사고 기사", "그 다음 주는?", "이번 주"),
        ("지난달 채용 공고", "그 전 달은?", "2개월 전"),
        ("작년 매출 보고서", "the year before?", "2년 전"),
    ],
)
def test_stepping_from_the_earlier_period(asked: str, question: str, period: str) -> None:
    standalone = resolve(question, [Turn(question=asked)], NOW, TZ).standalone
    assert standalone.startswith(period)
    plan = HeuristicPlanner(PlannerSettings()).plan(standalone, scope())
    assert plan.filters.time is not None, plan.rationale  # still a document time
