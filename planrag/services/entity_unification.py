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
"""

from __future__ import annotations

from planrag.stores.graph import DEFAULT_TYPE, ChunkGraph, Entity, GraphStore, Relation
from planrag.text.entities import normalize


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
        if any(e.key == key for e in known.get(key, [])):
            continue  # already in the graph under its own key
        for name in (key, *entity.alias_keys):
            owner = next((e for e in known.get(name, []) if _compatible(e.type, entity.type)), None)
            if owner is not None and owner.key != key:
                remap[key] = owner
                break
    return [_renamed(graph, mine, remap) for graph in graphs]


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
    relations: dict[tuple[str, str, str], Relation] = {}
    for rel in graph.relations:
        source = remap[rel.source].key if rel.source in remap else rel.source
        target = remap[rel.target].key if rel.target in remap else rel.target
        if source != target:
            moved = rel.model_copy(update={"source": source, "target": target})
            relations.setdefault((source, rel.type, target), moved)
    return graph.model_copy(
        update={"entities": list(entities.values()), "relations": list(relations.values())}
    )
