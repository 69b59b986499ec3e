"""A pydantic annotation for a name from a catalogue that grows at run time (strategies, graph
backends): values are checked against it, and the JSON Schema enum is read from it each time a
schema is generated, so a registration made after import still shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema


class RegisteredName:
    def __init__(self, check: Callable[[str], str], names: Callable[[], list[str]]) -> None:
        self._check = check
        self._names = names

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema["enum"] = self._names()
        return json_schema
