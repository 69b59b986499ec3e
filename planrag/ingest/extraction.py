"""Entity and relation extraction for knowledge bases with a graph: chunk texts → `ChunkGraph`s.

Two extractors share entity normalisation (`planrag.text.entities`):

- `RuleExtractor` (no LLM, the default; `planrag/ingest/rule_extraction.py`): typed names and
  typed relations from Korean and English patterns. `pair_relation` here is the earlier pair
  typing its English sentences keep: "A, CEO of B" / "A is the founder of B" (is_CEO_of,
  is_founder_of), "A founded B" (founded), else `related_to`.
- `LLMExtractor` (planrag/llm/chat.py): structured-output triples, pydantic-validated with one
  retry that feeds the error back, several chunks per request, requests in parallel, cached by
  hash of (model, text).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, Field, ValidationError

from planrag.core.errors import PlanragError
from planrag.llm.chat import ChatClient
from planrag.prompts import render
from planrag.stores.extractions import ExtractionCache
from planrag.stores.graph import (
    DEFAULT_RELATION,
    ChunkGraph,
    Entity,
    Relation,
    relation_type,
)
from planrag.text.entities import HANGUL, Mention, clean_name, normalize
from planrag.text.korean import split_sentences

Progress = Callable[[int, int], None]


class GraphExtractionFailed(PlanragError):
    code = "graph_extraction_failed"
    status = 502


@dataclass(frozen=True)
class ChunkText:
    chunk_id: str
    doc_id: str
    text: str


class Extractor(Protocol):
    name: str

    def extract(
        self, chunks: list[ChunkText], progress: Progress | None = None
    ) -> list[ChunkGraph]:
        """One ChunkGraph per chunk, in order."""
        ...


# ── rules ──────────────────────────────────────────────────────────────────────────────
_KO_SUBJECT = re.compile(r"^\s*(?:은|는|이|가|께서)\s+$")
_KO_OF_AFTER = re.compile(r"^의\s+([^\s.,!?]+)")
_KO_OF_BETWEEN = re.compile(r"^의\s+([^\s.,!?]+)\s+$")
_KO_OF_ONLY = re.compile(r"^의\s*$")
_KO_ENDINGS = re.compile(
    r"(?:이었다|였다|이다|이며|이고|이자|인|이|가|를|을|로|으로|다|와|과|도|는|은|만|라는|이라는)$"
)
_EN_ROLE = re.compile(
    r"^\s*,?\s*(?:who\s+|which\s+)?(?:is|was|became|has been|had been|as)?\s*(?:the|a|an)?\s*"
    r"((?:co-)?[A-Za-z]+(?:\s+[a-z]+)?)\s+(?:of|at|for)\s*$"
)
_EN_VERB = re.compile(r"^\s+((?:[a-z]+\s+){0,2}[a-z]+)\s+$")
_AUXILIARIES = {"is", "was", "were", "are", "has", "had", "have", "been", "be", "also"}
_NOT_RELATIONS = {"and", "or", "the", "a", "an", "with", "to", "in", "on", "at", "of", "but"}


def _korean_noun(word: str) -> str:
    return _KO_ENDINGS.sub("", word) or word


def _role(word: str) -> str:
    word = word.strip()
    if HANGUL.search(word):
        return relation_type(word)
    return relation_type(f"is_{word.replace(' ', '_')}_of")


def pair_relation(text: str, a: Mention, b: Mention) -> tuple[str, bool]:
    """The relation type between mentions a (first) and b, and whether it points b → a."""
    between, after = text[a.end : b.start], text[b.end : b.end + 20]
    if _KO_SUBJECT.match(between) and (m := _KO_OF_AFTER.match(after)):
        return _role(_korean_noun(m.group(1))), False  # A는 B의 X: A is X of B
    if m := _KO_OF_BETWEEN.match(between):
        return _role(_korean_noun(m.group(1))), True  # A의 X B: B is X of A
    if _KO_OF_ONLY.match(between):
        return "has", False  # A의 B
    if m := _EN_ROLE.match(between):
        return _role(m.group(1)), False  # A, CEO of B
    if m := _EN_VERB.match(between):
        words = [w for w in m.group(1).split() if w not in _AUXILIARIES]
        if words and not set(words) <= _NOT_RELATIONS:
            return relation_type("_".join(words)), False  # A founded B
    return DEFAULT_RELATION, False


# ── LLM ────────────────────────────────────────────────────────────────────────────────
class LLMEntity(BaseModel):
    name: str = Field(min_length=1, max_length=300)
    type: str = Field(default="CONCEPT", max_length=40)


class LLMRelation(BaseModel):
    source: str = Field(min_length=1, max_length=300)
    relation: str = Field(min_length=1, max_length=100)
    target: str = Field(min_length=1, max_length=300)


class LLMChunkExtraction(BaseModel):
    index: int = Field(ge=0)
    entities: list[LLMEntity] = Field(default_factory=list, max_length=100)
    relations: list[LLMRelation] = Field(default_factory=list, max_length=200)


class LLMExtraction(BaseModel):
    chunks: list[LLMChunkExtraction]


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema fit for strict structured output: every property required, no extras."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {
            k: _strict(v) for k, v in schema.items() if k not in ("default", "title")
        }
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]  # type: ignore[return-value]
    return schema


SCHEMA = _strict(LLMExtraction.model_json_schema())


# An LLM's entity types in the rule extractor's vocabulary (PERSON, ORGANIZATION, PRODUCT, PLACE,
# EVENT, DATE, CONCEPT); other types are kept as the LLM wrote them (upper-cased).
_TYPE_SYNONYMS = {
    **dict.fromkeys(("ORG", "ORGANISATION", "COMPANY", "INSTITUTION", "NORP"), "ORGANIZATION"),
    **dict.fromkeys(("GPE", "LOC", "LOCATION", "COUNTRY", "CITY", "FAC"), "PLACE"),
    **dict.fromkeys(("PER", "PEOPLE", "HUMAN"), "PERSON"),
    **dict.fromkeys(("TIME", "YEAR"), "DATE"),
}
_ROLE_PREFIX = re.compile(r"^(?:IS|WAS|ARE|WERE|HAS_BEEN|HAD_BEEN)_(?=\w)")


def entity_type(raw: str) -> str:
    """An LLM's entity type in our vocabulary ("ORG" → ORGANIZATION, "GPE" → PLACE)."""
    upper = re.sub(r"\W+", "_", raw.strip().upper()).strip("_")
    return _TYPE_SYNONYMS.get(upper, upper or "CONCEPT")


def canonical_relation(raw: str) -> str:
    """An LLM's relation name in the rule extractor's spelling: "is CEO of" → CEO_OF,
    "founded" → FOUNDED; Korean names ("스승") stay as they are."""
    type_ = relation_type(raw)
    if type_ == DEFAULT_RELATION or HANGUL.search(type_):
        return type_
    return _ROLE_PREFIX.sub("", type_.upper())


def to_chunk_graph(chunk: ChunkText, found: LLMChunkExtraction) -> ChunkGraph:
    """An LLM's names normalised to keys, types and relation names in our vocabulary; relation
    ends it did not list become entities."""
    entities: dict[str, Entity] = {}

    def add(name: str, type_: str = "CONCEPT") -> str | None:
        cleaned, key = clean_name(name), normalize(name)
        if not key or not cleaned:
            return None
        entities.setdefault(
            key,
            Entity(key=key, name=cleaned[:500], type=entity_type(type_), extracted_by=["llm"]),
        )
        return key

    for entity in found.entities:
        add(entity.name, entity.type)
    relations: dict[tuple[str, str, str], Relation] = {}
    sentences = [chunk.text[s:e].strip() for s, e in split_sentences(chunk.text)]
    for rel in found.relations:
        source, target = add(rel.source), add(rel.target)
        if source and target and source != target:
            type_ = canonical_relation(rel.relation)
            ends = (clean_name(rel.source), clean_name(rel.target))
            said = next((s for s in sentences if all(n in s for n in ends)), "")
            relations.setdefault(
                (source, type_, target),
                Relation(
                    source=source,
                    target=target,
                    type=type_,
                    sentence=said[:1000],
                    extracted_by=["llm"],
                ),
            )
    return ChunkGraph(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        entities=list(entities.values()),
        relations=list(relations.values()),
    )


class LLMExtractor:
    name = "llm"

    def __init__(
        self,
        chat: ChatClient,
        cache: ExtractionCache,
        *,
        batch: int = 4,
        concurrency: int = 2,
        timeout_s: float = 60.0,
    ) -> None:
        self._chat = chat
        self._cache = cache
        self._batch = batch
        self._concurrency = concurrency
        self._timeout_s = timeout_s
        self.failures: list[str] = []  # why requests of the last extraction failed

    def _key(self, text: str) -> str:
        model = self._chat.settings.model
        return hashlib.sha256(f"graph-llm-v2\x1f{model}\x1f{text}".encode()).hexdigest()

    def extract(
        self, chunks: list[ChunkText], progress: Progress | None = None
    ) -> list[ChunkGraph]:
        """One graph per chunk; any failed request fails the whole extraction."""
        graphs = self.extract_some(chunks, progress, lenient=False)
        return [g for g in graphs if g is not None]

    def extract_some(
        self, chunks: list[ChunkText], progress: Progress | None = None, lenient: bool = True
    ) -> list[ChunkGraph | None]:
        """One graph per chunk, None for the chunks whose request failed (`lenient`: an
        unreachable, slow or invalid LLM costs those chunks' LLM part, not the document)."""
        self.failures = []
        keys = [self._key(c.text) for c in chunks]
        cached = self._cache.get(list(dict.fromkeys(keys)))
        todo = [i for i, k in enumerate(keys) if k not in cached]
        done = len(chunks) - len(todo)
        if progress:
            progress(done, len(chunks))
        batches = [todo[s : s + self._batch] for s in range(0, len(todo), self._batch)]
        with ThreadPoolExecutor(self._concurrency, thread_name_prefix="graph-llm") as pool:
            asked = pool.map(lambda b: self._try([chunks[i] for i in b], lenient), batches)
            for batch, results in zip(batches, asked, strict=True):
                if results is None:
                    continue
                fresh = {keys[i]: r.model_dump() for i, r in zip(batch, results, strict=True)}
                self._cache.put(fresh)
                cached.update(fresh)
                done += len(batch)
                if progress:
                    progress(done, len(chunks))
        return [
            to_chunk_graph(chunk, LLMChunkExtraction.model_validate(cached[key]))
            if key in cached
            else None
            for chunk, key in zip(chunks, keys, strict=True)
        ]

    def _try(self, chunks: list[ChunkText], lenient: bool) -> list[LLMChunkExtraction] | None:
        try:
            return self._ask(chunks)
        except PlanragError as exc:  # GraphExtractionFailed, LLMUnavailable (timeout, status)
            if not lenient:
                raise
            self.failures.append(exc.message)
            return None

    def _ask(self, chunks: list[ChunkText]) -> list[LLMChunkExtraction]:
        """One request for a few chunks; an invalid reply is retried once with the error."""
        passages = "\n\n".join(f"[{i}] {c.text}" for i, c in enumerate(chunks))
        messages = [
            {"role": "system", "content": render("graph_extract_system")},
            {"role": "user", "content": render("graph_extract_user", passages=passages)},
        ]
        error = ""
        for attempt in range(2):
            if attempt:
                messages.append({"role": "user", "content": render("plan_retry", errors=error)})
            raw = self._chat.complete_json(messages, SCHEMA, "graph_extraction", self._timeout_s)
            try:
                return _by_index(LLMExtraction.model_validate_json(raw), len(chunks))
            except (ValidationError, ValueError) as exc:
                error = str(exc)[:1000]
                messages.append({"role": "assistant", "content": raw[:4000]})
        raise GraphExtractionFailed(f"the LLM's graph extraction was invalid twice: {error[:300]}")


def _by_index(reply: LLMExtraction, count: int) -> list[LLMChunkExtraction]:
    found = {c.index: c for c in reply.chunks}
    if set(found) - set(range(count)):
        raise ValueError(f"chunk indexes must be 0..{count - 1}, got {sorted(found)}")
    return [found.get(i, LLMChunkExtraction(index=i)) for i in range(count)]
