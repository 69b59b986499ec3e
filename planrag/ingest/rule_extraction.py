"""The rule extractor (no LLM, the default): a document's chunks → typed entities and typed
relations, one entity per thing within the document.

Per sentence: typed names (`planrag.text.named_entities`; bracketed names become aliases), typed
relations from patterns (`planrag.text.relation_patterns`), `related_to` between the named
things of a sentence that no pattern relates (not for dates; a sentence with more than five
names links neighbours only). A relation keeps the sentence it came from. Per document: the
names merged into entities (`planrag.ingest.aliases`), each chunk's graph listing the entities
it mentions under their document-wide key and type.

English sentences keep the earlier extractor's names and pair relations (capitalised spans;
"A, CEO of B" → `is_CEO_of`, "A founded B" → `founded`) — the HotpotQA graph was tuned on them
— with the typed patterns' relation where one matches, and dates only where a pattern uses one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from planrag.ingest.aliases import (
    BRACKETED,
    Canonical,
    bracket_aliases,
    company_marks,
    mask_brackets,
    resolve,
    surname_key,
)
from planrag.ingest.extraction import ChunkText, Progress, pair_relation
from planrag.stores.graph import DEFAULT_RELATION, ChunkGraph, Entity, Relation
from planrag.text.entities import HANGUL, Mention, find_mentions, normalize
from planrag.text.korean import split_sentences
from planrag.text.named_entities import (
    CONCEPT,
    DATE,
    MAYBE_PERSON,
    ORG,
    PERSON,
    PLACE,
    PRODUCT,
    Named,
    _english_type,
    dates,
    typed_names,
)
from planrag.text.relation_patterns import research_objects, skeleton, typed_relations

MAX_COOCCURRING = 5
# The types a relation's ends have when the sentence left them untyped.
IMPLIED = {
    "CEO_OF": (PERSON, ORG),
    "CTO_OF": (PERSON, ORG),
    "HEAD_OF": (PERSON, ORG),
    "FOUNDED": (PERSON, ORG),
    "EMPLOYED_BY": (PERSON, ORG),
    "GRADUATED_FROM": (PERSON, ORG),
    "INVESTED_IN": (ORG, ORG),
    "ACQUIRED": (ORG, ORG),
    "PARTNER_OF": (ORG, ORG),
    "PART_OF": (ORG, ORG),
    "MEMBER_OF": (PERSON, ORG),
    "HEADQUARTERED_IN": (ORG, PLACE),
    "LOCATED_IN": (ORG, PLACE),
    "PRODUCES": (ORG, PRODUCT),
    "RELEASED_ON": (PRODUCT, DATE),
    "FOUNDED_IN": (ORG, DATE),
}


@dataclass
class _Sentence:
    chunk: int
    text: str
    names: list[Named]
    relations: list[tuple[int, int, str]] = field(default_factory=list)


class RuleExtractor:
    name = "rule"

    def extract(
        self, chunks: list[ChunkText], progress: Progress | None = None
    ) -> list[ChunkGraph]:
        """One ChunkGraph per chunk, in order; chunks of one document resolved together."""
        by_doc: dict[str, list[int]] = {}
        for i, chunk in enumerate(chunks):
            by_doc.setdefault(chunk.doc_id, []).append(i)
        graphs: list[ChunkGraph | None] = [None] * len(chunks)
        done = 0
        for indexes in by_doc.values():
            for i, graph in zip(
                indexes, self.extract_document([chunks[i] for i in indexes]), strict=True
            ):
                graphs[i] = graph
            done += len(indexes)
            if progress:
                progress(done, len(chunks))
        return [g for g in graphs if g is not None]

    def extract_one(self, chunk: ChunkText) -> ChunkGraph:
        return self.extract_document([chunk])[0]

    def extract_document(self, chunks: list[ChunkText]) -> list[ChunkGraph]:
        sentences: list[_Sentence] = []
        base = 0
        for index, chunk in enumerate(chunks):
            for start, end in split_sentences(chunk.text):
                sentences.append(_read(index, chunk.text[start:end], base + start))
            base += len(chunk.text) + 1
        mentions = [n for s in sentences for n in s.names]
        canon = resolve(mentions)
        return [
            _chunk_graph(chunk, [s for s in sentences if s.chunk == i], canon)
            for i, chunk in enumerate(chunks)
        ]


def _read(chunk: int, sentence: str, offset: int) -> _Sentence:
    if HANGUL.search(sentence):
        return _read_korean(chunk, sentence, offset)
    return _read_english(chunk, sentence, offset)


def _read_korean(chunk: int, sentence: str, offset: int) -> _Sentence:
    masked, brackets = mask_brackets(sentence)
    names = typed_names(masked)
    for named in names:
        named.start += offset
        named.end += offset
    bracket_aliases(names, brackets, offset)
    company_marks(names, sentence, offset)
    joined, shifted = _joined(sentence, masked, names, offset)
    found = _patterns(joined, shifted, offset)
    skel = skeleton(joined, shifted, offset)
    for head, objects in research_objects(skel):
        for obj in objects:
            names.append(Named(obj, CONCEPT, offset + len(sentence), offset + len(sentence)))
            found.append((head, len(names) - 1, "RESEARCHES"))
    _imply_types(names, found)
    out = _Sentence(chunk, sentence, names, found)
    _cooccurring(out, {(h, t) for h, t, _ in found})
    return out


def _joined(sentence: str, masked: str, names: list[Named], offset: int) -> tuple[str, list[Named]]:
    """The masked sentence without the blanks of brackets a particle follows ("박지은(Park
    Ji-eun)은" reads "박지은은", so "<0>은 <1>의 대표이사이다" matches its pattern; "한빛로보틱스
    (주)는" reads "한빛로보틱스는"), and the names shifted to it (copies: the names keep their
    offsets in the sentence)."""
    cuts = []
    starts = {n.start - offset for n in names}
    for m in BRACKETED.finditer(sentence):
        before = len(sentence[: m.start()].rstrip())  # "한빛로보틱스 (주)는": the space goes too
        if (
            before > 0
            and m.end() not in starts  # "(주)대한물류": the mark opens the name
            and m.end() < len(sentence)
            and not sentence[m.end()].isspace()
            and masked[before : m.end()].isspace()
        ):
            cuts.append((before, m.end()))
    if not cuts:
        return masked, names
    froms, tos = [0] + [e for _, e in cuts], [s for s, _ in cuts] + [len(masked)]
    joined = "".join(masked[a:b] for a, b in zip(froms, tos, strict=True))

    def moved(position: int) -> int:
        return position - sum(e - s for s, e in cuts if e <= position - offset)

    shifted = [replace(n, start=moved(n.start), end=moved(n.end)) for n in names]
    return joined, shifted


def _patterns(sentence: str, names: list[Named], offset: int) -> list[tuple[int, int, str]]:
    """Typed relations, read first with unconfirmed person-shaped words left as text (a
    "조종사" must not break "<0>는 <1>에서 조종사로 일했다"), then with them as names."""
    sure = [i for i, n in enumerate(names) if n.type != MAYBE_PERSON]
    sure_names = [names[i] for i in sure]
    found = {
        (sure[f.head], sure[f.tail]): f.type
        for f in typed_relations(skeleton(sentence, sure_names, offset), sure_names)
    }
    if len(sure) < len(names):
        for f in typed_relations(skeleton(sentence, names, offset), names):
            if (f.head, f.tail) not in found and (f.tail, f.head) not in found:
                found[(f.head, f.tail)] = f.type
    return [(h, t, type_) for (h, t), type_ in found.items()]


def _read_english(chunk: int, sentence: str, offset: int) -> _Sentence:
    mentions = find_mentions(sentence)
    names = [Named(m.name, _english_type(m.name), m.start, m.end) for m in mentions]
    spans = sorted(
        [*names, *(d for d in dates(sentence) if _free(d, names))], key=lambda n: n.start
    )
    skel = skeleton(sentence, spans)
    typed = {(f.head, f.tail): f.type for f in typed_relations(skel, spans)}
    relations: list[tuple[int, int, str]] = []
    used: set[int] = set()
    for (h, t), type_ in typed.items():
        relations.append((h, t, type_))
        used.update((h, t))
    index = {id(n): i for i, n in enumerate(spans)}
    pairs = _english_pairs(sentence, mentions)
    for a, b, type_ in pairs:
        h, t = index[id(names[a])], index[id(names[b])]
        if (h, t) not in typed and (t, h) not in typed:
            relations.append((h, t, type_))
    kept = [n for i, n in enumerate(spans) if n.type != DATE or i in used]
    remap = {i: kept.index(n) for i, n in enumerate(spans) if n in kept}
    relations = [(remap[h], remap[t], ty) for h, t, ty in relations if h in remap and t in remap]
    for named in kept:
        named.start += offset
        named.end += offset
    _imply_types(kept, relations)
    return _Sentence(chunk, sentence, kept, relations)


def _free(date: Named, names: list[Named]) -> bool:
    return all(date.end <= n.start or date.start >= n.end for n in names)


def _english_pairs(sentence: str, mentions: list[Mention]) -> list[tuple[int, int, str]]:
    """The earlier extractor's pairs: all pairs of a sentence (neighbours only past six names),
    typed by `pair_relation` between neighbours."""
    out: list[tuple[int, int, str]] = []
    for i, a in enumerate(mentions):
        last = len(mentions) if len(mentions) <= 6 else min(i + 2, len(mentions))
        partners = range(i + 1, last)
        for j in partners:
            b = mentions[j]
            if normalize(a.name) == normalize(b.name):
                continue
            type_, reverse = (
                pair_relation(sentence, a, b) if j == i + 1 else (DEFAULT_RELATION, False)
            )
            out.append((j, i, type_) if reverse else (i, j, type_))
    return out


def _imply_types(names: list[Named], relations: list[tuple[int, int, str]]) -> None:
    for h, t, type_ in relations:
        implied = IMPLIED.get(type_)
        if implied is None:
            continue
        for index, kind in zip((h, t), implied, strict=True):
            if not names[index].type or (names[index].type == MAYBE_PERSON and kind == PERSON):
                names[index].type = kind


def _cooccurring(sentence: _Sentence, typed: set[tuple[int, int]]) -> None:
    """`related_to` between the sentence's named things no pattern relates."""
    things = [
        i
        for i, n in enumerate(sentence.names)
        if n.type not in (DATE, MAYBE_PERSON) and n.end > n.start
    ]
    pairs = (
        [(a, b) for k, a in enumerate(things) for b in things[k + 1 :]]
        if len(things) <= MAX_COOCCURRING
        else list(zip(things, things[1:], strict=False))
    )
    for a, b in pairs:
        if (a, b) not in typed and (b, a) not in typed:
            sentence.relations.append((a, b, DEFAULT_RELATION))


def _key(named: Named, canon: dict[str, Canonical]) -> Canonical | None:
    if named.surname:
        return canon.get(surname_key(named))
    return canon.get(normalize(named.name))


def _chunk_graph(
    chunk: ChunkText, sentences: list[_Sentence], canon: dict[str, Canonical]
) -> ChunkGraph:
    entities: dict[str, Entity] = {}
    relations: dict[tuple[str, str, str], Relation] = {}
    for sentence in sentences:
        keys: list[str | None] = []
        for named in sentence.names:
            entry = _key(named, canon)
            key = normalize(entry.name) if entry else ""
            keys.append(key or None)
            if entry and key and key not in entities:
                aliases = [a for a in dict.fromkeys(entry.aliases) if normalize(a) != key]
                entities[key] = Entity(
                    key=key,
                    name=entry.name[:500],
                    type=entry.type or CONCEPT,
                    aliases=aliases,
                    prefix=entry.prefix,
                )
        for h, t, type_ in sentence.relations:
            source, target = keys[h], keys[t]
            if not source or not target or source == target:
                continue
            if type_ == DEFAULT_RELATION and _typed_pair(relations, source, target):
                continue
            relations.setdefault(
                (source, type_, target),
                Relation(
                    source=source,
                    target=target,
                    type=type_,
                    sentence=sentence.text[:1000],
                    extracted_by=["rule"],
                ),
            )
    return ChunkGraph(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        entities=list(entities.values()),
        relations=list(relations.values()),
    )


def _typed_pair(relations: dict[tuple[str, str, str], Relation], a: str, b: str) -> bool:
    return any({s, t} == {a, b} and type_ != DEFAULT_RELATION for s, type_, t in relations)
