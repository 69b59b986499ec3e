"""What a knowledge base's vector collection holds (spec 000 `/rag/data/show`): the fields every
vector record carries, in Milvus type names, and how many entities it has.

The schema is the logical record every vector-store backend stores (`VectorRecord`), so the
answer is the same whether a knowledge base lives in Milvus or pgvector. Collections have one
partition, `_default`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from planrag.core.types import KnowledgeBase
from planrag.stores.vector import VectorRecord, VectorStore

DEFAULT_PARTITION = "_default"
_TYPES = {str: "VARCHAR", int: "INT64", float: "DOUBLE", bool: "BOOL"}


class FieldInfo(BaseModel):
    name: str
    type: str
    params: dict[str, Any] | None = None


class CollectionSchema(BaseModel):
    fields: list[FieldInfo]


class CollectionInfo(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    collection_schema: CollectionSchema = Field(alias="schema")
    partition_names: list[str]
    partition_nums: dict[str, int]


def record_fields(dimension: int) -> list[FieldInfo]:
    fields = []
    for name, info in VectorRecord.model_fields.items():
        if name == "vector":
            fields.append(FieldInfo(name=name, type="FLOAT_VECTOR", params={"dim": dimension}))
        else:
            kind = info.annotation if isinstance(info.annotation, type) else str
            params = {"is_primary": True} if name == "chunk_id" else None
            fields.append(FieldInfo(name=name, type=_TYPES.get(kind, "VARCHAR"), params=params))
    return fields


class CollectionService:
    def __init__(self, vectors: VectorStore) -> None:
        self._vectors = vectors

    def describe(self, kb: KnowledgeBase) -> CollectionInfo:
        count = self._vectors.count(kb.id)
        return CollectionInfo.model_validate(
            {
                "schema": CollectionSchema(fields=record_fields(kb.embedding_dim)),
                "partition_names": [DEFAULT_PARTITION],
                "partition_nums": {DEFAULT_PARTITION: count},
            }
        )
