"""The test suite. The conformance suites shipped in planrag/testing/ get pytest's assertion
messages too (registered before any test module imports them)."""

import pytest

pytest.register_assert_rewrite("planrag.testing")
