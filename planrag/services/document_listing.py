"""A plan with `listing: true` ("어제 나온 기사 알려줘": a period, no topic): the documents its
filters leave, by date, each shown by its first passage. No text search: its few words ("기사")
would rarely occur in the documents. The filters are the plan's, rendered with bound parameters
by the catalog; the newest (or oldest) `limit` documents, at most `max_passages`."""

from __future__ import annotations

from typing import Any

from planrag.core.types import ChunkKind, Hit, HitMetadata, KnowledgeBase
from planrag.planner.schema import SearchPlan
from planrag.stores.catalog import Catalog, DocumentFilter
from planrag.stores.metadata import MetadataStore


class DocumentListing:
    def __init__(self, catalog: Catalog, metadata: MetadataStore) -> None:
        self._catalog = catalog
        self._metadata = metadata

    def run(
        self, plan: SearchPlan, kbs: dict[str, KnowledgeBase], max_passages: int
    ) -> tuple[list[tuple[str, Hit]], dict[str, Any]]:
        """(knowledge base name, the document's first passage) newest or oldest first, and the
        stage counts (documents in range, listed)."""
        f = plan.filters
        where = DocumentFilter(
            doc_ids=f.doc_ids,
            authors=f.authors,
            domains=f.domains,
            date_from=f.time.from_ if f.time else None,
            date_to=f.time.to if f.time else None,
            title_contains=f.title_contains,
        )
        chosen = [kbs[name] for name in plan.knowledge_bases if name in kbs]
        ids = [kb.id for kb in chosen]
        limit = min(plan.limit or plan.top_k, max_passages)
        doc_ids = self._catalog.list_documents(ids, where, plan.sort != "oldest", limit)
        names = {kb.id: kb.name for kb in chosen}
        docs = self._metadata.get_documents(doc_ids)
        listed: list[tuple[str, Hit]] = []
        for doc_id in doc_ids:
            doc = docs.get(doc_id)
            chunks = self._metadata.list_chunks(doc_id, (ChunkKind.chunk, ChunkKind.parent))
            if doc is None or not chunks:
                continue
            first = chunks[0]
            meta = doc.metadata
            hit = Hit(
                chunk_id=first.id,
                doc_id=doc_id,
                content=first.text,
                score=1.0,  # listed, not scored: every document in range is as good
                metadata=HitMetadata(
                    filename=doc.filename,
                    title=meta.title or doc.filename,
                    author=meta.author,
                    domain=meta.domain,
                    date=meta.date,
                    page=first.page,
                    position=first.position,
                ),
            )
            listed.append((names[doc.kb_id], hit))
        stages = {
            "listed": True,
            "in_range": self._catalog.count_documents(ids, where),
            "merged": len(listed),
            "passages": len(listed),
        }
        return listed, stages
