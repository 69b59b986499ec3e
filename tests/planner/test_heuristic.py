"""The heuristic planner on questions phrased many ways (Korean and English), plus grounding of
authors/domains in the catalog, quoted phrases and the choice of knowledge bases."""

from __future__ import annotations

from datetime import datetime

import pytest

from planrag.core.settings import PlannerSettings
from planrag.core.types import KbFacets
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.scope import KbInfo, PlanScope

NOW = datetime.fromisoformat("2025-11-21T10:00:00+09:00")  # a Friday


def scope(names=("news", "finance"), requested=False, doc_id=None) -> PlanScope:  # type: ignore[no-untyped-def]
    return PlanScope(
        knowledge_bases=[
            KbInfo(
                id=f"id-{n}",
                name=n,
                facets=KbFacets(
                    kb_id=f"id-{n}",
                    documents=10,
                    authors=["삼성전자", "Reuters", "연합뉴스"],
                    domains=["economy", "경제"],
                ),
            )
            for n in names
        ],
        requested=requested,
        strategies=["ann", "keyword", "bm25", "hybrid", "2-stage"],
        now=NOW,
        doc_id=doc_id,
    )


PLANNER = HeuristicPlanner(PlannerSettings())

# question, mode, sort, limit, (from, to) or None
CASES = [
    ("최근 기사 보여줘", "rag", "newest", None, None),
    ("가장 최근에 올라온 글 3개", "rag", "newest", 3, None),
    ("오래된 순으로 정렬해서 5건", "rag", "oldest", 5, None),
    ("옛날 기사부터 보여줘", "rag", "oldest", None, None),
    ("시간순으로 정리해줘", "rag", "oldest", None, None),
    ("최신 뉴스 10개만 알려줘", "rag", "newest", 10, None),
    ("뉴스 하나만 보여줘", "rag", "relevance", 1, None),
    ("반도체 기사 세 개만 추천해줘", "rag", "relevance", 3, None),
    ("환율 관련 보도 두 건", "rag", "relevance", 2, None),
    ("상위 5개 결과만", "rag", "relevance", 5, None),
    ("지난 7일간 주요 뉴스", "rag", "relevance", None, ("2025-11-15", "2025-11-21")),
    ("그저께 발표된 정책", "rag", "relevance", None, ("2025-11-19", "2025-11-19")),
    ("3일 전 기사", "rag", "relevance", None, ("2025-11-18", "2025-11-18")),
    ("올해 3분기 실적", "rag", "relevance", None, ("2025-07-01", "2025-09-30")),
    ("10월 중순 기사 최신순 2개", "rag", "newest", 2, ("2025-10-11", "2025-10-20")),
    ("3개월 전 뉴스", "rag", "relevance", None, ("2025-08-01", "2025-08-31")),
    ("최근 6개월 동안 금리 기사", "rag", "relevance", None, ("2025-05-22", "2025-11-21")),
    ("최근 5개 보여줘", "rag", "newest", 5, None),
    ("요즘 반도체 소식", "rag", "newest", None, None),
    ("최근 3일 기사", "rag", "relevance", None, ("2025-11-19", "2025-11-21")),
    ("hi there!", "direct", "relevance", None, None),
    ("최근 일주일 기사", "rag", "relevance", None, ("2025-11-15", "2025-11-21")),
    ("날짜 역순으로 3건", "rag", "newest", 3, None),
    ("안녕히 계세요", "direct", "relevance", None, None),
    ("감사합니다", "direct", "relevance", None, None),
    ("안녕 반가워", "direct", "relevance", None, None),
    ("ㅎㅇ", "direct", "relevance", None, None),
    ("안녕하세요, 환불 규정 알려주세요", "rag", "relevance", None, None),
    ("latest news on AI", "rag", "newest", None, None),
    ("top 5 articles about chips", "rag", "relevance", 5, None),
    ("give me two articles about rates", "rag", "relevance", 2, None),
    ("oldest first please", "rag", "oldest", None, None),
    ("earliest 3 posts about the merger", "rag", "oldest", 3, None),
    ("3 newest posts", "rag", "newest", 3, None),
    ("hello!", "direct", "relevance", None, None),
    ("thanks a lot", "direct", "relevance", None, None),
    ("hi, what is the refund policy?", "rag", "relevance", None, None),
    ("news from last month", "rag", "relevance", None, ("2025-10-01", "2025-10-31")),
    ("posts from the past 2 weeks", "rag", "relevance", None, ("2025-11-08", "2025-11-21")),
    ("what was published on November 3?", "rag", "relevance", None, ("2025-11-03", "2025-11-03")),
    ("reports in Q3", "rag", "relevance", None, ("2025-07-01", "2025-09-30")),
    ("the 2 most recent reports from this year", "rag", "newest", 2, ("2025-01-01", "2025-11-21")),
]


@pytest.mark.parametrize("question, mode, sort, limit, time", CASES)
def test_phrasings(question: str, mode: str, sort: str, limit: int | None, time) -> None:  # type: ignore[no-untyped-def]
    plan = PLANNER.plan(question, scope())
    assert (plan.mode, plan.sort, plan.limit) == (mode, sort, limit)
    got = plan.filters.time
    assert (None if got is None else (got.from_, got.to)) == time
    if limit:
        assert plan.top_k >= limit


def test_authors_and_domains_are_grounded_in_the_catalog() -> None:
    plan = PLANNER.plan("연합뉴스가 쓴 경제 기사, not by Bloomberg", scope())
    assert plan.filters.authors == ["연합뉴스"]
    assert plan.filters.domains == ["경제"]


def test_latin_facet_values_must_be_whole_words() -> None:
    assert PLANNER.plan("Reutersville weather", scope()).filters.authors == []
    assert PLANNER.plan("what did Reuters report?", scope()).filters.authors == ["Reuters"]


def test_quoted_phrases_keep_the_default_strategy() -> None:
    # keyword-only search lost to hybrid on 10 of 14 quoted benchmark questions (issue 23)
    assert PLANNER.plan('"사드 배치" 관련 기사', scope()).strategy == "hybrid"
    plan = PLANNER.plan('Which "Roseanne" star is in Scream 2?', scope())
    assert plan.strategy == "hybrid" and plan.query is None


def test_knowledge_bases_requested_named_or_all() -> None:
    assert PLANNER.plan("finance 자료에서 환율", scope()).knowledge_bases == ["finance"]
    assert PLANNER.plan("환율", scope()).knowledge_bases == ["news", "finance"]
    requested = scope(names=("news",), requested=True)
    assert PLANNER.plan("finance 환율", requested).knowledge_bases == ["news"]


def test_document_mode_and_the_search_text() -> None:
    plan = PLANNER.plan("안녕", scope(doc_id="d1"))
    assert plan.mode == "document" and plan.filters.doc_ids == ["d1"]
    plan = PLANNER.plan("9월 반도체 글 2개만 보여줘", scope())
    assert plan.query == "반도체"  # time, count, request and document-type words are not searched
