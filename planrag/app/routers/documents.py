"""/api/knowledge-bases/{kb_id}/documents: upload, status, chunks, delete."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile, status
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from planrag.app.dependencies import RuntimeDep
from planrag.core.errors import InvalidInput, UploadTooLarge
from planrag.core.types import Chunk, Document, DocumentMetadata, DocumentStatus
from planrag.services.ingestion import UploadedDocument, UploadItem

router = APIRouter(prefix="/api/knowledge-bases/{kb_id}/documents", tags=["documents"])

READ_BLOCK = 1 << 20


async def _read_limited(upload: UploadFile, limit: int) -> bytes:
    """Read at most `limit` bytes; a larger file is refused without reading it all."""
    parts, size = [], 0
    while block := await upload.read(READ_BLOCK):
        size += len(block)
        if size > limit:
            raise UploadTooLarge(
                f"'{upload.filename}' exceeds the upload limit of {limit} bytes "
                "(PLANRAG_INGEST__MAX_UPLOAD_MB)",
                filename=upload.filename,
            )
        parts.append(block)
    return b"".join(parts)


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
    files: Annotated[list[UploadFile], File(description="TXT, MD or PDF; repeat the field")],
    title: Annotated[str | None, Form()] = None,
    author: Annotated[str | None, Form()] = None,
    domain: Annotated[str | None, Form()] = None,
    date: Annotated[str | None, Form(description="YYYY-MM-DD or YYYYMMDD")] = None,
    info: Annotated[str | None, Form()] = None,
    tags: Annotated[str | None, Form(description="comma-separated or a JSON list")] = None,
) -> list[UploadedDocument]:
    """Upload documents; indexing runs in the background (poll the document's `status`).

    Re-uploading identical content returns the existing document (`duplicate: true`).
    """
    try:
        metadata = DocumentMetadata(
            title=title, author=author, domain=domain, date=date, info=info, tags=_tags(tags)
        )
    except ValidationError as exc:
        raise InvalidInput(f"metadata: {exc.errors()[0]['msg']}") from exc
    limit = runtime.settings.max_upload_bytes
    items = [
        UploadItem(filename=f.filename or "upload", data=await _read_limited(f, limit))
        for f in files
    ]
    return await run_in_threadpool(runtime.ingestion.upload, kb_id, items, metadata)


@router.get("", response_model=list[Document])
def list_documents(
    kb_id: str, runtime: RuntimeDep, status: DocumentStatus | None = None
) -> list[Document]:
    return runtime.ingestion.documents(kb_id, [status] if status else None)


@router.get("/{doc_id}", response_model=Document)
def get_document(kb_id: str, doc_id: str, runtime: RuntimeDep) -> Document:
    runtime.metadata.get_kb(kb_id)
    return runtime.metadata.get_document(doc_id, kb_id)


@router.delete("/{doc_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_document(kb_id: str, doc_id: str, runtime: RuntimeDep) -> None:
    """Delete the document, its chunks, vectors and file."""
    runtime.metadata.get_kb(kb_id)
    runtime.ingestion.delete(kb_id, doc_id)


@router.get("/{doc_id}/chunks", response_model=list[Chunk])
def list_chunks(kb_id: str, doc_id: str, runtime: RuntimeDep) -> list[Chunk]:
    runtime.metadata.get_kb(kb_id)
    runtime.metadata.get_document(doc_id, kb_id)
    return runtime.metadata.list_chunks(doc_id)
