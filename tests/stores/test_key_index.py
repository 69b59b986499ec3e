"""The fuzzy entity match over an in-memory key index agrees with a plain scan."""

from __future__ import annotations

import heapq
import random

import pytest

from planrag.stores.graph import KeyIndex


def scan(query: str, keys: list[str], limit: int) -> list[str]:
    found = [k for k in keys if len(k) >= 2 and k != query and (query in k or k in query)]
    return heapq.nsmallest(limit, found, key=lambda k: (abs(len(k) - len(query)), k))


def random_keys(rng: random.Random, n: int) -> list[str]:
    syllables = ["일론", "머스크", "삼성", "전자", "스페이스", "테슬라"]
    syllables += ["ka", "ro", "vin", "tes", "sel"]
    keys = set()
    while len(keys) < n:
        parts = rng.sample(syllables, rng.randint(1, 3))
        keys.add(rng.choice(["", "_"]).join(parts))
    return sorted(keys)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agrees_with_a_scan_below_the_generic_cap(seed: int) -> None:
    rng = random.Random(seed)
    keys = random_keys(rng, 150)
    index = KeyIndex(keys, generic=10_000)
    queries = keys[:40] + ["머스크", "일론_머스크가", "samsung", "전자", "x", "tesla", "vinkaro"]
    for query in queries:
        assert index.fuzzy(query, 3) == scan(query, keys, 3), query


def test_keys_inside_the_query_and_keys_containing_it() -> None:
    index = KeyIndex(["일론_머스크", "머스크", "스페이스x", "스페이스", "a"])
    assert index.fuzzy("일론_머스크가", 5) == ["일론_머스크", "머스크"]
    assert index.fuzzy("스페이", 5) == ["스페이스", "스페이스x"]
    assert index.fuzzy("a", 5) == []  # one-character keys never match


def test_a_query_inside_too_many_keys_keeps_only_the_keys_inside_it() -> None:
    keys = [f"company_{i}_corp" for i in range(50)] + ["corp", "co"]
    index = KeyIndex(keys, generic=20)
    assert index.fuzzy("corp", 3) == ["co"]  # 50 names contain "corp": too generic
    assert index.fuzzy("company_7_corp", 3) == ["corp", "co"]
    assert len(index) == 52
