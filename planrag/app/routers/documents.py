"""/api/knowledge-bases/{kb_id}/documents: upload, status, chunks, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile, status
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import DocumentsDep
from planrag.core import json_nesting
from planrag.core.errors import InvalidInput
from planrag.core.types import Chunk, Document, DocumentMetadata, DocumentStatus
from planrag.services.documents import Upload
from planrag.services.ingestion import UploadedDocument

router = APIRouter(prefix="/api/knowledge-bases/{kb_id}/documents", tags=["documents"])


def _tags(raw: str | None) -> list[str]:
    if not raw:
        return []
    if raw.lstrip().startswith("["):
        try:
            value = json_nesting.loads(raw, what="tags")
        except ValueError as exc:
            raise InvalidInput(f"tags: invalid JSON list: {exc}") from exc
        if not isinstance(value, list):
            raise InvalidInput("tags: expected a JSON list or comma-separated words")
        return [str(v) for v in value]
    return [t.strip() for t in raw.split(",") if t.strip()]


@router.post("", status_code=status.HTTP_202_ACCEPTED, response_model=list[UploadedDocument])
async def upload_documents(
    kb_id: str,
    documents: DocumentsDep,
    principal: PrincipalDep,
    files: Annotated[list[UploadFile], File(description="TXT, MD or PDF; repeat the field")],
    title: Annotated[str | None, Form()] = None,
    author: Annotated[str | None, Form()] = None,
    domain: Annotated[str | None, Form()] = None,
    date: Annotated[str | None, Form(description="YYYY-MM-DD or YYYYMMDD")] = None,
    info: Annotated[str | None, Form()] = None,
    tags: Annotated[str | None, Form(description="comma-separated or a JSON list")] = None,
    user_id: Annotated[
        str | None,
        Form(description="the owner (spec 002); with auth on, the caller's principal id"),
    ] = None,
) -> list[UploadedDocument]:
    """Upload documents; indexing runs in the background (poll the document's `status`).

    Re-uploading identical content returns the existing document (`duplicate: true`).
    """
    owner = documents.owner(principal, user_id)
    try:
        metadata = DocumentMetadata(
            title=title,
            author=author,
            domain=domain,
            date=date,
            info=info,
            tags=_tags(tags),
            user_id=owner,
        )
    except ValidationError as exc:
        raise InvalidInput(f"metadata: {exc.errors()[0]['msg']}") from exc
    uploads = [Upload(filename=f.filename or "upload", stream=f.file) for f in files]
    return await run_in_threadpool(documents.upload, kb_id, uploads, metadata)


@router.get("", response_model=list[Document])
def list_documents(
    kb_id: str,
    documents: DocumentsDep,
    principal: PrincipalDep,
    status: DocumentStatus | None = None,
) -> list[Document]:
    return documents.documents(kb_id, principal, [status] if status else None)


@router.get("/{doc_id}", response_model=Document)
def get_document(
    kb_id: str, doc_id: str, documents: DocumentsDep, principal: PrincipalDep
) -> Document:
    return documents.get(kb_id, doc_id, principal)


class MetadataPatch(DocumentMetadata):
    """The metadata fields to change; fields left out keep their value, `null` clears one."""


@router.patch("/{doc_id}", response_model=UploadedDocument)
def update_document_metadata(
    kb_id: str, doc_id: str, body: MetadataPatch, documents: DocumentsDep, principal: PrincipalDep
) -> UploadedDocument:
    """Change a document's metadata. The document is indexed again in the background so that
    filters (author, date, domain, tags) see the new values; `metadata_updated` lists the fields
    that changed. On a per-user knowledge base another user's document is a 404 (as a missing
    one); with auth on only an admin changes `user_id` (403 otherwise)."""
    return documents.update_metadata(kb_id, doc_id, body, set(body.model_fields_set), principal)


@router.delete("/{doc_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_document(
    kb_id: str, doc_id: str, documents: DocumentsDep, principal: PrincipalDep
) -> None:
    """Delete the document, its chunks, vectors and file."""
    documents.delete(kb_id, doc_id, principal)


@router.get("/{doc_id}/chunks", response_model=list[Chunk])
def list_chunks(
    kb_id: str, doc_id: str, documents: DocumentsDep, principal: PrincipalDep
) -> list[Chunk]:
    return documents.chunks(kb_id, doc_id, principal)
