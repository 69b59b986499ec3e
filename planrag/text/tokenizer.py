"""Lexical tokens for BM25 and keyword matching: Kiwi content morphemes for Korean, stemmed and
stop-filtered lower-case words for Latin script.

`bm25s.tokenize` drops one-character tokens (Korean nouns such as 집, 차, 빵) and does not know
Korean morphology; Kiwi separates particles ("메타버스는" → 메타버스 + 는) so the noun matches.
User dictionaries keep proper nouns and compounds whole: a global file in Kiwi's `user_dic.txt`
format (word<TAB>tag[<TAB>score]) loaded into the shared Kiwi, and per-knowledge-base word lists
applied as pre-tokenised spans, so knowledge bases never affect one another.

BM25 indexes `index_tokens`: the same nouns plus their compounds both ways (as Lucene's Nori
does in its "mixed" mode), so a compound matches however a text writes it: two nouns written
together also count joined (코로나 + 바이러스 → 코로나바이러스), a noun Kiwi kept as several
words also counts as each word (코로나바이러스 감염증 → 코로나바이러스, 감염증).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import Stemmer

from planrag.core.errors import InvalidInput
from planrag.text.english_verbs import base_form
from planrag.text.korean import get_kiwi

# Content morphemes kept: nouns (common, proper, numerals), roots, Hanja, numbers and Latin
# words. Verb and adjective stems were measured and left out: on both Korean evaluation sets
# they lowered nDCG@10 (0.690 → 0.664 and 0.973 → 0.971; docs/benchmarks.md).
_NOUN_TAGS = frozenset({"NNG", "NNP", "NR", "XR", "SH", "SN"})
_SPACE = re.compile(r"\s+")
_LATIN_WORD = re.compile(r"[a-z0-9]+")
_LATIN_SURFACE = re.compile(r"[A-Za-z][A-Za-z0-9]+|[0-9]+")
_NEEDS_KIWI = re.compile(r"[\uac00-\ud7a3\u3131-\u318e\u4e00-\u9fff]")
# A short, conventional English stop list (bm25s/Lucene style); Korean function words are
# already removed by part of speech.
ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "such",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "do",
        "does",
        "did",
        "been",
        "being",
        "than",
        "too",
        "very",
        "can",
        "could",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "any",
        "because",
        "before",
        "below",
        "between",
        "both",
        "during",
        "each",
        "few",
        "further",
        "here",
        "how",
        "more",
        "most",
        "other",
        "out",
        "over",
        "own",
        "same",
        "some",
        "through",
        "under",
        "until",
        "up",
        "while",
    ]
)

_dictionary_lock = threading.Lock()
_loaded_dictionaries: set[Path] = set()


def load_user_dictionary(path: Path) -> int:
    """Load a Kiwi user dictionary file into the shared Kiwi once; returns words added."""
    resolved = path.resolve()
    with _dictionary_lock:
        if resolved in _loaded_dictionaries:
            return 0
        if not resolved.is_file():
            raise InvalidInput(f"user dictionary not found: {resolved} (PLANRAG_BM25__USER_DICT)")
        added = int(get_kiwi().load_user_dictionary(str(resolved)))
        _loaded_dictionaries.add(resolved)
        return added


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def _user_word_pattern(words: Sequence[str]) -> re.Pattern[str] | None:
    cleaned = sorted({w.strip() for w in words if w.strip()}, key=len, reverse=True)
    if not cleaned:
        return None
    return re.compile("|".join(re.escape(w) for w in cleaned), flags=re.IGNORECASE)


def tokenizer_for(user_words: Sequence[str] = ()) -> LexicalTokenizer:
    """The process's tokenizer for this set of user words, built once and shared (it holds no
    state but its compiled user-word pattern; Kiwi itself is process-wide)."""
    return _tokenizer(tuple(sorted({w.strip() for w in user_words if w.strip()})))


def tokenize_texts(user_words: tuple[str, ...], texts: list[str]) -> list[list[str]]:
    """BM25 terms of `texts` for a KB's user words (a top-level function, so that the
    indexing helper process can run it: planrag.core.child_process)."""
    return tokenizer_for(user_words).index_tokens_many(texts)


@lru_cache(maxsize=256)
def _tokenizer(user_words: tuple[str, ...]) -> LexicalTokenizer:
    return LexicalTokenizer(user_words)


class LexicalTokenizer:
    """Text → lexical tokens, for one set of user words. Get one with `tokenizer_for`.

    Latin words and numbers come from a plain regex (Kiwi splits long Latin runs oddly, e.g.
    "docume nts"), lower-cased, stop-filtered and stemmed; Korean content morphemes come from
    Kiwi, which only sees texts that contain Hangul or Hanja.
    """

    def __init__(self, user_words: Sequence[str] = ()) -> None:
        self.user_words = tuple(user_words)
        self._pattern = _user_word_pattern(user_words)

    def tokenize(self, text: str) -> list[str]:
        return self.tokenize_many([text])[0]

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Content words: what a text is about (term overlap, keyword matching); an English
        irregular verb counts as its base form ("found" as "find"), unlike in `index_tokens`
        (an index built before stays valid)."""
        return self._tokens(list(texts), compounds=False)

    def index_tokens(self, text: str) -> list[str]:
        return self.index_tokens_many([text])[0]

    def index_tokens_many(self, texts: Iterable[str]) -> list[list[str]]:
        """BM25 terms: the content words plus their compounds joined and split."""
        return self._tokens(list(texts), compounds=True)

    def _tokens(self, items: list[str], compounds: bool) -> list[list[str]]:
        korean = [i for i, text in enumerate(items) if _NEEDS_KIWI.search(text)]
        analysed = self._analyse([items[i] for i in korean], compounds)
        morphemes = dict(zip(korean, analysed, strict=True))
        base = not compounds  # content words fold irregular verbs; the index's terms do not
        return [
            _latin_tokens(text, base) + self._user_latin(text) + morphemes.get(i, [])
            for i, text in enumerate(items)
        ]

    def _analyse(self, texts: list[str], compounds: bool) -> list[list[str]]:
        if not texts:
            return []
        kiwi = get_kiwi()
        if self._pattern is None:
            analysed = kiwi.tokenize(texts)
        else:
            analysed = [kiwi.tokenize(t, pretokenized=self._spans(t)) for t in texts]
        if not compounds:
            return [self._keep(tokens) for tokens in analysed]
        return [self._keep(tokens) + _compounds(tokens) for tokens in analysed]

    def _user_latin(self, text: str) -> list[str]:
        """Latin user words of several words ("New York") also count as one token."""
        if self._pattern is None:
            return []
        found = (m.group(0) for m in self._pattern.finditer(text) if m.group(0).isascii())
        return [_joined_latin(word) for word in found if len(word.split()) > 1]

    def surface_terms(self, text: str) -> list[str]:
        """Content words as written in `text` (nouns, numbers, Latin words), for substring match."""
        terms = [w for w in _LATIN_SURFACE.findall(text) if w.lower() not in ENGLISH_STOPWORDS]
        if _NEEDS_KIWI.search(text):
            spans = self._spans(text) if self._pattern is not None else None
            for token in get_kiwi().tokenize(text, pretokenized=spans):
                if token.tag in _NOUN_TAGS and token.tag != "SN":
                    terms.append(text[token.start : token.start + token.len])
        return list(dict.fromkeys(t for t in terms if len(t) >= 2 or not t.isascii()))

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        assert self._pattern is not None
        return [(m.start(), m.end(), "NNP") for m in self._pattern.finditer(text)]

    @staticmethod
    def _keep(tokens: Iterable[object]) -> list[str]:
        return [_SPACE.sub("_", t.form) for t in _nouns(tokens)]  # tokens never hold whitespace


def _nouns(tokens: Iterable[object]) -> list[Any]:
    return [
        t
        for t in tokens
        if t.tag in _NOUN_TAGS and t.tag != "SN" and not t.form.isascii()  # type: ignore[attr-defined]
    ]


def _compounds(tokens: Iterable[object]) -> list[str]:
    """Compound terms of one analysed text: adjacent nouns written together, joined; the words
    of a noun Kiwi (or a user word) kept whole across spaces."""
    nouns = _nouns(tokens)
    out = [
        a.form + b.form
        for a, b in zip(nouns, nouns[1:], strict=False)
        if a.start + a.len == b.start and " " not in a.form + b.form
    ]
    for noun in nouns:
        words = noun.form.split()
        if len(words) > 1:
            out.extend(w for w in words if not w.isascii())
    return out


def _latin_tokens(text: str, base: bool = False) -> list[str]:
    """Stemmed Latin words; with `base`, an irregular verb's past or participle is its base form
    first ("found" → "find", `english_verbs.py`), as the stemmer folds only regular ones."""
    stem = _stemmer().stemWord
    return [
        stem(base_form(w) if base else w)
        for w in _LATIN_WORD.findall(text.lower())
        if w not in ENGLISH_STOPWORDS and (len(w) > 1 or w.isdigit())
    ]


def _joined_latin(word: str) -> str:
    return "_".join(_latin_tokens(word)) or word.lower()
