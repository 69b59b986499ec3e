"""Korean text processing with Kiwi: one process-wide analyser, sentence splitting by offsets."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from kiwipiepy import Kiwi

from planrag.text.offsets import trim

_kiwi: Kiwi | None = None
_kiwi_lock = threading.Lock()

# Kiwi splits Korean well but often leaves English sentences joined ("...dog. It was..."). Inside
# each Kiwi sentence we also cut after a Latin word or number ending in . ! ? (and closing
# quotes/brackets) followed by whitespace and a capital, digit, Hangul or opening quote, unless the
# word is a known abbreviation or an initial ("Dr. Smith", "J. K. Rowling"). Korean sentence ends
# are left to Kiwi.
_LATIN_BOUNDARY = re.compile(
    r"(?<=[A-Za-z0-9%\u00c0-\u024f])[.!?][\"'\u201d\u2019)\]]*"
    r"(?=\s+[\"'\u201c\u2018(\[]?[A-Z0-9가-힣])"
)
_ABBREVIATIONS = frozenset(
    {
        *("mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e"),
        *("no", "fig", "figs", "vol", "eq", "al", "inc", "ltd", "co", "corp", "dept", "u.s", "u.k"),
        *("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"),
    }
)
_WORD_BEFORE = re.compile(r"([\w.]+)\.$")
_HANGUL_WORD = re.compile(r"[가-힣]+")
# Long texts go to Kiwi in blocks of at most this many characters, cut at _BLOCK_BREAKS.
_BLOCK_CHARS = 2000
_BLOCK_BREAKS = (
    re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*\s"),
    re.compile(r"\n"),
    re.compile(r"\s"),
)


def get_kiwi() -> Kiwi:
    """The process-wide Kiwi instance, created (and fully loaded) once, on first use.

    Kiwi takes about 0.5 GB and a few seconds to load, so every caller shares this one.
    """
    global _kiwi
    if _kiwi is None:
        with _kiwi_lock:
            if _kiwi is None:
                kiwi = Kiwi()
                kiwi.tokenize("")  # Kiwi initialises lazily: finish loading while holding the lock
                _kiwi = kiwi
    return _kiwi


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the sentences of `text`, in order.

    `text[start:end]` is exactly the sentence, without surrounding whitespace; whitespace between
    sentences belongs to no sentence.
    """
    if not text.strip():
        return []
    blocks = _blocks(text)
    results = get_kiwi().split_into_sents(text[start:end] for start, end in blocks)
    spans: list[tuple[int, int]] = []
    for (block_start, block_end), sentences in zip(blocks, results, strict=True):
        previous_end = block_start
        for sentence in sentences:
            start = max(block_start + sentence.start, previous_end)
            start, end = trim(text, start, min(block_start + sentence.end, block_end))
            if start < end:
                previous_end = end
                spans.extend(_split_latin(text, start, end))
    return spans


def _blocks(text: str) -> list[tuple[int, int]]:
    """`text` cut into blocks of at most `_BLOCK_CHARS` at likely sentence ends.

    Kiwi's time grows faster than linearly with the length of one input (a 286k-character text
    took 9 s against 0.3 s line by line), so long texts are fed to it in blocks.
    """
    blocks: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > _BLOCK_CHARS:
        end = _block_end(text, start, start + _BLOCK_CHARS)
        blocks.append((start, end))
        start = end
    blocks.append((start, len(text)))
    return blocks


def _block_end(text: str, start: int, limit: int) -> int:
    """The last sentence end, else line break, else space in the second half of text[start:limit],
    else `limit`."""
    for pattern in _BLOCK_BREAKS:
        end = None
        for match in pattern.finditer(text, start + (limit - start) // 2, limit):
            end = match.end()
        if end is not None:
            return end
    return limit


def _split_latin(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut one Kiwi sentence further at English sentence ends (see `_LATIN_BOUNDARY`)."""
    spans: list[tuple[int, int]] = []
    current = start
    for match in _LATIN_BOUNDARY.finditer(text, start, end):
        if _is_abbreviation(text, current, match.start() + 1):
            continue
        spans.append((current, match.end()))
        current, _ = trim(text, match.end(), end)
    if current < end:
        spans.append((current, end))
    return spans


def _is_abbreviation(text: str, start: int, period_end: int) -> bool:
    """Whether the period ending at `period_end` closes an abbreviation or an initial."""
    if text[period_end - 1] != ".":
        return False
    found = _WORD_BEFORE.search(text, max(start, period_end - 40), period_end)
    if found is None:
        return False
    word = found.group(1)
    return (len(word) == 1 and word.isupper()) or word.lower() in _ABBREVIATIONS


# Particles whose form follows the word before them: (after a final consonant, after a vowel).
_PARTICLE_PAIRS = (("이", "가"), ("은", "는"), ("을", "를"), ("과", "와"), ("으로", "로"))
_PARTICLE_FORMS = {form: pair for pair in _PARTICLE_PAIRS for form in pair}


def particle_for(word: str, particle: str) -> str:
    """The form of `particle` that follows `word` ("이서준" + 가 → 이, "한지훈" + 는 → 은,
    "푸른벤처스" + 이 → 가); unchanged after a non-Hangul ending or for another particle.
    With ㄹ, 으로 is 로 ("서울로")."""
    pair = _PARTICLE_FORMS.get(particle)
    last = word.rstrip()[-1:] if word.strip() else ""
    if pair is None or not ("가" <= last <= "힣"):
        return particle
    final = (ord(last) - ord("가")) % 28
    if pair == ("으로", "로") and final == 8:  # ㄹ
        return "로"
    return pair[0] if final else pair[1]


def written_compounds(text: str) -> dict[str, tuple[str, ...]]:
    """The compound nouns a text writes as one word, which Kiwi reads as two or more nouns
    ("어떤 연구단지가" → 연구단지: 연구 + 단지), as written → their nouns. A name can hold the
    same compound where Kiwi reads the name whole ("대덕연구단지")."""
    found: dict[str, tuple[str, ...]] = {}
    run: list[tuple[int, int, str]] = []
    for token in [*get_kiwi().tokenize(text), None]:
        joined = (
            token is not None
            and token.tag in ("NNG", "NNP")
            and bool(_HANGUL_WORD.fullmatch(token.form))
        )
        if joined and run and token.start == run[-1][1]:
            run.append((token.start, token.start + token.len, token.form))
            continue
        if len(run) >= 2:
            found[text[run[0][0] : run[-1][1]]] = tuple(form for _, _, form in run)
        run = [(token.start, token.start + token.len, token.form)] if token and joined else []
    return found


@lru_cache(maxsize=4096)
def splits_into(word: str, parts: tuple[str, ...]) -> bool:
    """Whether one of Kiwi's readings of `word` (its best three) holds `parts` in a row: Kiwi
    reads "대덕연구단지" whole, and as 대덕 + 연구 + 단지 second."""
    n = len(parts)
    for tokens, _score in get_kiwi().analyze(word, top_n=3):
        forms = [t.form for t in tokens]
        if any(tuple(forms[i : i + n]) == parts for i in range(len(forms) - n + 1)):
            return True
    return False


_SUBJECT_PARTICLES = ("JX", "JKS")  # 은/는, 이/가
_OPENING_NOUNS = ("NNP", "NNG", "SL", "SN")


@lru_cache(maxsize=4096)
def opening_subject(sentence: str) -> str | None:
    """The noun a Korean sentence opens with as its topic or subject ("박지은은 서울대학교를
    졸업했다" → 박지은; "김도윤 대표는 …" → 김도윤): the first noun, when the sentence's
    opening noun phrase ends in 은/는/이/가. None otherwise ("2017년에 …", "이 보고서는 …")."""
    tokens = get_kiwi().tokenize(sentence)
    if not tokens or tokens[0].tag not in _OPENING_NOUNS[:2]:
        return None
    for token in tokens[1:]:
        if token.tag in _SUBJECT_PARTICLES:
            return tokens[0].form
        if token.tag not in _OPENING_NOUNS:
            return None
    return None
