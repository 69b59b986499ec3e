"""Lexical tokens for BM25 and keyword matching: Kiwi content morphemes for Korean, stemmed and
stop-filtered lower-case words for Latin script.

`bm25s.tokenize` drops one-character tokens (Korean nouns such as 집, 차, 빵) and does not know
Korean morphology; Kiwi separates particles ("메타버스는" → 메타버스 + 는) so the noun matches.
User dictionaries keep proper nouns and compounds whole: a global file in Kiwi's `user_dic.txt`
format (word<TAB>tag[<TAB>score]) loaded into the shared Kiwi, and per-knowledge-base word lists
applied as pre-tokenised spans, so knowledge bases never affect one another.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import Stemmer

from planrag.core.errors import InvalidInput
from planrag.ingest.korean import get_kiwi

# Content morphemes kept: nouns (common, proper, numerals), roots, Hanja, numbers and Latin
# words. Verb and adjective stems were measured and left out: on both Korean evaluation sets
# they lowered nDCG@10 (0.690 → 0.664 and 0.973 → 0.971; docs/benchmarks.md).
_NOUN_TAGS = frozenset({"NNG", "NNP", "NR", "XR", "SH", "SN"})
_WEB_TAGS = frozenset({"W_URL", "W_EMAIL", "W_HASHTAG", "W_SERIAL"})
_SPACE = re.compile(r"\s+")
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
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


class LexicalTokenizer:
    """Text → lexical tokens. One instance per set of user words (cheap: Kiwi is shared)."""

    def __init__(self, user_words: Sequence[str] = ()) -> None:
        self.user_words = tuple(user_words)
        self._pattern = _user_word_pattern(user_words)

    def tokenize(self, text: str) -> list[str]:
        return self.tokenize_many([text])[0]

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        items = list(texts)
        if not items:
            return []
        kiwi = get_kiwi()
        if self._pattern is None:
            analysed = kiwi.tokenize(items)
        else:
            analysed = [kiwi.tokenize(t, pretokenized=self._spans(t)) for t in items]
        return [self._keep(tokens) for tokens in analysed]

    def surface_terms(self, text: str) -> list[str]:
        """Content words as written in `text` (nouns, numbers, Latin words), for substring match."""
        kiwi = get_kiwi()
        spans = self._spans(text) if self._pattern is not None else None
        terms: list[str] = []
        for token in kiwi.tokenize(text, pretokenized=spans):
            surface = text[token.start : token.start + token.len]
            if token.tag in _NOUN_TAGS or token.tag == "SL":
                if token.tag == "SL" and (surface.lower() in ENGLISH_STOPWORDS or len(surface) < 2):
                    continue
                terms.append(surface)
        return list(dict.fromkeys(terms))

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        assert self._pattern is not None
        return [(m.start(), m.end(), "NNP") for m in self._pattern.finditer(text)]

    def _keep(self, tokens: Iterable[object]) -> list[str]:
        kept: list[str] = []
        stem = _stemmer().stemWord
        for token in tokens:
            form, tag = token.form, token.tag  # type: ignore[attr-defined]
            if tag == "SL" or (tag in _WEB_TAGS):
                kept.extend(stem(w) for w in _latin_words(form))
            elif tag in _NOUN_TAGS:
                kept.append(_lower_latin(form, stem))
        # Tokens never contain whitespace (they are stored space-joined).
        return [_SPACE.sub("_", t) for t in kept if t]


def _latin_words(form: str) -> list[str]:
    return [w for w in _LATIN_WORD.findall(form.lower()) if w not in ENGLISH_STOPWORDS]


def _lower_latin(form: str, stem) -> str:  # type: ignore[no-untyped-def]
    """User-dictionary entries may be Latin ("ChatGPT"): compare them case-insensitively."""
    if form.isascii():
        words = _latin_words(form)
        return "_".join(stem(w) for w in words)
    return form
