"""Graph indexing of documents in knowledge bases with a graph backend: extract entities and
relations from the searchable chunks, write them with their provenance, remove a document's part.

Extraction runs before the document's vectors are written and its graph is removed with the rest
of an interrupted or failed attempt, so a document is in the graph exactly when it is indexed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from planrag.core.errors import PlanragError
from planrag.core.messages import Message, message
from planrag.core.settings import GraphSettings
from planrag.core.types import Chunk, Document, KnowledgeBase
from planrag.ingest.dual_extraction import DualExtractor
from planrag.ingest.extraction import ChunkText, Extractor, LLMExtractor
from planrag.ingest.rule_extraction import RuleExtractor
from planrag.llm.chat import ChatClient
from planrag.services.entity_unification import unify
from planrag.stores.extractions import ExtractionCache
from planrag.stores.graphs import GraphStores

log = logging.getLogger(__name__)

Note = Callable[[Message | None], None]


class GraphIndexer:
    def __init__(
        self,
        graphs: GraphStores,
        settings: GraphSettings,
        chat: Callable[[], ChatClient],
        cache: ExtractionCache,
    ) -> None:
        self.graphs = graphs
        self._settings = settings
        self._chat = chat
        self._cache = cache
        self._rule = RuleExtractor()

    def extractor(self) -> Extractor:
        """`auto`: rules and the LLM merged (spec 001's dual extraction) when an LLM is
        configured, else the rules; `llm`: the LLM alone (its failures fail the document)."""
        choice = self._settings.extractor
        chat = self._chat() if choice != "rule" else None
        if choice == "llm" or (choice == "auto" and chat is not None and chat.configured):
            assert chat is not None
            llm = LLMExtractor(
                chat,
                self._cache,
                batch=self._settings.llm_batch,
                concurrency=self._settings.llm_concurrency,
                timeout_s=max(chat.settings.timeout_s, 30.0),
            )
            return llm if choice == "llm" else DualExtractor(self._rule, llm)
        return self._rule

    def index(
        self, kb: KnowledgeBase, doc: Document, chunks: list[Chunk], note: Note
    ) -> Message | None:
        """Extract and write one document's graph, noting progress. Raises on failure with
        on_error=fail; with on_error=skip returns why the document has no graph."""
        store = self.graphs.for_kb(kb.graph_backend)
        if store is None:
            return None
        extractor = self.extractor()
        texts = [ChunkText(chunk_id=c.id, doc_id=doc.id, text=c.text) for c in chunks]

        def progress(done: int, total: int) -> None:
            note(message("graph_extracting", done=done, total=total, extractor=extractor.name))

        try:
            graphs = unify(store, kb.id, extractor.extract(texts, progress))
            note(message("graph_writing", mentions=sum(len(g.entities) for g in graphs)))
            store.add(kb.id, graphs)
        except Exception as exc:
            reason = (
                exc.message if isinstance(exc, PlanragError) else f"{type(exc).__name__}: {exc}"
            )
            store.delete_documents(kb.id, [doc.id])
            if self._settings.on_error == "skip":
                log.warning("document %s indexed without graph: %s", doc.id, reason)
                return message("graph_skipped", reason=reason[:900])
            raise PlanragError(f"graph extraction failed: {reason}") from exc
        return None

    def remove(self, kb: KnowledgeBase, doc_ids: list[str]) -> None:
        store = self.graphs.for_kb(kb.graph_backend)
        if store is not None and doc_ids:
            store.delete_documents(kb.id, doc_ids)

    def sweep(self, kb: KnowledgeBase, known: set[str]) -> None:
        """Remove the graph of documents that no longer exist (a crash between deletes)."""
        store = self.graphs.for_kb(kb.graph_backend)
        if store is None:
            return
        orphans = sorted(store.doc_ids(kb.id) - known)
        if orphans:
            log.warning("removing the graph of %d deleted documents of %s", len(orphans), kb.id)
            store.delete_documents(kb.id, orphans)
