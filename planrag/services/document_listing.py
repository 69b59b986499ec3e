"""A plan with `listing: true` ("어제 나온 기사 알려줘": a period, no topic): the documents its
filters leave, by date, each shown by its first passage. No text search: its few words ("기사")
would rarely occur in the documents. The filters are the plan's, rendered with bound parameters
by the catalog; the newest (or oldest) `limit` documents, at most `max_passages`."""

from __future__ import annotations

from planrag.core.types import ChunkKind, Hit, HitMetadata, KnowledgeBase
from planrag.planner.schema import SearchPlan
from planrag.services.ask_events import SearchStages
from planrag.stores.catalog import Catalog, Restriction
from planrag.stores.metadata import MetadataStore


class DocumentListing:
    def __init__(self, catalog: Catalog, metadata: MetadataStore) -> None:
        self._catalog = catalog
        self._metadata = metadata

    def run(
        self,
        plan: SearchPlan,
        kbs: dict[str, KnowledgeBase],
        max_passages: int,
        restriction: Restriction | None = None,
    ) -> tuple[list[tuple[str, Hit]], SearchStages]:
        """(knowledge base name, the document's first passage) newest or oldest first, and the
        stage counts (documents in range, listed). `restriction` (kb id → document ids) keeps
        only those documents of a KB (per-user KBs)."""
        where = plan.filters.to_retrieve()
        chosen = [kbs[name] for name in plan.knowledge_bases if name in kbs]
        ids = [kb.id for kb in chosen]
        limit = min(plan.limit or plan.top_k, max_passages)
        doc_ids = self._catalog.list_documents(
            ids, where, plan.sort != "oldest", limit, restriction
        )
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
        stages = SearchStages(
            listed=True,
            in_range=self._catalog.count_documents(ids, where, restriction),
            merged=len(listed),
            passages=len(listed),
        )
        return listed, stages
