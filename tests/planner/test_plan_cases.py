"""Every plan case (ours, plus the shared ones when beside the checkout) through the heuristic
planner and the policy, as `/ai/v2/plan` plans them: time, sort, limit and mode."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from planrag.core.settings import PlannerSettings
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.policy import apply_policy
from tests.planner.test_heuristic import scope
from tests.planner.test_time_range import load_plan_cases

PLANNER = HeuristicPlanner(PlannerSettings())
CASES = load_plan_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_plan_case(case: dict) -> None:
    at = scope().model_copy(update={"now": datetime.fromisoformat(case["now"])})
    plan = apply_policy(PLANNER.plan(case["question"], at), at, ZoneInfo("Asia/Seoul"))
    want = case["expect"]
    if "time" in want:
        got = plan.filters.time
        if want["time"] is None:
            assert got is None, plan.rationale
        else:
            assert got is not None and got.to == want["time"]["to"], plan.rationale
            gap = date.fromisoformat(got.from_ or "") - date.fromisoformat(want["time"]["from"])
            assert abs(gap.days) <= case.get("tolerance_days", 0), plan.rationale
    for key in ("sort", "limit", "mode"):
        if key in want:
            assert getattr(plan, key) == want[key], plan.rationale
    if "top_k_max" in want:
        assert plan.top_k <= want["top_k_max"]
