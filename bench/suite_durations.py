"""The suite's time per test file, from pytest's `--durations=0` report.

    python -m pytest -q -n auto --maxprocesses 4 --dist loadfile --durations=0 > run.out
    python -m bench.suite_durations run.out [other.out] [--top 40]

Sums setup, call and teardown of every test per file (module fixtures land in the setup of a
file's first test). With two reports it prints before/after side by side. With `--dist loadfile`
a file runs on one worker, so the longest file bounds the wall time from below.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^\s*(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S+?)(?:::\S.*)?$")


def per_file(report: Path) -> dict[str, float]:
    """Seconds per test file in one `--durations=0` report."""
    totals: dict[str, float] = defaultdict(float)
    for line in report.read_text(errors="replace").splitlines():
        match = LINE.match(line)
        if match:
            totals[match.group(3).split("::", 1)[0]] += float(match.group(1))
    return dict(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("reports", type=Path, nargs="+", help="one or two pytest outputs")
    parser.add_argument("--top", type=int, default=40, help="files shown (longest first)")
    args = parser.parse_args()
    runs = [per_file(path) for path in args.reports[:2]]
    files = sorted(set().union(*runs), key=lambda f: -max(run.get(f, 0.0) for run in runs))
    header = " | ".join(["file", *(str(path) for path in args.reports[:2])])
    print(header)
    for name in files[: args.top]:
        print(" | ".join([name, *(f"{run.get(name, 0.0):.1f}" for run in runs)]))
    print(" | ".join(["total (s, summed over workers)", *(f"{sum(r.values()):.0f}" for r in runs)]))


if __name__ == "__main__":
    main()
