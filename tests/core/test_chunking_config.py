"""Chunking settings: a default the user never set adapts to the size they did set; values they
did set and that contradict each other are named in the error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planrag.core.types import ChunkingConfig


def test_a_small_chunk_size_takes_a_smaller_default_overlap() -> None:
    config = ChunkingConfig(chunk_size=50)
    assert config.chunk_overlap == 6 and config.chunk_size == 50
    assert ChunkingConfig(parent_size=300).child_size == 60
    assert ChunkingConfig().chunk_overlap == 100  # the defaults themselves are unchanged


def test_contradicting_values_the_user_gave_are_named() -> None:
    with pytest.raises(ValidationError) as info:
        ChunkingConfig(chunk_size=50, chunk_overlap=80)
    assert "chunk_overlap (80) must be smaller than chunk_size (50)" in str(info.value)
    with pytest.raises(ValidationError) as info:
        ChunkingConfig(parent_size=300, child_size=400)
    assert "child_size (400)" in str(info.value)


def test_a_stored_config_reads_back_unchanged() -> None:
    stored = ChunkingConfig(chunk_size=50).model_dump()
    assert ChunkingConfig.model_validate(stored) == ChunkingConfig(chunk_size=50)
