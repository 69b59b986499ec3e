"""JSON documents (spec 000 `/rag/insert`): stable ids, metadata storage, passages, deletion.

A JSON document goes into the knowledge base named by its `domain` (created on first use) as a
UTF-8 text document and is indexed like any upload, in the background.

Ids: the public id is spec 000's `YYYYMMDD-title-with-hyphens` (`20240315-메타버스-뉴스`). It
can be longer than the `documents.id` column (36 characters), so the internal id is
`uuid5(SPEC_ID_NAMESPACE, public id)` and the public id is kept in `documents.filename`. A
document is a JSON document exactly when its id is the uuid5 of its filename. Re-inserting the
same date and title replaces the document (in whichever domain it was) instead of duplicating it,
but only when the caller's scope covers that domain (403 otherwise).

Storage: `info` (an object) is stored JSON-encoded in the `info` text column; `tags.date` in the
`date` column; the other tags as `key=value` strings in the `tags` list, which the planner's tag
filter can match. Documents uploaded as files read back with `info` as `{"text": …}` and plain
tags under `labels`.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from planrag.core import json_nesting
from planrag.core.errors import DocumentNotFound, Forbidden, InvalidInput, NotFound
from planrag.core.types import ChunkKind, Document, DocumentMetadata, DocumentStatus, PlainText
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.ingestion import IngestionService, UploadedDocument, UploadItem
from planrag.services.knowledge_bases import NAME_PATTERN
from planrag.stores.metadata import MetadataStore

SPEC_ID_NAMESPACE = uuid.UUID("5f0c4b8e-2d2a-4c35-9a57-0e7a3c1b6d00")
MAX_INFO_CHARS = 10000
YYYYMMDD = re.compile(r"^\d{8}$")

Scalar = str | int | float | bool


class PassageNotFound(NotFound):
    code = "passage_not_found"


def check_yyyymmdd(value: str) -> str:
    """A real calendar date written YYYYMMDD (ValueError otherwise)."""
    if not YYYYMMDD.match(value):
        raise ValueError("date must be YYYYMMDD")
    datetime.strptime(value, "%Y%m%d")  # raises ValueError for 20241399
    return value


class DocInfo(BaseModel):
    """Spec 000 `info`: optional, any further keys kept."""

    model_config = ConfigDict(extra="allow")

    press_num: str | None = Field(default=None, description="언론사 정보")
    url: str | None = Field(default=None, description="원문 URL")


class DocTags(BaseModel):
    """Spec 000 `tags`: `date` (YYYYMMDD) required, `user` and further scalar keys optional."""

    model_config = ConfigDict(extra="allow")

    date: str = Field(description="문서 작성일 (YYYYMMDD)", examples=["20240315"])
    user: str | None = Field(default=None, description="사용자 정보")

    @field_validator("date")
    @classmethod
    def _date(cls, value: str) -> str:
        return check_yyyymmdd(value)

    def extras(self) -> dict[str, Scalar]:
        values = {"user": self.user, **(self.model_extra or {})}
        bad = [k for k, v in values.items() if v is not None and not isinstance(v, Scalar)]
        if bad or any("=" in k for k in values):
            raise InvalidInput("tags values must be strings, numbers or booleans", keys=bad)
        return {k: v for k, v in values.items() if v is not None}


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


class JsonDocument(BaseModel):
    """The body of `POST /rag/insert` (spec 000 §1)."""

    domain: str = Field(max_length=32, pattern=NAME_PATTERN, examples=["news"])
    title: PlainText = Field(max_length=128, examples=["메타버스 뉴스"])
    author: PlainText = Field(max_length=128, examples=["삼성전자"])
    text: str = Field(examples=["메타버스는 비대면 시대 뜨거운 화두로 떠올랐다..."])
    info: DocInfo | None = None
    tags: DocTags

    _blank = field_validator("domain", "title", "author", "text")(_not_blank)


def spec_doc_id(date: str, title: str) -> str:
    """Spec 000's document id: `YYYYMMDD-` then the title with whitespace runs as hyphens."""
    return f"{date}-{'-'.join(title.split())}"


def internal_id(public_id: str) -> str:
    return str(uuid.uuid5(SPEC_ID_NAMESPACE, public_id))


def is_json_document(doc: Document) -> bool:
    return doc.id == internal_id(doc.filename)


def public_id(doc: Document) -> str:
    """The id callers see: the spec 000 id of a JSON document, the internal id otherwise."""
    return doc.filename if is_json_document(doc) else doc.id


def decode_info(doc: Document) -> dict[str, Any] | None:
    raw = doc.metadata.info
    if not raw:
        return None
    try:
        value = json_nesting.loads(raw, what="info")
    except ValueError:  # not JSON (or nesting too deep): plain text
        value = None
    return value if isinstance(value, dict) else {"text": raw}


def decode_tags(doc: Document) -> dict[str, Any]:
    tags: dict[str, Any] = {"date": doc.metadata.date.replace("-", "") if doc.metadata.date else ""}
    labels = []
    for item in doc.metadata.tags:
        key, sep, value = item.partition("=")
        if sep and key:
            tags[key] = value
        else:
            labels.append(item)
    if labels:
        tags["labels"] = labels
    return tags


def to_metadata(document: JsonDocument) -> DocumentMetadata:
    info = None
    if document.info is not None:
        info = json.dumps(document.info.model_dump(exclude_none=True), ensure_ascii=False)
        if len(info) > MAX_INFO_CHARS:
            raise InvalidInput(f"info is longer than {MAX_INFO_CHARS} characters as JSON")
    return DocumentMetadata(
        title=document.title,
        author=document.author,
        domain=document.domain,
        date=document.tags.date,
        info=info,
        tags=[f"{k}={v}" for k, v in document.tags.extras().items()],
    )


class DocumentView(BaseModel):
    """A document as the API dialects show it (spec 000's fields)."""

    doc_id: str = Field(description="public id (spec 000 id for JSON documents)")
    internal_id: str
    kb_id: str
    domain: str
    title: str
    author: str
    info: dict[str, Any] | None = None
    tags: dict[str, Any]
    filename: str
    status: DocumentStatus


def view(doc: Document, kb_name: str) -> DocumentView:
    meta = doc.metadata
    return DocumentView(
        doc_id=public_id(doc),
        internal_id=doc.id,
        kb_id=doc.kb_id,
        domain=meta.domain or kb_name,
        title=meta.title or doc.filename,
        author=meta.author or "",
        info=decode_info(doc),
        tags=decode_tags(doc),
        filename=doc.filename,
        status=doc.status,
    )


class Passage(BaseModel):
    passage_id: int = Field(ge=1, description="the chunk's position in the document, from 1")
    text: str
    position: int = Field(ge=1, description="reading order among the passages, from 1")


class DocumentWithPassages(DocumentView):
    passages: list[Passage]


class JsonDocumentService:
    def __init__(self, metadata: MetadataStore, ingestion: IngestionService) -> None:
        self._metadata = metadata
        self._ingestion = ingestion

    def insert(self, access: KnowledgeBaseAccess, document: JsonDocument) -> UploadedDocument:
        """Queue the document for indexing in its domain's KB (replacing one of the same id).
        Its owner is the caller: the principal with auth on (`tags.user` stays a label), the
        spec's `tags.user` with auth off."""
        if not access.caller.auth_enabled:
            access = access.as_user(document.tags.user)
        metadata = to_metadata(document).model_copy(update={"user_id": access.user})
        kb = access.write(document.domain)
        public = spec_doc_id(document.tags.date, document.title)
        item = UploadItem(filename=public, data=document.text.encode("utf-8"))

        def may_replace(existing: Document) -> None:
            # The id is global: a document of another scope (or another user's, in a per-user
            # knowledge base) must never be replaced or moved.
            home = kb if existing.kb_id == kb.id else self._metadata.get_kb(existing.kb_id)
            owner = existing.metadata.user_id
            if not access.allowed(home.name) or (home.per_user and owner != access.user):
                raise Forbidden(
                    f"document '{public}' belongs to a knowledge base outside this caller's "
                    "scope; choose another title or date",
                    doc_id=public,
                )

        return self._ingestion.put(kb.id, internal_id(public), item, "txt", metadata, may_replace)

    def resolve(self, access: KnowledgeBaseAccess, doc_id: str) -> tuple[Document, str]:
        """A document by public id (or internal id) with its KB's name; 404 if not readable
        (outside the scope, or another user's in a per-user knowledge base)."""
        docs = self._metadata.get_documents({internal_id(doc_id), doc_id})
        doc = docs.get(internal_id(doc_id)) or docs.get(doc_id)
        if doc is not None:
            kb = self._metadata.get_kb(doc.kb_id)
            if access.allowed(kb.name) and access.may_see(kb, doc):
                return doc, kb.name
        raise DocumentNotFound(f"document '{doc_id}' not found", doc_id=doc_id)

    def get(
        self, access: KnowledgeBaseAccess, doc_id: str, passage_id: str | None = None
    ) -> DocumentWithPassages:
        """The document with its passages (the readable units: chunks, or parents), or one."""
        doc, kb_name = self.resolve(access, doc_id)
        chunks = self._metadata.list_chunks(doc.id, [ChunkKind.chunk, ChunkKind.parent])
        passages = [
            Passage(passage_id=c.position + 1, text=c.text, position=i)
            for i, c in enumerate(chunks, start=1)
        ]
        if passage_id is not None:
            wanted = passage_id.strip()
            passages = [p for p in passages if str(p.passage_id) == wanted]
            if not passages:
                raise PassageNotFound(
                    f"passage '{passage_id}' of document '{doc_id}' not found",
                    doc_id=doc_id,
                    passage_id=passage_id,
                )
        return DocumentWithPassages(**view(doc, kb_name).model_dump(), passages=passages)

    def delete(
        self, access: KnowledgeBaseAccess, domain: str, date: str, title: str, author: str
    ) -> bool:
        """Delete the JSON document of that date and title if it is in the domain and by the
        author; False when there is none (deleting is idempotent)."""
        kb = access.find(domain)
        if kb is None:
            return False
        doc = self._metadata.get_documents([internal_id(spec_doc_id(date, title))])
        found = next(iter(doc.values()), None)
        if found is None or found.kb_id != kb.id or (found.metadata.author or "") != author:
            return False
        if not access.may_see(kb, found):  # another user's: as if it were not there
            return False
        self._ingestion.wait_for(found.id)  # an indexing in flight would write after the delete
        self._ingestion.delete(kb.id, found.id)
        return True
