"""Response shapes checked by the contract tests: a dict lists required keys (recursively), a
one-item list means a non-empty list of that shape, a type means an instance, anything else
an exact value."""

from __future__ import annotations

from typing import Any


def assert_shape(value: Any, shape: Any, where: str = "$") -> None:
    if isinstance(shape, type):
        allowed: tuple[type, ...] = (int, float) if shape is float else (shape,)
        assert isinstance(value, allowed) and not (shape is not bool and isinstance(value, bool)), (
            f"{where}: expected {shape.__name__}, got {value!r}"
        )
    elif isinstance(shape, dict):
        assert isinstance(value, dict), f"{where}: expected an object, got {value!r}"
        for key, inner in shape.items():
            assert key in value, f"{where}: missing '{key}' in {sorted(value)}"
            assert_shape(value[key], inner, f"{where}.{key}")
    elif isinstance(shape, list):
        assert isinstance(value, list) and value, f"{where}: expected a non-empty list"
        for i, item in enumerate(value):
            assert_shape(item, shape[0], f"{where}[{i}]")
    else:
        assert value == shape, f"{where}: expected {shape!r}, got {value!r}"
