"""Chain questions → multi-step plans, by rule (the heuristic planner's steps).

Korean, by Kiwi morphemes: a noun phrase that is itself a question, followed by 의 —
"누리테크 대표가 졸업한 대학교의 부설 연구소는?" (a relative clause ending in an
entity class: 대학교, 회사, 벤처캐피털, 팀 …), "한빛로보틱스의 CTO의 출신 대학은?"
("A의 B의 C": a named A) — is searched first; its answer replaces it in the rest
("{{s1.answer}}의 부설 연구소는?"). A relative clause naming a person or thing the next
clause is about ("S2 개발을 총괄한 사람이 소속된 팀") splits the same way.
English (`english_chains.py`): "the X of the Y of Z", and a relative clause on a noun ("the
state where X died", "the woman who portrayed X", "the university where X was a professor").
Conservative: the first part must name something (a proper noun), its head must be an entity
class, and the rest must ask for more than the name itself; anything else stays one step.
"""

from __future__ import annotations

import re

from planrag.planner.english_chains import ANSWER, Split, english_chain_shaped, split_english
from planrag.planner.schema import MAX_STEPS, PlanStep, SearchPlan
from planrag.planner.scope import PlanScope
from planrag.text.entities import HANGUL, find_mentions
from planrag.text.korean import get_kiwi
from planrag.text.named_entities import ORG, PERSON, PLACE, PRODUCT, typed_names
from planrag.text.relation_cues import relation_chain

# Heads a relative clause must end in to name one thing the next step can search for.
KO_CLASSES = (
    "회사", "기업", "업체", "대학교", "대학", "학교", "학과", "캐피털", "투자사", "투자회사",
    "제품", "로봇", "팀", "부서", "본부", "연구소", "기관", "도시", "나라", "국가", "고객사",
    "파트너", "공장", "지사", "센터", "창고", "단체", "그룹", "브랜드", "사람", "인물", "창업자",
    "연구원", "교수", "책임자", "담당자", "지역", "구", "시", "군",
)  # fmt: skip
# A one-syllable class ("…있는 구", "…있는 시") is the whole head noun, never a noun's ending.
# Roles of a named thing that name one person or thing ("푸른벤처스 대표", "자율주행팀 팀장").
KO_ROLES = (
    "대표", "대표이사", "사장", "회장", "팀장", "소장", "총장", "본부장", "센터장", "공장장",
    "지사장", "고객사", "창업자", "설립자", "CTO", "CEO", "책임자", "소유주", "모회사", "자회사",
)  # fmt: skip
# "사람의 X" is most often generic ("감염된 사람의 격리 기간"): a person head splits only before
# a further clause ("…총괄한 사람이 소속된 팀의 팀장").
_GENERIC_BEFORE_OF = ("사람", "인물")
_NAME_ONLY = {"이름", "성함", "명칭", "누구", "무엇", "어디"}
_NOUN = ("NNG", "NNP", "SL", "SH")


def chain_steps(question: str, max_steps: int = MAX_STEPS) -> list[PlanStep]:
    """The steps of a chain question, or [] for a one-step question."""
    queries = _parts(" ".join(question.split()), max_steps)
    if len(queries) < 2:
        return []
    return [
        PlanStep(id=f"s{i}", query=q.replace(ANSWER, f"{{{{s{i - 1}.answer}}}}") if i > 1 else q)
        for i, q in enumerate(queries, start=1)
    ]


def _parts(text: str, budget: int) -> list[str]:
    """The chain's queries in order, each part's {answer} the one before's: a split's first
    part and its rest are split again ("누리테크 대표 | {answer}가 졸업한 대학교 | {answer}는
    어느 도시에 있나요?"), within the step budget."""
    split = _split(text) if budget >= 2 else None
    if split is None or (ANSWER in text and ANSWER not in split.first):
        return [text]  # a rest's first part must take the answer before it
    first = _parts(split.first, budget - 1)
    return [*first, *_parts(split.rest, budget - len(first))]


def may_chain(question: str) -> bool:
    """Loosely shaped like a chain (for the adaptive step): a relative clause on a noun or a
    possessive, with a name in it."""
    if chain_steps(question):
        return True
    if not find_mentions(question):
        return False
    if not HANGUL.search(question):
        return english_chain_shaped(question) or bool(re.search(r"\b\w+'s\s+\w+", question))
    tokens = get_kiwi().tokenize(question)
    return any(  # a relative clause on an entity class: "…졸업한 대학교", "…투자한 회사"
        tokens[i].tag in _NOUN and _relative_head(tokens[: i + 1], allow_person=True)
        for i in range(len(tokens))
    )


def with_steps(
    plan: SearchPlan, question: str, scope: PlanScope, max_steps: int, max_searches: int
) -> SearchPlan:
    """The heuristic plan with the chain's steps, when the question is one and they fit the
    budgets; the plan unchanged otherwise."""
    if plan.mode != "rag" or plan.listing or plan.limit or plan.sort != "relevance":
        return plan
    if scope.doc_id:
        return plan
    if plan.graph.enabled and len(relation_chain(question)) >= 2:
        return plan  # the graph walks a chain of typed relations itself (executors/graph_paths)
    steps = chain_steps(question, max_steps)
    kbs = len(plan.knowledge_bases or scope.names()) or 1
    if len(steps) < 2 or len(steps) * kbs > max_searches:
        return plan
    why = f"chain question → {len(steps)} steps"
    rationale = f"{plan.rationale}; {why}" if plan.rationale else why
    return plan.model_copy(update={"version": 2, "steps": steps, "rationale": rationale})


def _split(text: str) -> Split | None:
    if not HANGUL.search(text):  # "Pokémon", "–": English with a non-ASCII letter
        return split_english(text)
    return _split_korean(text)


def _split_korean(text: str) -> Split | None:
    """At the last 의 whose left part is a question of its own, else at a relative clause's
    person or thing that the next clause is about."""
    tokens = get_kiwi().tokenize(text)
    for i in range(len(tokens) - 1, 0, -1):
        if tokens[i].tag != "JKG":
            continue
        left, right = text[: tokens[i].start].strip(), text[tokens[i].start + tokens[i].len :]
        before = tokens[:i]
        if not _asks_more(right) or not (_names_something(left) or _event_clause(before)):
            continue
        if _relative_head(before, allow_person=False) or _named_of(before):
            return Split(first=left, rest="{answer}의 " + right.strip())
    return _split_role(text, tokens) or _split_subject(text, tokens)


def _event_clause(tokens: list) -> bool:  # type: ignore[type-arg]
    """A relative clause naming one thing by an event, though it names nothing: an action
    done to an object, in the past, on a thing ("시리즈 B에 30억 원을 투자한 회사",
    "…에서 대상을 받은 제품"); not a state or a passive ("…에 감염된 사람", "…이상인 기업")."""
    if len(tokens) < 4 or not _relative_head(tokens, allow_person=False):
        return False
    j = len(tokens) - 1
    while j >= 0 and tokens[j].tag in _NOUN:
        j -= 1
    etm, verb = tokens[j], tokens[j - 1]
    active = verb.tag.startswith("VV") or (verb.tag == "XSV" and verb.form == "하")
    past = etm.form in ("ᆫ", "은")
    return active and past and any(t.tag == "JKO" for t in tokens[: j - 1])


def _split_role(text: str, tokens: list) -> Split | None:  # type: ignore[type-arg]
    """ "A B의 C", "A B가 …한 D", "A B는 언제 …": a named A's role B (대표, 팀장, 최대 고객사,
    물류센터장 …) is the bridge; not a person's title ("윤서연 팀장")."""
    for i, token in enumerate(tokens[:-1]):
        if token.tag not in ("JKG", "JKS", "JX") or i < 2:
            continue
        k = _glued_start(tokens, i - 1)  # "물류센터장": the role is the glued nouns' end
        role = text[tokens[k].start : tokens[i - 1].start + tokens[i - 1].len]
        if tokens[i - 1].tag not in _NOUN or not any(role.endswith(r) for r in KO_ROLES):
            continue
        named = tokens[:k] if k > 0 else tokens[: i - 1]
        if not named or not all(t.tag in (*_NOUN, "SN", "JKG", "SSO", "SSC") for t in named):
            continue
        owner = text[: named[-1].start + named[-1].len]
        if not _names_something(owner) and not _compound(named):
            continue
        if ANSWER not in owner and _is_person(owner):
            continue
        left, right = text[: token.start].strip(), text[token.start :]
        rest = right[token.len :]
        if token.tag == "JX" and _asks_name_first(rest):
            continue  # "…팀장은 누구이며 …": the role's own name is asked
        if _asks_more(rest) and (token.tag in ("JKG", "JX") or _has_clause(tokens[i + 1 :])):
            return Split(first=left, rest=ANSWER + right.strip())
    return None


def _asks_name_first(rest: str) -> bool:
    """The rest's first clause asks the name itself ("누구이며 …", "무엇인가요")."""
    tokens = [t for t in get_kiwi().tokenize(rest) if t.tag not in ("SF", "SP")]
    return len(tokens) >= 2 and tokens[0].form in _NAME_ONLY and tokens[1].tag == "VCP"


def _glued_start(tokens: list, end: int) -> int:  # type: ignore[type-arg]
    """The first of the nouns written as one word with tokens[end]."""
    k = end
    while (
        k > 0
        and tokens[k - 1].tag in _NOUN
        and tokens[k - 1].start + tokens[k - 1].len == (tokens[k].start)
    ):
        k -= 1
    return k


def _is_person(text: str) -> bool:
    """The text ends in a person's name ("윤서연"): a role after it is a title."""
    names = [n for n in typed_names(text) if n.type in (ORG, PERSON, PRODUCT, PLACE)]
    return bool(names) and names[-1].type == PERSON


def _names_something(text: str) -> bool:
    """A name Kiwi tags proper or capitalised, or a typed name of the graph extractor (Kiwi
    reads "한빛로보틱스" a common noun before some particles; its ending types it)."""
    if ANSWER in text:  # an earlier step's answer: a name
        return True
    return bool(find_mentions(text)) or any(
        n.type in (ORG, PERSON, PRODUCT, PLACE) for n in typed_names(text)
    )


def _typed_name(tokens: list) -> bool:  # type: ignore[type-arg]
    """A noun among the tokens is a typed name ("한빛로보틱스" → ORGANIZATION)."""
    return any(t.tag in _NOUN and len(t.form) >= 2 and _names_something(t.form) for t in tokens)


def _compound(tokens: list) -> bool:  # type: ignore[type-arg]
    """Three or more nouns written as one word: a name Kiwi does not know ("자율주행팀")."""
    run = 1
    for a, b in zip(tokens, tokens[1:], strict=False):
        glued = a.start + a.len == b.start and a.tag in _NOUN and b.tag in _NOUN
        run = run + 1 if glued else 1
        if run >= 3:
            return True
    return False


def _has_clause(tokens: list) -> bool:  # type: ignore[type-arg]
    """A clause about the subject follows ("…이 박사 학위를 받은 대학교는"), not just a
    predicate ("…는 누구인가요")."""
    return any(t.tag == "ETM" for t in tokens) or any(t.tag == "JKO" for t in tokens)


def _split_subject(text: str, tokens: list) -> Split | None:  # type: ignore[type-arg]
    """A relative clause's thing as the subject or object of a further clause ("…총괄한
    연구원이 속한 팀은", "…있는 구에는 어떤 …")."""
    for i, token in enumerate(tokens):
        if token.tag not in ("JKS", "JKO", "JX", "JKB"):
            continue
        person = token.tag not in ("JX", "JKB")
        if not _relative_head(tokens[:i], allow_person=person):
            continue
        later = tokens[i + 1 :]
        nested = any(  # a further relative clause on a class: "…이 속한 팀"
            t.tag in _NOUN and _relative_head(tokens[: i + 2 + k], allow_person=True)
            for k, t in enumerate(later)
        )
        topic = token.tag == "JX" or (token.tag == "JKB" and later[:1] and later[0].tag == "JX")
        about = bool(topic) and _asks_more(text[token.start + token.len :])
        if nested or about:  # "…졸업한 대학교는 어느 도시에 있나요?"
            left = text[: token.start].strip()
            if _names_something(left):
                return Split(first=left, rest=ANSWER + text[token.start :].strip())
    return None


def _relative_head(tokens: list, allow_person: bool) -> bool:  # type: ignore[type-arg]
    """The tokens end in a relative clause's head noun of an entity class ("졸업한 대학교")."""
    nouns: list[str] = []
    j = len(tokens) - 1
    while j >= 0 and tokens[j].tag in _NOUN:
        nouns.insert(0, tokens[j].form)
        j -= 1
    if not nouns or j < 0 or tokens[j].tag != "ETM":
        return False
    head = "".join(nouns)
    if not allow_person and any(head.endswith(g) for g in _GENERIC_BEFORE_OF):
        return False
    return any(head.endswith(c) if len(c) > 1 else nouns[-1] == c for c in KO_CLASSES)


def _named_of(tokens: list) -> bool:  # type: ignore[type-arg]
    """ "A의 B": a named A, then a noun B (not a date or number)."""
    of = [k for k, t in enumerate(tokens) if t.tag == "JKG"]
    if not of:
        return False
    a, b = tokens[: of[-1]], tokens[of[-1] + 1 :]
    named = any(t.tag in ("NNP", "SL") for t in a) or _typed_name(a)
    # a determiner may open B ("첫 해외 지사"); B ends in a noun
    return named and bool(b) and b[-1].tag in _NOUN and all(t.tag in (*_NOUN, "MM") for t in b)


def _asks_more(right: str) -> bool:
    """The rest asks for something beyond the name ("부설 연구소는 …", "어디에 있나요", not
    "이름은?", "어디인가요?")."""
    tokens = get_kiwi().tokenize(right)
    if any(t.tag in ("VV", "VA") or t.tag.startswith(("VV-", "VA-")) for t in tokens):
        return True
    return any(t.tag in ("NNG", "NNP", "SL") and t.form not in _NAME_ONLY for t in tokens)
