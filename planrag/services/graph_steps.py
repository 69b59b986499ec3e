"""A step answered by the knowledge base's graph (issue 27): when a step's query names one
entity of the graph and one typed relation ("한빛로보틱스 대표이사가 졸업한 대학교": CEO_OF, then
GRADUATED_FROM; "푸른벤처스의 대표": CEO_OF), the entity the relations lead to is the step's
answer, taken from the graph's typed edges rather than read from the passages. The chunk that
states the last edge is the passage the answer cites (added to the step's passages when the
search did not find it). Conservative: every relation of the step must be walked, the answer
must have the type the step asks for, and exactly one entity may be reached — otherwise the
passages are read as before.
"""

from __future__ import annotations

import logging

from planrag.core.types import KnowledgeBase
from planrag.executors.graph_paths import sentences_naming, states
from planrag.executors.graph_questions import question_names
from planrag.services.answers import Passage
from planrag.services.ask_events import StepAnswer
from planrag.services.ownership import Restriction
from planrag.services.retrieval import RetrievalService
from planrag.stores.graph import Edge, Entity, GraphStore
from planrag.stores.restricted_graph import restricted
from planrag.text.entities import normalize
from planrag.text.relation_cues import Step, relation_chain
from planrag.text.step_types import expected_type

log = logging.getLogger(__name__)
MAX_EDGES = 500


class GraphStepReader:
    """Reads a step's answer off the graph of the step's knowledge bases."""

    def __init__(self, retrieval: RetrievalService) -> None:
        self._retrieval = retrieval

    def read(
        self,
        query: str,
        kbs: list[KnowledgeBase],
        passages: list[Passage],
        restriction: Restriction,
    ) -> tuple[StepAnswer, list[Passage]] | None:
        """The answer and the step's passages (with the stating chunk), or None."""
        chain = relation_chain(query)
        names = question_names(query)
        if not chain or not names:
            return None
        expected = expected_type(query)
        for kb in kbs:
            store = self._retrieval.graph_store(kb)
            if store is None:
                continue
            store = restricted(store, restriction.get(kb.id))
            try:
                walked = _walk(store, kb.id, names, chain, expected.accepts)
            except Exception as exc:  # a broken graph store: the passages are read instead
                log.warning("graph step on %s failed: %s", kb.name, exc)
                continue
            if walked is None:
                continue
            return self._cited(store, kb, walked, passages)
        return None

    def _cited(
        self, store: GraphStore, kb: KnowledgeBase, edge_ends: tuple[Entity, Entity, str],
        passages: list[Passage],
    ) -> tuple[StepAnswer, list[Passage]] | None:  # fmt: skip
        """The answer with the passage stating its edge: one of the step's, else the chunk."""
        here, there, type_ = edge_ends
        found = store.mentions(kb.id, [here.key, there.key], limit=200).mentions
        chunks_here = {m.chunk_id for m in found if m.key == here.key}
        both = [m for m in found if m.key == there.key and m.chunk_id in chunks_here]
        if not both:
            return None
        texts = self._retrieval.chunk_texts([m.chunk_id for m in both])
        held = {p.chunk_id: p for p in passages}
        best: tuple[tuple[bool, bool, bool], str, str, str] | None = None
        for mention in both:
            text = texts.get(mention.chunk_id, "")
            naming = sentences_naming(text, here.name, there.name)
            stated = [s for s in naming if states(s, here.name, there.name, type_)]
            sentence = (stated or naming or [there.name])[0]
            rank = (bool(stated), bool(naming), mention.chunk_id in held)
            if best is None or rank > best[0]:
                best = (rank, mention.chunk_id, mention.doc_id, sentence)
        assert best is not None
        _, chunk, doc, sentence = best
        if chunk not in held:
            text = texts.get(chunk, "")
            added = Passage(
                n=len(passages) + 1,
                chunk_id=chunk,
                doc_id=doc,
                knowledge_base=kb.name,
                score=passages[0].score if passages else 1.0,
                content=text,
            )
            passages = [*passages, added]
            held[chunk] = added
        answer = StepAnswer(
            text=there.name, sentence=sentence, passage=held[chunk].n, source="graph"
        )
        return answer, passages


def _walk(
    store: GraphStore, kb_id: str, names: list[str], chain: list[Step], accepts: tuple[str, ...]
) -> tuple[Entity, Entity, str] | None:
    """The one entity the chain's relations lead to from the query's entities: (the entity the
    last edge starts from, the answer, the relation type), or None (no walk, several ends)."""
    keys = list(dict.fromkeys(k for k in (normalize(n) for n in names) if k))
    matches = store.match(kb_id, keys, limit=3, fuzzy=False).matches
    heads = {m.entity.key: m.entity for m in matches if m.exact}
    if not heads:
        return None
    seen = set(heads)
    last: dict[str, tuple[Entity, str]] = {}
    for i, step in enumerate(chain):
        edges = store.expand(kb_id, list(heads), limit=MAX_EDGES).edges
        final = i == len(chain) - 1
        reached: dict[str, Entity] = {}
        last = {}
        for edge in edges:
            for here, there in _ends(edge, heads):
                if edge.type not in step.types or there.key in seen:
                    continue
                if step.reaches and there.type != step.reaches:
                    continue
                if final and accepts and there.type not in accepts:
                    continue
                reached[there.key] = there
                last[there.key] = (here, edge.type)
        if not reached:
            return None
        seen |= set(reached)
        heads = reached
    if len(heads) != 1:
        return None  # several answers: the passages decide
    ((key, answer),) = heads.items()
    here, type_ = last[key]
    return here, answer, type_


def _ends(edge: Edge, heads: dict[str, Entity]) -> list[tuple[Entity, Entity]]:
    ends = []
    if edge.source.key in heads:
        ends.append((edge.source, edge.target))
    if edge.target.key in heads:
        ends.append((edge.target, edge.source))
    return ends
