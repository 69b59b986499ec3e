"""Conformance suites shipped with the package: a store backend's tests subclass a suite's mixin
and provide only the store fixture (haystack's testing pattern)."""
