"""`keyword`: substring matching in the vector store (Milvus `like`), matched chunks ordered and
scored by cosine similarity to the query (spec 001 §3.3).

Terms are the query's content words as written (Kiwi nouns, numbers, Latin words, in their
written, lower-case and capitalised forms); a quoted phrase must match as a whole. A chunk
matches when it contains any term, or every quoted phrase when there are some.
"""

from __future__ import annotations

import re

from planrag.core.filters import And, Contains, Filter, Or
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.registry import BaseExecutor, register
from planrag.text.tokenizer import LexicalTokenizer, tokenizer_for

_QUOTED = re.compile(r"[\"“”'‘’「」『』]([^\"“”'‘’「」『』]{2,200})[\"“”'‘’「」『』]")
MAX_TERMS = 12


def keyword_filter(text: str, tokenizer: LexicalTokenizer) -> Filter | None:
    phrases = [p.strip() for p in _QUOTED.findall(text) if p.strip()]
    if phrases:
        return And(items=[Contains(field="text", value=p) for p in phrases])
    terms: list[str] = []
    for term in tokenizer.surface_terms(text)[:MAX_TERMS]:
        variants = {term, term.lower(), term[:1].upper() + term[1:].lower()}
        terms.extend(sorted(variants))
    if not terms:
        return None
    return Or(items=[Contains(field="text", value=t) for t in dict.fromkeys(terms)])


@register
class KeywordExecutor(BaseExecutor):
    name = "keyword"
    summary = "substring match of the question's content words, ordered by cosine"

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        matched = keyword_filter(ctx.text, tokenizer_for(ctx.kb.user_words))
        if matched is None:
            return []
        where = matched if params.where is None else And(items=[params.where, matched])
        hits = ctx.dense_search(params.top_k, where, params.title_weight)
        return [Candidate.from_vector_hit(h) for h in hits]
