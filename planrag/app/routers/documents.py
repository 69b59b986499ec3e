"""/api/knowledge-bases/{kb_id}/documents: upload, status, chunks, delete."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile, status
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from planrag.app.auth import PrincipalDep
from planrag.app.dependencies import RuntimeDep
from planrag.core.errors import Forbidden, InvalidInput, UploadTooLarge
from planrag.core.types import Chunk, Document, DocumentMetadata, DocumentStatus
from planrag.runtime import Runtime
from planrag.services.auth import Principal
from planrag.services.ingestion import UploadedDocument, UploadItem
from planrag.services.ownership import acting_user

router = APIRouter(prefix="/api/knowledge-bases/{kb_id}/documents", tags=["documents"])


def _stage(runtime: Runtime, uploads: list[UploadFile], limit: int) -> list[UploadItem]:
    """Each upload copied to disk block by block (never whole in memory); a file over the
    limit is refused as soon as it passes it. Runs in a worker thread (blocking file IO)."""
    items: list[UploadItem] = []
    try:
        for upload in uploads:
            name = upload.filename or "upload"
            path = runtime.files.stage(upload.file, limit)
            if path is None:
                raise UploadTooLarge(
                    f"'{name}' exceeds the upload limit of {limit} bytes "
                    "(PLANRAG_INGEST__MAX_UPLOAD_MB)",
                    filename=name,
                )
            items.append(UploadItem(filename=name, path=path))
    except BaseException:
        _unstage(items)
        raise
    return items


def _unstage(items: list[UploadItem]) -> None:
    for item in items:
        if item.path is not None:
            item.path.unlink(missing_ok=True)


def _tags(raw: str | None) -> list[str]:
    if not raw:
        return []
    if raw.lstrip().startswith("["):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"tags: invalid JSON list: {exc}") from exc
        if not isinstance(value, list):
            raise InvalidInput("tags: expected a JSON list or comma-separated words")
        return [str(v) for v in value]
    return [t.strip() for t in raw.split(",") if t.strip()]


@router.post("", status_code=status.HTTP_202_ACCEPTED, response_model=list[UploadedDocument])
async def upload_documents(
    kb_id: str,
    runtime: RuntimeDep,
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
    owner = acting_user(runtime.settings.auth.enabled, principal.id, user_id)
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
    most = runtime.settings.ingest.max_files_per_request
    if len(files) > most:  # before copying any
        raise InvalidInput(f"too many files: at most {most} per request")
    items = await run_in_threadpool(_stage, runtime, files, runtime.settings.max_upload_bytes)
    try:
        return await run_in_threadpool(runtime.ingestion.upload, kb_id, items, metadata)
    finally:
        _unstage(items)


def _sees_all(runtime: Runtime, kb_id: str, principal: Principal) -> bool:
    """On a per-user KB with auth on, a non-admin caller sees only their own documents."""
    kb = runtime.metadata.get_kb(kb_id)
    return not (kb.per_user and runtime.settings.auth.enabled and not principal.admin)


def _document(runtime: Runtime, kb_id: str, doc_id: str, principal: Principal) -> Document:
    doc = runtime.metadata.get_document(doc_id, kb_id)
    if not _sees_all(runtime, kb_id, principal) and doc.metadata.user_id != principal.id:
        raise Forbidden(f"document '{doc_id}' belongs to another user", doc_id=doc_id)
    return doc


@router.get("", response_model=list[Document])
def list_documents(
    kb_id: str, runtime: RuntimeDep, principal: PrincipalDep, status: DocumentStatus | None = None
) -> list[Document]:
    docs = runtime.ingestion.documents(kb_id, [status] if status else None)
    if _sees_all(runtime, kb_id, principal):
        return docs
    return [d for d in docs if d.metadata.user_id == principal.id]


@router.get("/{doc_id}", response_model=Document)
def get_document(kb_id: str, doc_id: str, runtime: RuntimeDep, principal: PrincipalDep) -> Document:
    return _document(runtime, kb_id, doc_id, principal)


class MetadataPatch(DocumentMetadata):
    """The metadata fields to change; fields left out keep their value, `null` clears one."""


@router.patch("/{doc_id}", response_model=UploadedDocument)
def update_document_metadata(
    kb_id: str, doc_id: str, body: MetadataPatch, runtime: RuntimeDep
) -> UploadedDocument:
    """Change a document's metadata. The document is indexed again in the background so that
    filters (author, date, domain, tags) see the new values; `metadata_updated` lists the fields
    that changed."""
    runtime.metadata.get_kb(kb_id)
    doc = runtime.metadata.get_document(doc_id, kb_id)
    metadata = doc.metadata.model_copy(update=body.model_dump(include=body.model_fields_set))
    updated, changed = runtime.ingestion.update_metadata(doc, metadata)
    return UploadedDocument(**updated.model_dump(), metadata_updated=changed)


@router.delete("/{doc_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_document(kb_id: str, doc_id: str, runtime: RuntimeDep, principal: PrincipalDep) -> None:
    """Delete the document, its chunks, vectors and file."""
    _document(runtime, kb_id, doc_id, principal)
    runtime.ingestion.delete(kb_id, doc_id)


@router.get("/{doc_id}/chunks", response_model=list[Chunk])
def list_chunks(
    kb_id: str, doc_id: str, runtime: RuntimeDep, principal: PrincipalDep
) -> list[Chunk]:
    _document(runtime, kb_id, doc_id, principal)
    return runtime.metadata.list_chunks(doc_id)
