"""The console's component tests (vitest + Testing Library in jsdom: SSE event handling,
citation linking, the plan card) run as part of `make test`."""

from __future__ import annotations

import subprocess

from tests.web.console import WEB, ensure_node_modules


def test_vitest_component_tests_pass() -> None:
    ensure_node_modules()
    result = subprocess.run(
        ["npx", "--no-install", "vitest", "run", "--reporter=dot", "--color=false"],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert " passed" in output and "failed" not in output, output[-3000:]
