"""One entity per thing within a document: the names a document gives one thing, merged under
one key with the other names kept as aliases.

- A surname with a title ("김 대표", "최 수석") is the person of that surname the document named
  last before it (or first after it), preferring one who carried the same title.
- ㈜ / (주) / 주식회사 variants are one company: `planrag.text.named_entities` drops ㈜ and
  주식회사 and keeps the full form as an alias; "X(주)", "X (주)" and "(주)X" (`company_marks`)
  type X as an organisation, keep the marked form as an alias, and blank the mark like a bracket
  so "X(주)는 …" reads as "X는 …" for the relation patterns.
- A name followed by another in parentheses ("한빛로보틱스(Hanbit Robotics)", "박지은(Park
  Ji-eun)") — the bracketed name is an alias of the first. A role in brackets
  ("최고기술책임자(CTO)") is no name.
- An organisation's name that begins another organisation's name of the same document (한빛 ⊂
  한빛로보틱스) is that organisation. A person's name that begins another person's name is *not*
  merged: "최민" and "최민호" are two people when both are written out (org_chart.md says so).
- A name the document never typed takes the type the document gave it elsewhere, a product's
  series name ("누리봇" of "누리봇 S2") is a product, and what is still untyped is an
  organisation when it is a Korean proper noun of three or more syllables, else a concept.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from planrag.text.entities import normalize
from planrag.text.name_lexicon import SURNAMES
from planrag.text.named_entities import CONCEPT, MAYBE_PERSON, ORG, PERSON, PRODUCT, Named

# A bracket that may hold another name, or a company mark: "(주)" 주식회사, "(유)" 유한회사.
BRACKETED = re.compile(r"\(([^()]{2,40}|[주유])\)")
COMPANY_MARK = re.compile(r"\([주유]\)|㈜")
_NOT_ALIASES = frozenset(("CTO", "CEO", "CFO", "COO", "주", "유", "구", "현", "전", "가칭", "약칭"))


@dataclass
class Canonical:
    """What the document calls one thing."""

    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    prefix: str = ""  # a person named only by a short form: what the full name begins with


def mask_brackets(sentence: str) -> tuple[str, list[tuple[int, str]]]:
    """The sentence with bracketed text blanked (offsets kept), and (where the bracket opens,
    its text) for the brackets that may hold another name of what precedes them."""
    found: list[tuple[int, str]] = []

    def blank(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        if inner not in _NOT_ALIASES and not re.fullmatch(r"[\d\s.,~%년월일-]+", inner):
            found.append((match.start(), inner))
        return " " * len(match.group(0))

    return BRACKETED.sub(blank, sentence), found


def bracket_aliases(names: list[Named], brackets: list[tuple[int, str]], offset: int) -> None:
    """Record "X(Y)" as Y an alias of X (X the name ending right where the bracket opens)."""
    for opens, inner in brackets:
        for named in names:
            if named.end - offset == opens and normalize(inner) != normalize(named.name):
                named.aliases.append(inner)


def company_marks(names: list[Named], sentence: str, offset: int) -> None:
    """A name a "(주)" / "(유)" mark follows ("대한물류(주)", "대한물류 (주)") or precedes
    ("(주)대한물류") is a company: typed ORGANIZATION unless something else typed it, with the
    marked spelling as an alias (the mark itself is blanked like a bracket, so the name and its
    particle read as one: "대한물류(주)는" → "대한물류는")."""
    for mark in COMPANY_MARK.finditer(sentence):
        if mark.group(0) == "㈜":
            continue  # joined to its company by the word reader (`named_entities`)
        before = len(sentence[: mark.start()].rstrip())
        after = mark.end() + len(sentence[mark.end() :]) - len(sentence[mark.end() :].lstrip())
        for named in names:
            if named.end - offset == before and named.end > named.start:
                spelled = sentence[named.start - offset : mark.end()]  # as written
            elif named.start - offset == after:
                spelled = sentence[mark.start() : named.end - offset]
            else:
                continue
            if named.type in ("", CONCEPT, MAYBE_PERSON):
                named.type = ORG
            if named.type == ORG and spelled not in named.aliases:
                named.aliases.append(spelled)


def resolve(mentions: list[Named]) -> dict[str, Canonical]:
    """Each mention's key → its canonical entity, for one document's mentions in order. A
    surname mention gets the key of its person (or none when the document names nobody
    with that surname: it is dropped)."""
    people = [m for m in mentions if m.type == PERSON and not m.surname]
    votes: dict[str, Counter[str]] = {}
    for m in mentions:
        if not m.surname:
            sure = bool(m.type) and m.type != MAYBE_PERSON
            votes.setdefault(normalize(m.name), Counter())[m.type] += 1 if sure else 0
    canon: dict[str, Canonical] = {}
    for m in mentions:
        if m.surname:
            continue
        key = normalize(m.name)
        typed = [t for t, n in votes[key].most_common() if t and n]
        if m.type == MAYBE_PERSON and PERSON not in typed:
            continue  # shaped like a name, and nothing in the document says it is a person
        entry = canon.setdefault(key, Canonical(m.name, typed[0] if typed else ""))
        entry.aliases.extend(a for a in m.aliases if a not in entry.aliases)
    products = [c.name for c in canon.values() if c.type == PRODUCT]
    for entry in canon.values():
        if not entry.type:
            entry.type = _default_type(entry.name, products)
    _merge_prefixes(canon)
    for entry in canon.values():
        if entry.type == PERSON and _short_name(entry.name, people):
            entry.prefix = entry.name  # "최민": a full name elsewhere in the KB may extend it
    for m in mentions:
        if m.surname:
            person = _person_of(m, people)
            if person is not None:
                canon[surname_key(m)] = canon[normalize(person.name)]
            elif m.title:  # "김 대표" and no 김 in the document: another document may name him
                canon[surname_key(m)] = canon.setdefault(
                    normalize(f"{m.name} {m.title}"),
                    Canonical(f"{m.name} {m.title}", PERSON, prefix=m.name),
                )
    return canon


def _short_name(name: str, people: list[Named]) -> bool:
    """A two-syllable Korean person's name ("최민") no longer name of the document extends."""
    return (
        re.fullmatch(r"[가-힣]{2}", name) is not None
        and name[0] in SURNAMES
        and not any(p.name != name and p.name.startswith(name) for p in people)
    )


def surname_key(mention: Named) -> str:
    return f"\x00{mention.name}\x00{mention.start}"


def _default_type(name: str, products: list[str]) -> str:
    if any(p.startswith(name + " ") or p.startswith(name) and p != name for p in products):
        return PRODUCT
    if re.fullmatch(r"[가-힣]{3,}", name):
        return ORG
    return CONCEPT


def _merge_prefixes(canon: dict[str, Canonical]) -> None:
    """An organisation whose name begins one other organisation's name is that one."""
    orgs = {k: c for k, c in canon.items() if c.type == ORG}
    for key, entry in list(orgs.items()):
        longer = [c for k, c in orgs.items() if k != key and k.startswith(key) and len(key) >= 2]
        if len(longer) == 1 and not re.search(r"(?:대학교|연구소|그룹|은행)$", entry.name):
            target = longer[0]
            if entry.name not in target.aliases:
                target.aliases.append(entry.name)
            target.aliases.extend(a for a in entry.aliases if a not in target.aliases)
            canon[key] = target


def _person_of(mention: Named, people: list[Named]) -> Named | None:
    same = [
        p for p in people if p.name.startswith(mention.name) and len(p.name) > len(mention.name)
    ]
    before = [p for p in same if p.start < mention.start]
    pool = before or same
    titled = [p for p in pool if mention.title and mention.title in p.title]
    pool = titled or pool
    if not pool:
        return None
    return max(pool, key=lambda p: p.start) if before else min(pool, key=lambda p: p.start)
