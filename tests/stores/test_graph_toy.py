"""A new graph backend is one module (`toy_graph.py`) plus this subclass of the shipped suite."""

from __future__ import annotations

import pytest

from planrag.testing.graph_store import GraphStoreConformance
from tests.stores.toy_graph import ToyGraphStore


class TestToyGraphStore(GraphStoreConformance):
    @pytest.fixture
    def store(self) -> ToyGraphStore:
        return ToyGraphStore()
