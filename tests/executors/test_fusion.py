"""Leg-aware fusion: calibration with the real model and Kiwi, and the bounded weights."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from planrag.core.types import FusionCalibration, LegQuality
from planrag.executors.calibration import (
    FLOOR,
    halves,
    measure,
    question,
    script_of,
    weights_for,
)
from planrag.executors.fusion import CROSS_SCRIPT_DENSE, cross_script
from planrag.text.tokenizer import LexicalTokenizer

KOREAN = [
    ("서울시는 공공자전거 따릉이 요금을 인상한다.", "따릉이 정기권 가격도 함께 오른다."),
    ("국립중앙박물관은 매주 월요일 휴관한다.", "박물관 특별전시는 별도 입장권이 필요하다."),
    ("반도체 수출이 석 달 연속 증가했다.", "메모리 반도체 가격 회복이 수출을 이끌었다."),
    ("기상청은 내일 전국에 비가 온다고 예보했다.", "남부 지방에는 강한 비와 바람이 예상된다."),
    ("코로나19 백신 접종 예약이 시작되었다.", "접종 대상은 65세 이상 고령층이다."),
    ("한국은행이 기준금리를 동결했다.", "금리 동결은 물가 상승 둔화를 반영한다."),
    ("프로야구 개막전이 잠실에서 열렸다.", "야구 팬들은 개막전 입장권을 구하려 줄을 섰다."),
    ("전기차 충전소가 고속도로 휴게소에 늘어난다.", "충전 요금은 지역마다 다르다."),
    ("도서관 야간 개관 시간이 연장되었다.", "도서관 열람실은 밤 열한 시까지 운영한다."),
    ("김장철을 맞아 배추 가격이 올랐다.", "배추 산지 작황이 부진해 가격 부담이 커졌다."),
    ("지하철 9호선 연장 구간이 개통했다.", "연장 구간 개통으로 출퇴근 시간이 줄었다."),
    ("제주 감귤 수확이 한창이다.", "올해 감귤은 당도가 높아 인기가 많다."),
]
ENGLISH = [
    ("The city museum is closed on Mondays.", "Visitors can see the exhibits from Tuesday on."),
    ("Quarterly revenue grew twelve percent.", "Cloud sales drove most of the growth."),
    ("A volcano erupted near the coast.", "Ash from the eruption grounded many flights."),
    ("The football club signed a new striker.", "He scored twice in his first match."),
    ("Heavy rain flooded several streets.", "Residents used sandbags to protect their homes."),
    ("The library extended its opening hours.", "Students can now study there until midnight."),
    ("A new vaccine trial has started.", "Volunteers will receive two injections a month apart."),
    ("Electric cars are getting cheaper.", "Battery prices fell sharply over the last decade."),
    ("The orchestra performed a symphony.", "The audience applauded the violin soloist."),
    ("Wheat harvests were poor this year.", "Bread prices are expected to rise."),
    ("The airline launched a direct route.", "Flights to the island will run three times a week."),
    ("A chess prodigy won the tournament.", "She defeated a grandmaster in the final round."),
]


def test_halves_cut_at_sentence_boundaries() -> None:
    assert halves("첫 문장입니다. 둘째 문장입니다. 셋째 문장입니다.") == (
        "첫 문장입니다.",
        "둘째 문장입니다. 셋째 문장입니다.",
    )
    assert halves("one two three four five six seven eight") == (
        "one two three four",
        "five six seven eight",
    )
    assert halves("too short") is None


def test_script_of() -> None:
    assert script_of("메타버스는 무엇인가?") == "hangul"
    assert script_of("What is the metaverse?") == "latin"
    assert script_of("COVID-19 백신 접종 예약") == "hangul"
    assert script_of("1234") == "latin"


def test_question_like_pseudo_queries() -> None:
    body = "누리봇 S1은 한빛로보틱스가 2019년에 출시한 운반 로봇이다."
    assert question(f"# 누리봇 제품 안내\n\n{body}") == ("누리봇 제품 안내", body)
    assert question("The museum opened in 1990. It holds Korean art. Entry is free.") == (
        "The museum opened in 1990.",
        "It holds Korean art. Entry is free.",
    )
    assert question("one sentence only") is None


def quality(dense: float, lexical: float, n: int = 64, sd: float | None = 0.35) -> LegQuality:
    return LegQuality(dense_mrr=dense, lexical_mrr=lexical, queries=n, diff_sd=sd)


def test_weights_are_bounded_unless_the_evidence_is_strong() -> None:
    assert weights_for(None).dense == 0.5
    assert weights_for(None).confidence == 0.0
    # A far weaker dense leg with strong evidence (MiniLM on Korean) is switched off ...
    assert weights_for(quality(0.16, 0.49, sd=0.3)).dense == 0.0
    assert weights_for(quality(0.9, 0.2, sd=0.3)).dense == 1.0
    # ... but the same means from a few noisy queries (a small KB) stay within the bounds.
    small = weights_for(quality(0.13, 0.20, n=8, sd=0.45))
    assert FLOOR <= small.dense < 0.5
    assert weights_for(quality(0.0, 0.0)).dense == 0.5
    # A real but modest difference moves the weight, within [FLOOR, 1 - FLOOR].
    for dense, lexical in [(0.93, 0.87), (0.75, 0.79), (0.99, 0.6), (0.6, 0.99)]:
        weight = weights_for(quality(dense, lexical)).dense
        assert FLOOR <= weight <= 1 - FLOOR
        assert (weight > 0.5) == (dense > lexical)


def test_confidence_grows_with_queries_and_shrinks_with_spread() -> None:
    few, many = weights_for(quality(0.7, 0.6, n=10)), weights_for(quality(0.7, 0.6, n=100))
    assert few.confidence < many.confidence
    assert abs(few.dense - 0.5) < abs(many.dense - 0.5)  # shrunk towards even weights
    noisy, tight = weights_for(quality(0.7, 0.6, sd=0.6)), weights_for(quality(0.7, 0.6, sd=0.1))
    assert noisy.confidence < tight.confidence
    # a calibration stored before spreads were recorded gets an assumed spread, not a crash
    assert FLOOR <= weights_for(quality(0.7, 0.6, sd=None)).dense <= 1 - FLOOR


def test_a_query_in_a_script_the_kb_barely_has_is_dense_led() -> None:
    korean_kb = FusionCalibration(
        scripts={"hangul": quality(0.5, 0.6)},
        script_share={"hangul": 0.9, "latin": 0.1},
        chunk_count=40,
        calibrated_at=datetime.now(UTC),
    )
    led = cross_script(korean_kb, "latin")
    assert led is not None and led.dense == CROSS_SCRIPT_DENSE and "dense-led" in led.reason
    assert cross_script(korean_kb, "hangul") is None
    mixed = korean_kb.model_copy(update={"script_share": {"hangul": 0.45, "latin": 0.55}})
    assert cross_script(mixed, "latin") is None
    assert cross_script(None, "latin") is None


def test_calibration_sees_that_minilm_cannot_read_korean(embedders) -> None:
    embedder, tokenizer = embedders.get(), LexicalTokenizer()
    korean = measure(embedder, tokenizer, KOREAN)
    english = measure(embedder, tokenizer, ENGLISH)
    assert korean.lexical_mrr > korean.dense_mrr
    assert weights_for(korean).dense < 0.5  # BM25 leads for Korean queries
    assert english.dense_mrr > 0.8
    assert weights_for(english).dense > 0.3  # both legs carry weight in English
    assert korean.queries == english.queries == 12


@pytest.mark.parametrize("pairs", [KOREAN, ENGLISH])
def test_calibration_is_deterministic(embedders, pairs) -> None:
    tokenizer = LexicalTokenizer()
    assert measure(embedders.get(), tokenizer, pairs) == measure(embedders.get(), tokenizer, pairs)


def test_e5_calibration_gives_korean_a_dense_weight_on_its_own_scale() -> None:
    """e5 reads Korean: calibrated on Korean halves its leg carries weight, and the baseline it
    measures (the cosine unrelated passages get, ~0.8 for e5) is what hybrid rescales by."""
    from planrag.core.settings import EmbeddingSettings
    from planrag.executors.hybrid import rescale
    from planrag.llm.embedders import EmbedderRegistry

    e5 = EmbedderRegistry(EmbeddingSettings(threads=1)).get()
    korean = measure(e5, LexicalTokenizer(), KOREAN)
    assert korean.dense_mrr > 0.6
    assert weights_for(korean).dense > 0.4
    assert korean.dense_base is not None and 0.5 < korean.dense_base < 0.95
    assert rescale(korean.dense_base, korean.dense_base) == 0.0
    assert rescale(1.0, korean.dense_base) == 1.0
    # the other end of the KB's scale: what a passage gets from a query it answers
    assert korean.dense_top is not None and korean.dense_base < korean.dense_top < 1.0
    assert rescale(korean.dense_top, korean.dense_base, korean.dense_top) == pytest.approx(1.0)
    middle = (korean.dense_base + korean.dense_top) / 2
    assert rescale(middle, korean.dense_base, korean.dense_top) == pytest.approx(0.5)
    assert rescale(0.42, None) == 0.42  # a calibration without a baseline: cosine as is


def test_candidates_below_the_baseline_keep_their_dense_order() -> None:
    """Fused order keys are not clipped at the dense baseline: two passages that match no query
    word and sit under it are ordered by cosine (they tied at 0), shown scores stay in [0, 1]."""
    from planrag.core.types import FusionInfo
    from planrag.executors.hybrid import _Legs

    fusion = FusionInfo(
        mode="sequential",
        dense_weight=0.5,
        lexical_weight=0.5,
        reason="test",
        dense_base=0.85,
        dense_top=0.9,
    )
    legs = _Legs.__new__(_Legs)
    legs.docs = {"far": "d1", "near": "d2", "word": "d3"}
    legs.dense = {"far": 0.70, "near": 0.84, "word": 0.80}
    legs.lexical = legs.unclipped = {"word": 0.4}
    legs.scripts, legs.titles = {}, {}
    legs.dense_ranks, legs.lexical_ranks = {}, {}
    keys = {c: legs.fused(c, fusion) for c in legs.docs}
    assert keys["near"] > keys["far"]
    assert keys["word"] > keys["near"]  # a word match still counts on top of its cosine
    assert all(0.0 <= legs.candidate(c, k).score <= 1.0 for c, k in keys.items())


def test_weights_are_matched_to_the_legs_spreads_per_query() -> None:
    """A long question spreads e5's rescaled cosines three times wider than BM25's scores: at
    the KB's weight the dense leg alone would order the candidates. Per unit of spread, the
    lexical leg's best passage wins; weights of 0 or 1 are left alone, the result is bounded."""
    from planrag.core.types import FusionInfo
    from planrag.executors.hybrid import _Legs, spread_matched

    kb = FusionInfo(
        mode="sequential",
        dense_weight=0.56,
        lexical_weight=0.44,
        reason="calibrated",
        dense_base=0.80,
        dense_top=0.85,
    )
    legs = _Legs.__new__(_Legs)
    legs.docs = {"words": "d1", "close": "d2", "far": "d3"}
    legs.dense = {"words": 0.84, "close": 0.86, "far": 0.80}  # scaled 0.8, 1.2, 0.0
    legs.lexical = legs.unclipped = {"words": 0.5, "close": 0.2, "far": 0.1}
    legs.scripts, legs.titles = {}, {}
    assert legs.fused("close", kb) > legs.fused("words", kb)
    dense_sd, lexical_sd = legs.spreads(kb)
    assert dense_sd > 2 * lexical_sd
    matched = spread_matched(kb, dense_sd, lexical_sd)
    assert FLOOR <= matched.dense_weight < kb.dense_weight
    assert matched.dense_weight + matched.lexical_weight == pytest.approx(1.0)
    assert matched.calibrated_dense_weight == 0.56 and "per query" in matched.reason
    assert legs.fused("words", matched) > legs.fused("close", matched)
    led = kb.model_copy(update={"dense_weight": 1.0, "lexical_weight": 0.0})
    assert spread_matched(led, dense_sd, lexical_sd) == led
    assert spread_matched(kb, dense_sd, 0.0) == kb  # one leg without spread: unchanged
    assert spread_matched(kb, 100.0, 0.01).dense_weight == FLOOR


def test_a_passage_bm25_cannot_read_is_judged_by_the_dense_leg_only_when_imputing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Korean question, an English passage: by default the usual weighted sum, so a Korean
    passage matching both legs stays first (a mixed-language KB). With CROSS_SCRIPT_IMPUTE on,
    the English passage is ordered by its dense score alone; a Korean passage without a word
    match still loses the lexical weight."""
    from planrag.core.types import FusionInfo
    from planrag.executors import hybrid
    from planrag.executors.hybrid import _Legs

    fusion = FusionInfo(
        mode="sequential",
        dense_weight=0.5,
        lexical_weight=0.5,
        reason="test",
        dense_base=0.80,
        dense_top=0.90,
        query_script="hangul",
    )
    legs = _Legs.__new__(_Legs)
    legs.docs = {"english": "d1", "korean_words": "d2", "korean_none": "d3"}
    legs.dense = {"english": 0.88, "korean_words": 0.84, "korean_none": 0.88}
    legs.lexical = legs.unclipped = {"korean_words": 0.6}
    legs.scripts = {"english": "latin", "korean_words": "hangul", "korean_none": "hangul"}
    legs.titles, legs.dense_ranks, legs.lexical_ranks = {}, {}, {}
    default = {c: legs.fused(c, fusion) for c in legs.docs}
    assert default["english"] == pytest.approx(0.4) == default["korean_none"]
    assert default["korean_words"] > default["english"]
    monkeypatch.setattr(hybrid, "CROSS_SCRIPT_IMPUTE", True)
    keys = {c: legs.fused(c, fusion) for c in legs.docs}
    assert keys["english"] == pytest.approx(0.8)  # (0.88 − 0.80) / (0.90 − 0.80)
    assert keys["korean_none"] == pytest.approx(0.4)  # half of it: BM25 could have matched
    assert keys["english"] > keys["korean_words"] > keys["korean_none"]
    # a question in the passage's own script: the usual weighted sum
    english_question = fusion.model_copy(update={"query_script": "latin"})
    assert legs.fused("english", english_question) == pytest.approx(0.4)
