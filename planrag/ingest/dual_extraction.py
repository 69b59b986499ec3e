"""Dual extraction (spec 001 §2.2, §3.8.2 "이중 추출"): when an LLM is configured, the rule
extractor and the LLM extractor both read every chunk and their graphs are merged per chunk.

- Entities: one per thing. An LLM name whose key is a rule entity's key or one of its aliases is
  that entity (the rules' key and name stay: they are resolved across the document); its type
  comes from the LLM where the LLM gives one (anything but CONCEPT), and a spelling the rules
  lacked becomes an alias. Names only the LLM found are added.
- Relations: the union, each listing the extractors that found it (`extracted_by`) and keeping
  the rules' sentence; a rule `related_to` gives way to a typed relation the LLM found between the
  same two entities.
- A failed LLM request (unreachable, timeout, invalid twice) costs only its chunks' LLM part:
  those chunks keep the rules' graph, and the failure is reported, never raised.
"""

from __future__ import annotations

import logging

from planrag.ingest.extraction import ChunkText, LLMExtractor, Progress
from planrag.ingest.rule_extraction import RuleExtractor
from planrag.stores.graph import DEFAULT_RELATION, DEFAULT_TYPE, ChunkGraph, Entity, Relation
from planrag.text.entities import normalize

log = logging.getLogger(__name__)

RULE, LLM = "rule", "llm"


def _tagged(values: list[str], tag: str) -> list[str]:
    return values if tag in values else [*values, tag]


def merge_graphs(rules: ChunkGraph, llm: ChunkGraph) -> ChunkGraph:
    """One chunk's rule graph and LLM graph as one graph (see the module's docstring)."""
    entities = {e.key: e.model_copy(update={"extracted_by": [RULE]}) for e in rules.entities}
    owner: dict[str, str] = {}
    for entity in rules.entities:
        owner[entity.key] = entity.key
        for alias in entity.aliases:
            owner.setdefault(normalize(alias), entity.key)
    remap: dict[str, str] = {}
    for found in llm.entities:
        key = owner.get(found.key)
        if key is None:
            entities[found.key] = found.model_copy(update={"extracted_by": [LLM]})
            owner[found.key] = remap[found.key] = found.key
            continue
        remap[found.key] = key
        entities[key] = _merged_entity(entities[key], found)
    relations: dict[tuple[str, str, str], Relation] = {
        (r.source, r.type, r.target): r.model_copy(update={"extracted_by": [RULE]})
        for r in rules.relations
    }
    sentences = {frozenset((r.source, r.target)): r.sentence for r in rules.relations}
    for rel in llm.relations:
        source, target = remap.get(rel.source), remap.get(rel.target)
        if source is None or target is None or source == target:
            continue
        known = relations.get((source, rel.type, target))
        if known is not None:
            known.extracted_by = _tagged(known.extracted_by, LLM)
            continue
        relations[(source, rel.type, target)] = Relation(
            source=source,
            target=target,
            type=rel.type,
            sentence=sentences.get(frozenset((source, target))) or rel.sentence,
            extracted_by=[LLM],
        )
    typed = {frozenset((s, t)) for s, type_, t in relations if type_ != DEFAULT_RELATION and s != t}
    kept = [
        r
        for (s, type_, t), r in relations.items()
        if type_ != DEFAULT_RELATION or frozenset((s, t)) not in typed
    ]
    return ChunkGraph(
        chunk_id=rules.chunk_id,
        doc_id=rules.doc_id,
        entities=list(entities.values()),
        relations=kept,
    )


def _merged_entity(ours: Entity, found: Entity) -> Entity:
    aliases = list(ours.aliases)
    if normalize(found.name) != ours.key and found.name not in aliases:
        aliases.append(found.name)
    type_ = found.type if found.type != DEFAULT_TYPE else ours.type
    return ours.model_copy(
        update={
            "type": type_,
            "aliases": aliases,
            "extracted_by": _tagged(ours.extracted_by, LLM),
        }
    )


class DualExtractor:
    """Rules and LLM on every chunk, merged; the rules' graph wherever the LLM fails."""

    name = "rule+llm"

    def __init__(self, rule: RuleExtractor, llm: LLMExtractor) -> None:
        self._rule = rule
        self._llm = llm
        self.failures: list[str] = []  # why LLM requests of the last extraction failed

    def extract(
        self, chunks: list[ChunkText], progress: Progress | None = None
    ) -> list[ChunkGraph]:
        rules = self._rule.extract(chunks)
        try:
            found = self._llm.extract_some(chunks, progress, lenient=True)
            self.failures = list(self._llm.failures)
        except Exception as exc:  # the LLM part never fails the document
            found = [None] * len(chunks)
            self.failures = [f"{type(exc).__name__}: {exc}"[:300]]
        if self.failures:
            log.warning(
                "LLM graph extraction failed for some chunks (%s); the rules' graph stands",
                self.failures[0],
            )
        return [
            rule if llm is None else merge_graphs(rule, llm)
            for rule, llm in zip(rules, found, strict=True)
        ]
