"""Multi-hop answers along the graph: a question's relation chain, read from its relation words
in order ("한빛로보틱스에 투자한 벤처캐피털의 대표는 누구인가?" → INVESTED_IN, then CEO_OF), walked
from the question's entities over typed relations — the entity at the end of the walk is the
answer, and the chunks that state each step are the passages to cite.

Korean chains read left to right (the entity first, "X에 투자한 Y의 대표"); English ones right to
left ("the CEO of the firm that invested in X"). A step goes either way along a relation of its
type, to an entity of the type the question asks for when it says ("대학교" → ORGANIZATION,
"누구" → PERSON). Where a step has several candidates, the one whose sentences hold the
question's other nouns wins ("벤처캐피털": 푸른벤처스 "…설립된 벤처캐피털로" over 동해캐피털, "…
투자회사이다"). The walk needs every step of the chain to find a typed relation: otherwise there
is no path and the reader answers as before.
"""

from __future__ import annotations

from collections.abc import Callable

from planrag.core.types import GraphPath, GraphQuery, GraphTriple
from planrag.executors.context import Candidate
from planrag.stores.graph import Edge, GraphStore
from planrag.text.entities import normalize
from planrag.text.korean import split_sentences
from planrag.text.named_entities import nominal_words, typed_names
from planrag.text.relation_cues import CUE, Step
from planrag.text.relation_patterns import skeleton, typed_relations

MAX_PATHS = 200
_QUESTION_WORDS = frozenset(("누구", "어디", "무엇", "언제", "어느", "몇", "회사", "사람", "곳"))


def class_words(question: str, names: list[str]) -> list[str]:
    """The question's other nouns, which describe a step ("벤처캐피털"), not its names nor its
    relation and question words."""
    inside = " ".join(names)
    words = [
        w
        for w in nominal_words(question)
        if len(w) >= 2 and w not in inside and not CUE.search(w) and w not in _QUESTION_WORDS
    ]
    return list(dict.fromkeys(words))


Texts = Callable[[str], list[str]]  # an entity key → the sentences that mention it
ChunkTexts = Callable[[list[str]], dict[str, str]]  # chunk ids → their texts


def find_path(
    seeds: list[str],
    edges: list[Edge],
    steps: list[Step],
    sentences: Texts | None = None,
    describing: list[str] | None = None,
) -> GraphPath | None:
    """The best walk from a seed entity along `steps` (see the module docstring)."""
    if len(steps) < 2 or not seeds:
        return None
    walks: list[list[Edge]] = []
    for seed in seeds:
        walks += _walks(seed, edges, steps)
    if not walks:
        return None
    words = describing or []

    def fit(walk: list[Edge]) -> tuple[int, int]:
        held = 0
        if sentences is not None and words:
            for edge, here in zip(walk, _ends(walk, seeds), strict=True):
                reached = edge.target if edge.source.key == here else edge.source
                text = " ".join(sentences(reached.key))
                held += sum(1 for w in words if w in text)
        return held, -len(walk)

    best = max(walks, key=fit)
    return _as_path(best, _ends(best, seeds))


def _walks(seed: str, edges: list[Edge], steps: list[Step]) -> list[list[Edge]]:
    walks: list[list[Edge]] = [[]]
    heads = [seed]
    for step in steps:
        grown, new_heads = [], []
        for walk, here in zip(walks, heads, strict=True):
            visited = {seed} | {e.source.key for e in walk} | {e.target.key for e in walk}
            for edge in edges:
                if edge.type not in step.types or here not in (edge.source.key, edge.target.key):
                    continue
                there = edge.target if edge.source.key == here else edge.source
                if there.key in visited or (step.reaches and there.type != step.reaches):
                    continue
                grown.append([*walk, edge])
                new_heads.append(there.key)
        walks, heads = grown[:MAX_PATHS], new_heads[:MAX_PATHS]
        if not walks:
            return []
    return walks


def _ends(walk: list[Edge], seeds: list[str]) -> list[str]:
    """The key each step of the walk starts from."""
    here = next(s for s in seeds if s in (walk[0].source.key, walk[0].target.key))
    starts = []
    for edge in walk:
        starts.append(here)
        here = edge.target.key if edge.source.key == here else edge.source.key
    return starts


def _as_path(walk: list[Edge], starts: list[str]) -> GraphPath:
    names = []
    for edge, here in zip(walk, starts, strict=True):
        start = edge.source if edge.source.key == here else edge.target
        names.append(start.name)
    last = walk[-1]
    answer = last.target if last.source.key == starts[-1] else last.source
    names.append(answer.name)
    return GraphPath(
        entities=names,
        keys=[*starts, answer.key],
        triples=[
            GraphTriple(source=e.source.name, type=e.type, target=e.target.name) for e in walk
        ],
        answer=answer.name,
        answer_type=answer.type,
    )


def sentences_naming(text: str, *names: str) -> list[str]:
    """The sentences of `text` that name every one of `names`."""
    return [text[s:e] for s, e in split_sentences(text) if all(n and n in text[s:e] for n in names)]


class PathFinder:
    """Finds a question's path in one KB's graph and the chunks stating its steps."""

    def __init__(
        self, store: GraphStore, kb_id: str, texts: ChunkTexts | None, queries: list[GraphQuery]
    ) -> None:
        self._store = store
        self._kb = kb_id
        self._texts = texts
        self._queries = queries
        self._chunks: dict[str, list[tuple[str, str]]] = {}  # key → (chunk, doc) mentioning it
        self._text: dict[str, str] = {}

    def find(
        self,
        question: str,
        names: list[str],
        seeds: list[str],
        edges: list[Edge],
        steps: list[Step],
    ) -> GraphPath | None:
        named = {e.source.key: e.source.name for e in edges} | {
            e.target.key: e.target.name for e in edges
        }

        def sentences(key: str) -> list[str]:
            return [
                s
                for chunk, _ in self._mentions(key)
                for s in sentences_naming(self._chunk_text(chunk), named.get(key, key))
            ]

        path = find_path(seeds, edges, steps, sentences, class_words(question, names))
        if path is None:
            return None
        for here, there, a, b, triple in zip(
            path.keys, path.keys[1:], path.entities, path.entities[1:], path.triples, strict=False
        ):
            chunk, doc = self._stating(here, there, a, b, triple.type)
            if not chunk:
                return None  # a step no chunk states (its documents were deleted meanwhile)
            path.chunks.append(chunk)
            path.documents.append(doc)
        return path

    def _mentions(self, key: str) -> list[tuple[str, str]]:
        if key not in self._chunks:
            found = self._store.mentions(self._kb, [key], limit=50)
            self._queries.append(found.query)
            self._chunks[key] = [(m.chunk_id, m.doc_id) for m in found.mentions]
        return self._chunks[key]

    def _chunk_text(self, chunk: str) -> str:
        if chunk not in self._text and self._texts is not None:
            self._text.update(self._texts([chunk]))
        return self._text.get(chunk, "")

    def _stating(self, a_key: str, b_key: str, a: str, b: str, type_: str) -> tuple[str, str]:
        """The chunk that states a step: of those mentioning both ends, one with a sentence the
        relation patterns read as this step, else one with a sentence naming both, else the
        first; ("", "") when none mentions both."""
        both = [m for m in self._mentions(a_key) if m in set(self._mentions(b_key))]
        if not both:
            return "", ""
        naming = [m for m in both if sentences_naming(self._chunk_text(m[0]), a, b)]
        for chunk, doc in naming:
            if any(states(s, a, b, type_) for s in sentences_naming(self._chunk_text(chunk), a, b)):
                return chunk, doc
        return (naming or both)[0]


def on_path(
    path: GraphPath, ranked: list[Candidate], passing: Callable[[list[str]], set[str]]
) -> list[Candidate]:
    """The path's chunks first — the answer's chunk, then the earlier steps' — then the rest
    in their order. Chunks the request's filters exclude stay out."""
    order = list(dict.fromkeys(reversed(list(zip(path.chunks, path.documents, strict=True)))))
    known = {c.chunk_id: c for c in ranked}
    allowed = passing([c for c, _ in order if c not in known]) | set(known)
    order = [(c, d) for c, d in order if c in allowed]
    if not order:
        return ranked
    top = min(max((c.score for c in ranked), default=1.0), 1.0)
    front = []
    for chunk, doc in order:  # at the top score, in this order (sorts are stable)
        base = known.get(chunk) or Candidate(chunk_id=chunk, doc_id=doc, score=top)
        front.append(base.model_copy(update={"score": top}))
    chosen = {c for c, _ in order}
    return front + [c for c in ranked if c.chunk_id not in chosen]


def states(sentence: str, a: str, b: str, type_: str) -> bool:
    """Whether the relation patterns read `sentence` as a `type_` relation between a and b."""
    names = typed_names(sentence)
    keys = [normalize(n.name) for n in names]
    ends = {normalize(a), normalize(b)}
    return any(
        f.type == type_ and {keys[f.head], keys[f.tail]} == ends
        for f in typed_relations(skeleton(sentence, names), names)
    )
