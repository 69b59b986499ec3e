"""Filters that leave no document are relaxed one at a time, the least certain first, and every
step is reported (never a silent empty answer, never more dropped than needed).

Order of certainty (least first): the time range (an interpretation of relative words against
document dates that may be off by a day or a week), a title phrase, tags, domains, then authors
(a name the question spelled out and the catalog really holds). "어제 김민수가 쓴 회의록" with
nothing from yesterday drops the date and keeps 김민수. Document mode's document is never dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planrag.planner.schema import Filters, Relaxation, RelaxStep, SearchPlan
from planrag.planner.scope import PlanScope

RELAX_ORDER = ("time", "title_contains", "tags", "domains", "authors")

DocumentCounter = Callable[[SearchPlan, PlanScope], int]


def relax(
    plan: SearchPlan, scope: PlanScope, count: DocumentCounter
) -> tuple[SearchPlan, Relaxation | None]:
    """The plan with as few filters dropped as it takes to leave a document, and what was
    dropped, step by step (None when nothing had to be).

    First each filter alone, least certain first: the first whose absence leaves a document is
    the only one dropped. When no single one suffices, they go one after another in that order
    until a document remains."""
    if count(plan, scope) > 0:
        return plan, None
    present = [name for name in RELAX_ORDER if getattr(plan.filters, name)]
    for name in present:
        left = count(_without(plan, [name]), scope)
        if left > 0:
            return _relaxed(plan, [(name, left)])
    steps: list[tuple[str, int]] = []
    for i, name in enumerate(present):
        left = count(_without(plan, present[: i + 1]), scope)
        steps.append((name, left))
        if left > 0:
            break
    return _relaxed(plan, steps)


def _without(plan: SearchPlan, names: list[str]) -> SearchPlan:
    cleared = {name: Filters.model_fields[name].get_default(call_default_factory=True)
               for name in names}  # fmt: skip
    return plan.model_copy(update={"filters": plan.filters.model_copy(update=cleared)})


def _relaxed(plan: SearchPlan, steps: list[tuple[str, int]]) -> tuple[SearchPlan, Relaxation]:
    names = [name for name, _ in steps]
    dropped = Filters.model_validate({name: getattr(plan.filters, name) for name in names})
    shown = [
        RelaxStep(filter=name, value=_shown(getattr(plan.filters, name)), documents=left)
        for name, left in steps
    ]
    said = "; ".join(f"dropped {s.filter} {s.value} → {s.documents} documents" for s in shown)
    reason = f"no document matches these filters; {said}"
    relaxed = _without(plan, names)
    time = plan.filters.time
    # The dates no longer filter: their words go back into the search text ("1989년 평양축전"
    # on undated paragraphs is searched with its year).
    said_again = time and time.expression and plan.query and time.expression not in plan.query
    if "time" in names and time and said_again:
        relaxed = relaxed.model_copy(update={"query": f"{time.expression} {plan.query}"})
    return relaxed, Relaxation(dropped=dropped, steps=shown, reason=reason)


def _shown(value: Any) -> str:
    if hasattr(value, "from_"):  # a TimeFilter
        return f"'{value.expression or ''}' ({value.from_ or '…'}..{value.to or '…'})"
    return repr(value)
