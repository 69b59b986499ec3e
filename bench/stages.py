"""Where a pipeline's time goes: wrap the objects it calls with timers, then put them back.

Targets that a revision of the product lacks are skipped, so the bench runs on older and newer
code alike; what was timed is reported by name.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

Target = tuple[Any, str, str]  # (object, class or module; attribute; stage name)


@dataclass
class StageTimes:
    """Seconds spent in each instrumented step."""

    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - start

        return timed


@contextmanager
def instrumented(targets: list[Target], stages: StageTimes) -> Iterator[None]:
    """Replace each present attribute by a timed wrapper for the duration of the block.

    An attribute defined on the object itself (a module function, a class's method) is put back;
    one inherited from the class (an instance's bound method) is shadowed, then deleted.
    """
    undo: list[tuple[Any, str, Any]] = []
    for owner, attr, name in targets:
        if not hasattr(owner, attr):
            continue
        own = vars(owner).get(attr) if hasattr(owner, "__dict__") else None
        setattr(owner, attr, stages.wrap(name, getattr(owner, attr)))
        undo.append((owner, attr, own))
    try:
        yield
    finally:
        for owner, attr, own in reversed(undo):
            if own is None:
                delattr(owner, attr)
            else:
                setattr(owner, attr, own)
