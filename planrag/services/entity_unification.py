"""One entity per thing across a knowledge base: a document's entities joined to the entities
earlier documents gave the graph, by their names and aliases, before they are written.

Extraction merges the names one document gives a thing (`planrag.ingest.aliases`: "X(Y)",
㈜/주식회사, "김 대표"). Across documents the graph store knows each entity's key and its alias
keys (every alias normalised, written with it). A document's entity is an earlier one when
- its key is an alias key of the earlier one ("Hanbit Robotics" after "한빛로보틱스(Hanbit
  Robotics)"), or
- one of its aliases is the earlier one's key or alias key ("한빛로보틱스(Hanbit Robotics)"
  after a document that wrote only "Hanbit Robotics"),
and the two types agree (equal, or one of them CONCEPT: a person and a company of one name stay
two). The document's entity then takes the earlier key — its relations and mentions with it —
and its own name joins the aliases, so the alias list grows with every document.

A person the document named only by a short form (`Entity.prefix`: "최민 수석" when no 최민… is
written out, "김 대표" when no 김 is) is an earlier person when exactly one full name of the KB
extends it and the context agrees: that person is related in the KB to an entity the short form's
chunks also mention (the same organisation, a co-mentioned product). Ambiguous cases never merge:
two full names extending it (최민호, 최민수), the KB or the document already holding the short
name as a person of its own, or no shared context. For a two-syllable name the KB's persons
extending it are found by key; for a bare surname ("김") only the persons around its context are
looked at (the KB's persons are not indexed by surname), and one of that surname there must be
alone. A merged short form joins the alias list; a bare surname nobody completes is dropped.
"""

from __future__ import annotations

from collections.abc import Collection

from planrag.stores.graph import DEFAULT_TYPE, ChunkGraph, Entity, GraphStore, Relation
from planrag.text.entities import normalize
from planrag.text.named_entities import PERSON


def _compatible(a: str, b: str) -> bool:
    return a == b or DEFAULT_TYPE in (a, b)


def with_alias_keys(entity: Entity) -> Entity:
    keys = [k for k in dict.fromkeys(normalize(a) for a in entity.aliases) if k and k != entity.key]
    return entity.model_copy(update={"alias_keys": keys})


def unify(store: GraphStore, kb_id: str, graphs: list[ChunkGraph]) -> list[ChunkGraph]:
    """The chunk graphs with the entities the KB already has under their KB-wide keys."""
    mine: dict[str, Entity] = {}
    for graph in graphs:
        for entity in graph.entities:
            mine.setdefault(entity.key, with_alias_keys(entity))
    if not mine:
        return graphs
    known = _lookup(store, kb_id, {k for e in mine.values() for k in (e.key, *e.alias_keys)})
    remap: dict[str, Entity] = {}
    for key, entity in mine.items():
        if entity.prefix:
            continue  # a short form: completed by `_completed`, with its context
        if any(e.key == key for e in known.get(key, [])):
            continue  # already in the graph under its own key
        for name in (key, *entity.alias_keys):
            owner = next((e for e in known.get(name, []) if _compatible(e.type, entity.type)), None)
            if owner is not None and owner.key != key:
                remap[key] = owner
                break
    renamed = [_renamed(graph, mine, remap) for graph in graphs]
    return _completed(store, kb_id, renamed)


def _lookup(store: GraphStore, kb_id: str, names: set[str]) -> dict[str, list[Entity]]:
    """The KB's entities each name is the key or an alias key of. `match` reports an entity
    once per call: names left unanswered while their entity was reported for another name are
    asked again."""
    known: dict[str, list[Entity]] = {}
    asked = sorted(names)
    while asked:
        found = store.match(kb_id, asked, limit=3, fuzzy=False).matches
        for match in found:
            known.setdefault(match.query, []).append(match.entity)
        answered = {m.query for m in found}
        if not answered:
            break
        asked = [n for n in asked if n not in answered]
    return known


def _renamed(graph: ChunkGraph, mine: dict[str, Entity], remap: dict[str, Entity]) -> ChunkGraph:
    entities: dict[str, Entity] = {}
    for entity in graph.entities:
        ours = mine[entity.key]
        owner = remap.get(entity.key)
        if owner is None:
            entities.setdefault(ours.key, ours)
            continue
        aliases = list(dict.fromkeys([ours.name, *ours.aliases]))
        merged = ours.model_copy(
            update={
                "key": owner.key,
                "name": owner.name,
                "type": owner.type if owner.type != DEFAULT_TYPE else ours.type,
                "aliases": [a for a in aliases if normalize(a) != owner.key],
            }
        )
        merged = with_alias_keys(merged)
        if owner.key in entities:  # two of the chunk's names are one earlier entity
            first = entities[owner.key]
            merged.aliases = list(dict.fromkeys([*first.aliases, *merged.aliases]))
            merged = with_alias_keys(merged)
        entities[owner.key] = merged
    return _remapped(graph, entities, remap)


def _completed(store: GraphStore, kb_id: str, graphs: list[ChunkGraph]) -> list[ChunkGraph]:
    """The short person names completed to the KB's full names (see the module docstring)."""
    shorts = {e.key: e for g in graphs for e in g.entities if e.prefix}
    if not shorts:
        return graphs
    people = {e.key for g in graphs for e in g.entities if e.type == PERSON and not e.prefix}
    remap: dict[str, Entity] = {}
    for key, short in shorts.items():
        if any(p.startswith(short.prefix) for p in people):
            continue  # the document writes a full name of that prefix out: two people
        context = {
            e.key for g in graphs if key in {x.key for x in g.entities} for e in g.entities
        } - set(shorts)
        owner = _completion(store, kb_id, short, context)
        if owner is not None:
            remap[key] = owner
    return [_with_completions(g, remap) for g in graphs]


def _completion(store: GraphStore, kb_id: str, short: Entity, context: set[str]) -> Entity | None:
    """The one KB person extending the short form whom its context is related to, or None."""

    def extends(entity: Entity) -> bool:
        return (
            entity.type == PERSON
            and entity.key.startswith(short.prefix)
            and len(entity.key) > len(short.prefix)
        )

    everywhere: set[str] | None = None  # the KB's persons extending it (not for a bare surname)
    if len(short.prefix) >= 2:
        found = store.match(kb_id, [short.prefix], limit=20).matches
        if any(m.exact and m.entity.type == PERSON for m in found):
            return None  # the KB knows a person of that very name
        everywhere = {m.entity.key for m in found if extends(m.entity)}
        if len(everywhere) != 1:
            return None
    if not context:
        return None
    around: dict[str, Entity] = {}
    for edge in store.expand(kb_id, sorted(context), limit=2000).edges:
        for end in (edge.source, edge.target):
            if extends(end):
                around[end.key] = end
    if len(around) != 1:
        return None
    [owner] = around.values()
    return owner if everywhere is None or owner.key in everywhere else None


def _with_completions(graph: ChunkGraph, remap: dict[str, Entity]) -> ChunkGraph:
    """Short forms renamed to their persons (the short form an alias); uncompleted bare
    surnames ("김 대표") dropped with their relations; other short forms kept as written."""
    entities: dict[str, Entity] = {}
    dropped: set[str] = set()
    for entity in graph.entities:
        owner = remap.get(entity.key)
        if owner is None:
            if entity.prefix and entity.prefix != entity.name:
                dropped.add(entity.key)
            else:
                entities.setdefault(entity.key, entity.model_copy(update={"prefix": ""}))
            continue
        kept = entities.get(owner.key)
        aliases = [*(kept.aliases if kept else []), entity.name, *entity.aliases]
        merged = entity.model_copy(
            update={
                "key": owner.key,
                "name": owner.name,
                "type": PERSON,
                "prefix": "",
                "aliases": [a for a in dict.fromkeys(aliases) if normalize(a) != owner.key],
            }
        )
        entities[owner.key] = with_alias_keys(merged)
    return _remapped(graph, entities, remap, dropped)


def _remapped(
    graph: ChunkGraph,
    entities: dict[str, Entity],
    remap: dict[str, Entity],
    dropped: Collection[str] = (),
) -> ChunkGraph:
    """The chunk's graph with `entities`, its relations moved onto the merged entities (`remap`),
    one per (source, type, target); relations of a dropped entity and self-loops left out."""
    relations: dict[tuple[str, str, str], Relation] = {}
    for rel in graph.relations:
        if rel.source in dropped or rel.target in dropped:
            continue
        source = remap[rel.source].key if rel.source in remap else rel.source
        target = remap[rel.target].key if rel.target in remap else rel.target
        if source != target:
            moved = rel.model_copy(update={"source": source, "target": target})
            relations.setdefault((source, rel.type, target), moved)
    return graph.model_copy(
        update={"entities": list(entities.values()), "relations": list(relations.values())}
    )
