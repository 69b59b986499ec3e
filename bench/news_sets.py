"""The ko_news_2017 sets of `bench.ask_vs_retrieve`: the first 1,500 dated headlines of the
corpus (author: the paper), and two question sets over them, written here.

- `ko_news_2017`: questions that ask for documents by time ("지난주 북한 미사일 관련 기사
  알려줘"); relevant: the headlines of that period (as `time_range.resolve` reads it at
  2017-08-11 18:00 KST) that contain the topic word.
- `ko_news_2017_world`: questions about events of the period with their absolute date and no
  document cue ("2017년 7월 28일 북한이 발사한 ICBM은?"): questions about the world, which the
  planner must not filter; relevant: the headlines that contain the topic word, dated on the
  event's day or the two days after (news of an evening follows the next day). Relevance is
  computed at run time from the CSV, never committed.
"""

from __future__ import annotations

import csv
from datetime import date, datetime, timedelta
from typing import Any

from bench.corpus import DEFAULT_DATA_DIR
from planrag.core.types import DocumentMetadata
from planrag.planner.time_range import resolve
from planrag.runtime import Runtime
from planrag.services.evaluation import BeirDataset
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate

NEWS_SETS = ("ko_news_2017", "ko_news_2017_world")
NEWS_CSV = DEFAULT_DATA_DIR / "ko_news_2017" / "korean_newspapers_twitter_2017.csv"
NEWS_NOW = "2017-08-11T18:00:00+09:00"  # the corpus ends 2017-08-11
NEWS_DOCS = 1500
# (question, topic word the relevant headlines contain)
NEWS_QUESTIONS = [
    ("지난주 북한 미사일 관련 기사 알려줘", "미사일"),
    ("최근 3일 동안의 사드 뉴스", "사드"),
    ("8월 초 문재인 대통령 기사", "문재인"),
    ("7월 말 트럼프 관련 기사", "트럼프"),
    ("어제 올라온 부동산 기사", "부동산"),
    ("이번 주 북한 관련 소식", "북한"),
    ("지난달 탈원전 기사", "원전"),
    ("최근 일주일 최저임금 뉴스", "최저임금"),
    ("8월 첫째 주 국정원 기사", "국정원"),
    ("지난 2주간 증세 관련 기사", "증세"),
    ("7월 4주차 청와대 기사", "청와대"),
    ("그저께 나온 미국 관련 뉴스", "미국"),
    ("news about North Korea since August 1", "북한"),
    ("articles from last week about Trump", "트럼프"),
    ("8월 기사 중 검찰 관련 기사", "검찰"),
    ("지난주 연합뉴스 사드 기사", "사드"),
    ("2017년 7월 말 한국 경제 뉴스", "경제"),
    ("이번 달 대통령 지지율 기사", "지지율"),
    ("최근 5일 폭염 관련 소식", "폭염"),
    ("8월 초순 일본 관련 기사", "일본"),
]


# (question about an event, the event's day, topic word the relevant headlines contain)
WORLD_QUESTIONS = [
    ("2017년 7월 28일 북한이 발사한 ICBM은?", "2017-07-28", "ICBM"),
    ("2017년 7월 28일 밤 북한의 미사일 발사에 대한 정부 대응은?", "2017-07-28", "미사일"),
    ("2017년 7월 22일 국회를 통과한 추경 예산 규모는?", "2017-07-22", "추경"),
    ("2017년 8월 5일 안보리가 채택한 대북 제재 결의 내용은?", "2017-08-05", "안보리"),
    ("2017년 8월 7일 특검이 이재용 부회장에게 구형한 형량은?", "2017-08-07", "이재용"),
    ("2017년 8월 2일 정부가 내놓은 부동산 대책은?", "2017-08-02", "부동산"),
    ("2017년 7월 24일 출범한 신고리 공론화위원회는 무엇을 하나?", "2017-07-24", "신고리"),
    ("2017년 7월 29일 문재인 대통령이 지시한 사드 추가 배치는?", "2017-07-29", "사드"),
    ("2017년 7월 26일 개봉한 영화 군함도의 논란은?", "2017-07-26", "군함도"),
    ("2017년 7월 21일 여당이 제안한 증세 방안은?", "2017-07-21", "증세"),
    ("2017년 8월 10일 북한이 밝힌 괌 포위사격 계획은?", "2017-08-10", "괌"),
    ("2017년 8월 8일 트럼프 대통령이 북한에 한 경고는?", "2017-08-08", "트럼프"),
    ("2017년 7월 24일 국정원 댓글 사건 조사 결과는?", "2017-07-24", "국정원"),
    ("2017년 7월 25일 박근혜 전 대통령 재판에서 나온 증언은?", "2017-07-25", "박근혜"),
    ("2017년 7월 23일 수해 피해 지역 상황은?", "2017-07-23", "수해"),
    ("2017년 8월 3일 김정은 위원장의 행보는?", "2017-08-03", "김정은"),
]  # fmt: skip


def _rows(docs: int) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    rows = list(csv.DictReader(NEWS_CSV.open(encoding="utf-8")))[:docs]
    corpus = {f"n{i}": {"title": "", "text": row["text"]} for i, row in enumerate(rows)}
    meta = {
        f"n{i}": {"date": row["created"][:10], "author": row["paper_name"]}
        for i, row in enumerate(rows)
    }
    return corpus, meta


def news_dataset(name: str, docs: int) -> tuple[BeirDataset, dict[str, dict[str, str]]]:
    """One of NEWS_SETS over the first `docs` headlines, and each headline's date and paper."""
    corpus, meta = _rows(docs)
    now = datetime.fromisoformat(NEWS_NOW)
    periods: list[tuple[str, str, str, str]] = []  # question, first day, last day, topic
    if name == "ko_news_2017":
        for question, topic in NEWS_QUESTIONS:
            found = resolve(question, now)
            assert found is not None and found.start and found.end, question
            periods.append((question, found.start.isoformat(), found.end.isoformat(), topic))
    else:
        for question, day, topic in WORLD_QUESTIONS:
            last = (date.fromisoformat(day) + timedelta(days=2)).isoformat()
            periods.append((question, day, last, topic))
    queries, qrels = {}, {}
    for j, (question, start, end, topic) in enumerate(periods):
        relevant = {
            cid: 1
            for cid, entry in corpus.items()
            if topic in entry["text"] and start <= meta[cid]["date"] <= end
        }
        if relevant:
            queries[f"q{j}"], qrels[f"q{j}"] = question, relevant
    return BeirDataset.model_validate({"corpus": corpus, "queries": queries, "qrels": qrels}), meta


def ingest_news(runtime: Runtime, dataset: BeirDataset, meta: dict[str, dict[str, str]]) -> Any:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate.model_validate({"name": "news"}))
    mapping: dict[str, str] = {}
    for cid, entry in dataset.corpus.items():
        doc = runtime.ingestion.upload(
            kb.id,
            [UploadItem(filename=f"{cid}.txt", data=entry.text.encode())],
            DocumentMetadata(date=meta[cid]["date"], author=meta[cid]["author"]),
            background=False,
        )[0]
        mapping[doc.id] = cid
    todo = [d for d in mapping]
    list(runtime.ingestion.index_many(todo))
    runtime.bm25.index(kb.id)
    runtime.calibrator.refresh(kb.id, force=True)
    return kb.id, mapping
