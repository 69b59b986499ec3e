"""The documents of a knowledge base as the HTTP API serves them (`/api/knowledge-bases/{kb_id}/
documents`): uploads staged to disk and handed to ingestion, and per-user visibility (spec 002) on
every read and delete. The router only turns HTTP into these calls."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

from planrag.core.errors import DocumentNotFound, Forbidden, InvalidInput, UploadTooLarge
from planrag.core.types import Chunk, Document, DocumentMetadata, DocumentStatus
from planrag.services.auth import Principal
from planrag.services.ingestion import IngestionService, UploadedDocument, UploadItem
from planrag.services.ownership import acting_user
from planrag.stores.files import FileStore
from planrag.stores.metadata import MetadataStore


@dataclass(frozen=True)
class Upload:
    """One uploaded file as the web layer received it: its name and a readable stream."""

    filename: str
    stream: BinaryIO


class DocumentService:
    def __init__(
        self,
        metadata: MetadataStore,
        files: FileStore,
        ingestion: IngestionService,
        *,
        auth_enabled: bool,
        max_upload_bytes: int,
        max_files: int,
    ) -> None:
        self._metadata = metadata
        self._files = files
        self._ingestion = ingestion
        self._auth_enabled = auth_enabled
        self._max_bytes = max_upload_bytes
        self._max_files = max_files

    @property
    def accepting(self) -> bool:
        """Whether the ingestion queue takes new documents (readiness)."""
        return not self._ingestion.closed

    def owner(self, principal: Principal, user_id: str | None) -> str | None:
        """Whose document an upload is (spec 002; with auth on, the principal's)."""
        return acting_user(self._auth_enabled, principal.id, user_id)

    def upload(
        self, kb_id: str, uploads: list[Upload], metadata: DocumentMetadata
    ) -> list[UploadedDocument]:
        """Stage every file to disk (block by block, never whole in memory), then store and
        queue them. Blocking: run it in a worker thread."""
        if len(uploads) > self._max_files:  # before copying any
            raise InvalidInput(f"too many files: at most {self._max_files} per request")
        items = self._stage(uploads)
        try:
            return self._ingestion.upload(kb_id, items, metadata)
        finally:
            _unstage(items)

    def _stage(self, uploads: list[Upload]) -> list[UploadItem]:
        """Each upload copied to disk; a file over the limit is refused as soon as it passes it."""
        items: list[UploadItem] = []
        try:
            for upload in uploads:
                path = self._files.stage(upload.stream, self._max_bytes)
                if path is None:
                    raise UploadTooLarge(
                        f"'{upload.filename}' exceeds the upload limit of {self._max_bytes} "
                        "bytes (PLANRAG_INGEST__MAX_UPLOAD_MB)",
                        filename=upload.filename,
                    )
                items.append(UploadItem(filename=upload.filename, path=path))
        except BaseException:
            _unstage(items)
            raise
        return items

    def documents(
        self, kb_id: str, principal: Principal, statuses: Iterable[DocumentStatus] | None = None
    ) -> list[Document]:
        docs = self._ingestion.documents(kb_id, statuses)
        if self._sees_all(kb_id, principal):
            return docs
        return [d for d in docs if d.metadata.user_id == principal.id]

    def get(self, kb_id: str, doc_id: str, principal: Principal) -> Document:
        """The document. Another user's document of a per-user knowledge base answers exactly
        as a missing one (404): a caller cannot learn which ids exist."""
        doc = self._metadata.get_document(doc_id, kb_id)
        if not self._sees_all(kb_id, principal) and doc.metadata.user_id != principal.id:
            raise DocumentNotFound(f"document '{doc_id}' not found", doc_id=doc_id)
        return doc

    def update_metadata(
        self,
        kb_id: str,
        doc_id: str,
        changes: DocumentMetadata,
        fields: set[str],
        principal: Principal,
    ) -> UploadedDocument:
        """Change the named metadata fields; the document is indexed again in the background.
        Only who may see the document may change it (`get`); its owner (`user_id`) changes only
        by an admin's hand (with auth on), on any knowledge base: a user cannot take another's
        document, nor give theirs away."""
        doc = self.get(kb_id, doc_id, principal)
        metadata = doc.metadata.model_copy(update=changes.model_dump(include=fields))
        if metadata.user_id != doc.metadata.user_id and self._auth_enabled and not principal.admin:
            raise Forbidden("only an admin can change a document's owner (user_id)", doc_id=doc_id)
        updated, changed = self._ingestion.update_metadata(doc, metadata)
        return UploadedDocument(**updated.model_dump(), metadata_updated=changed)

    def delete(self, kb_id: str, doc_id: str, principal: Principal) -> None:
        self.get(kb_id, doc_id, principal)
        self._ingestion.delete(kb_id, doc_id)

    def chunks(self, kb_id: str, doc_id: str, principal: Principal) -> list[Chunk]:
        self.get(kb_id, doc_id, principal)
        return self._metadata.list_chunks(doc_id)

    def rechunk(self, kb_id: str) -> int:
        """Index every settled document again (the KB's chunking changed); how many queued."""
        return self._ingestion.reindex_documents(kb_id)

    def _sees_all(self, kb_id: str, principal: Principal) -> bool:
        """On a per-user KB with auth on, a non-admin caller sees only their own documents."""
        kb = self._metadata.get_kb(kb_id)
        return not (kb.per_user and self._auth_enabled and not principal.admin)


def _unstage(items: list[UploadItem]) -> None:
    for item in items:
        if item.path is not None:
            item.path.unlink(missing_ok=True)
