"""Entity names: normalisation to keys, and finding name mentions in text — shared by graph
extraction at indexing (rules and LLM) and by query analysis, so a question's "일론 머스크가"
and a document's "일론 머스크는" meet at one key, `일론_머스크`.

Mentions: Korean proper nouns from Kiwi (NNP runs, with glued nouns and Latin letters:
"SK하이닉스", "서울특별시", "일론 머스크"; particles are separate morphemes, so "일론 머스크가" →
"일론 머스크"), and capitalised Latin spans ("Elon Musk", "Bank of America", "SpaceX", "HBM") —
except a lone nationality, language, faith, month or weekday ("an American actor", "in May"),
which would tie together every passage that shares one.

Entities of a question for the NER filter (`extract_entities`): Kiwi proper nouns (adjacent ones
also joined), with titles such as 씨, 님, 배우, 감독 stripped ("오영수 배우", "이정재씨" → 오영수,
이정재), quoted phrases, and Latin proper nouns (capitalised words not opening the question,
acronyms).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from planrag.text.korean import get_kiwi
from planrag.text.relation_cues import relation_chain

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# Trailing Korean particles (and copula endings) a name may carry when it did not come through
# Kiwi (LLM output, a user's words). Longest first.
PARTICLES = sorted(
    {
        *("이", "가", "은", "는", "을", "를", "의", "에", "와", "과", "도", "만", "로", "으로"),
        *("에서", "에게", "한테", "께서", "까지", "부터", "이나", "이란", "이라는", "라는", "란"),
        *("이다", "였다", "이었다", "이며", "이고", "인", "이랑", "랑", "하고", "보다", "처럼"),
    },
    key=len,
    reverse=True,
)
# Words that start English sentences capitalised without being names.
_STOP_WORDS = """a an the this that these those it its in on at of for to from by with and or
    but if when
    while after before as is are was were be been he she they we you i his her their our my your
    who what which where why how there here then so not no yes also however although because
    during since until into about over under between each every some many most all any both
    one two three first second mr mrs ms dr prof sir st
    born following originally formerly later other another several such according despite
    within without through throughout among along upon unlike together"""
LATIN_STOP = frozenset(_STOP_WORDS.split())
# Roles are relations ("CEO of SpaceX"), not names: they never start a name.
_ROLE_WORDS = """ceo cto cfo coo chairman chairwoman president founder cofounder co-founder
    director head minister king queen prince princess member captain professor author editor"""
ROLES = frozenset(_ROLE_WORDS.split())
# Capitalised words that are not names of one thing: nationalities and languages ("an American
# director"), faiths, months and weekdays, "New", "Inc". Alone they are not entities — as
# co-occurrence edges they would link every passage sharing a nationality or a month; inside a
# name they stay ("American Airlines", "British Museum", "January Jones", "New York").
_COMMON_CAPITALISED = """
    afghan african albanian algerian american angolan arab arabic argentine argentinian armenian
    asian australian austrian azerbaijani bangladeshi belarusian belgian bengali bolivian bosnian
    brazilian british bulgarian burmese cambodian cameroonian canadian caribbean catalan chilean
    chinese colombian congolese croatian cuban cypriot czech danish dutch ecuadorian egyptian
    english estonian ethiopian european filipino finnish flemish french georgian german ghanaian
    greek guatemalan haitian hawaiian hebrew hindi honduran hungarian icelandic indian indonesian
    iranian iraqi irish israeli italian jamaican japanese jordanian kazakh kenyan korean kurdish
    latin latvian lebanese libyan lithuanian malay malaysian maltese mexican moldovan mongolian
    moroccan nepalese nigerian nordic norwegian pakistani palestinian panamanian persian peruvian
    polish portuguese punjabi romanian russian rwandan samoan saudi scandinavian scottish serbian
    sicilian singaporean slovak slovenian somali spanish sri sudanese swedish swiss syrian
    taiwanese tamil thai tibetan tunisian turkish ugandan ukrainian uruguayan uzbek venezuelan
    vietnamese welsh yemeni zambian zimbabwean anglo
    christian catholic protestant jewish muslim islamic buddhist hindu orthodox
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    new old inc ltd llc corp co"""
COMMON_CAPITALISED = frozenset(_COMMON_CAPITALISED.split())
CONNECTORS = ("of", "the", "de", "du", "la", "le", "von", "van", "der", "den", "&", "for")
_LATIN_WORD = r"(?:(?:[A-Z]\.){2,}|[A-Z][A-Za-z0-9'’.&-]*[A-Za-z0-9]|[A-Z]|[a-z]+[A-Z][A-Za-z0-9]*)"
_GAP = r"[^\S\n]+"  # spaces within a line: a name never runs over a line break (title, text)
_LATIN_SPAN = re.compile(
    rf"(?<![A-Za-z0-9]){_LATIN_WORD}(?:(?:{_GAP}(?:{'|'.join(CONNECTORS)}))*{_GAP}{_LATIN_WORD})*"
)
_EDGE_PUNCT = "\"'“”‘’«»()[]{}<>.,;:!?·-–—/\\|`~*#"


def strip_particles(name: str) -> str:
    """A trailing particle after a Hangul word of ≥ 2 syllables: "일론 머스크가" → "일론 머스크" —
    when Kiwi reads it as a particle: "박지은" keeps its 은, "한지훈이다" loses 이다."""
    for particle in PARTICLES:
        if name.endswith(particle) and len(name) - len(particle) >= 2:
            stem = name[: -len(particle)]
            korean = HANGUL.match(stem[-1]) and len(stem.split()[-1]) >= 2
            code = stem[-1].isascii() and stem[-1].isalnum() and HANGUL.search(stem)
            if (korean or code) and _ends_in_particle(name):
                return stem
    return name


@lru_cache(maxsize=65536)
def _ends_in_particle(name: str) -> bool:
    """Whether Kiwi reads the end of `name` as a particle, copula or ending, not as its noun."""
    tokens = get_kiwi().tokenize(name)
    if not tokens:
        return False
    last = tokens[-1]
    if last.start + last.len < len(name.rstrip()) - 1:
        return True  # Kiwi's offsets did not reach the end: keep the earlier rule
    return last.tag[0] in "JE" or last.tag in ("VCP", "XSV", "XSA")


def clean_name(name: str) -> str:
    """A name as displayed: NFKC, single spaces, no edge punctuation, no trailing particle."""
    text = " ".join(unicodedata.normalize("NFKC", name).split()).strip(_EDGE_PUNCT + " ")
    return strip_particles(text).strip(_EDGE_PUNCT + " ")


def normalize(name: str) -> str:
    """The key an entity is stored and matched under: the cleaned name, case-folded, leading
    English article dropped, dots of acronyms removed ("U.S." = "US"), spaces and dashes as `_`.
    Empty when nothing is left."""
    text = clean_name(name).casefold()
    text = re.sub(r"^(?:the|a|an)\s+", "", text)
    text = re.sub(r"\b(\w)\.", r"\1", text).replace("&", " and ")
    text = re.sub(r"[\s\-–—_/]+", "_", text).strip("_")
    return text[:200]


_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")


def without_qualifier(title: str) -> str:
    """A title without its trailing disambiguation in brackets: "Kiss and Tell (1945 film)" is
    about "Kiss and Tell"."""
    return _QUALIFIER.sub("", title)


@dataclass(frozen=True)
class Mention:
    name: str
    start: int
    end: int


def _common(word: str) -> bool:
    """A nationality, language, faith, month or weekday ("Americans", "American-born" too)."""
    folded = word.casefold().strip(".'’")
    folded = folded.split("-")[0] if "-" in folded else folded
    return folded in COMMON_CAPITALISED or (
        folded.endswith("s") and folded[:-1] in COMMON_CAPITALISED
    )


def _latin_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _LATIN_SPAN.finditer(text):
        words = [
            (w.start() + match.start(), w.end() + match.start(), w.group(0))
            for w in re.finditer(r"\S+", match.group(0))
        ]
        while words and words[0][2].casefold() in LATIN_STOP | ROLES | set(CONNECTORS):
            words = words[1:]  # "The Beatles" keeps "Beatles", "CEO of SpaceX" keeps "SpaceX"
        while words and words[-1][2].casefold() in CONNECTORS:
            words = words[:-1]
        if not words or (len(words) == 1 and _common(words[0][2])):
            continue
        start, end = words[0][0], words[-1][1]
        while end > start and text[end - 1] in ".'’":
            end -= 1
        if end - start >= 2:
            spans.append((start, end))
    return spans


def _hangul_spans(text: str) -> list[tuple[int, int]]:
    """Runs of Kiwi proper nouns, with nouns and Latin letters glued to them (no space), and
    proper nouns one space apart ("일론 머스크")."""
    spans: list[list[int]] = []
    run: list[int] | None = None
    has_proper = False
    for token in get_kiwi().tokenize(text):
        start, end = token.start, token.start + token.len
        glued = run is not None and start == run[1] and token.tag in ("NNP", "NNG", "SL", "SN")
        spaced = (
            run is not None and token.tag == "NNP" and text[run[1] : start] == " " and has_proper
        )
        if glued or spaced:
            assert run is not None
            run[1] = end
            has_proper = has_proper or token.tag == "NNP"
            continue
        if run is not None and has_proper:
            spans.append(run)
        run, has_proper = None, False
        if token.tag in ("NNP", "NNG", "SL"):
            run, has_proper = [start, end], token.tag == "NNP"
    if run is not None and has_proper:
        spans.append(run)
    return [(s, e) for s, e in spans]


def find_mentions(text: str) -> list[Mention]:
    """Names mentioned in `text`, in order, overlapping spans merged."""
    spans = _latin_spans(text)
    if HANGUL.search(text):
        spans += _hangul_spans(text)
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:  # overlapping or glued ("SK" + "하이닉스")
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    mentions = []
    for start, end in merged:
        name = clean_name(text[start:end])
        if name and normalize(name) and not name.isdigit():
            mentions.append(Mention(name=name, start=start, end=end))
    return mentions


# ---------------------------------------------------------------- entities of a question

TITLES = (
    "씨",
    "님",
    "배우",
    "감독",
    "선수",
    "교수",
    "박사",
    "작가",
    "가수",
    "대표",
    "회장",
    "사장",
    "의원",
    "장관",
    "대통령",
    "기자",
)
_TITLE_SUFFIX = re.compile(r"(?:\s*(?:" + "|".join(TITLES) + r"))+님?$")
_QUOTED = re.compile(r"[\"“”'‘’「」『』]([^\"“”'‘’「」『』]{2,60})[\"“”'‘’「」『』]")
_LATIN_PROPER = re.compile(
    r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z0-9&.-]+(?:\s+[A-Z][a-zA-Z0-9&.-]+)*)"
)
_ACRONYM = re.compile(r"\b[A-Z]{2,}[0-9]*\b")


def _proper_nouns(question: str) -> list[str]:
    names: list[str] = []
    run: list[str] = []
    run_end = -1
    for token in get_kiwi().tokenize(question):
        name = _TITLE_SUFFIX.sub("", token.form) if token.tag == "NNP" else ""
        if len(name) < 2 or name in TITLES:
            run, run_end = [], -1
            continue
        names.append(name)
        run = [*run, name] if token.start - run_end <= 1 else [name]
        run_end = token.start + token.len
        if len(run) > 1:
            names.append(" ".join(run))
    return names


def extract_entities(question: str) -> list[str]:
    found = _proper_nouns(question)
    found += [q.strip() for q in _QUOTED.findall(question)]
    found += [m.strip() for m in _LATIN_PROPER.findall(question.strip())]
    found += _ACRONYM.findall(question)
    return list(dict.fromkeys(e for e in found if len(e) >= 2))


# ── questions ──────────────────────────────────────────────────────────────────────────
_KO_CHAIN = re.compile(r"\S+의\s+\S+의\s+\S+")
_KO_RELATIVE = re.compile(r"\S+[이가]\s+\S+인\s+\S+")
_EN_NESTED = re.compile(
    r"\b(?:the|a|an)\s+\w+\s+(?:that|which|who|whose)\s+\w+"  # the company that makes X
    r"|\bof the \w+ (?:of|that|which|who)\b|\b\w+'s \w+'s\b",  # the CEO of the maker of X
    re.IGNORECASE,
)
# Words that ask about a relation between named things.
_RELATION_WORDS = re.compile(
    r"CEO|CTO|대표|회장|사장|창업|설립|창립|소속|자회사|모회사|계열사|스승|제자|부모|자녀|아들|딸|"
    r"남편|아내|배우자|형제|관계|연관|감독|저자|작가|출연|소유|인수|"
    r"\b(?:found(?:ed|er|ing)?|co-founded|owns?|owned|acquired|subsidiary|parent|married|spouse|"
    r"son|daughter|father|mother|brother|sister|directed|director|wrote|author|starred|member|"
    r"works? for|employ\w*|located|headquarter\w*|relat\w+)\b",
    re.IGNORECASE,
)


def question_pattern(question: str) -> str | None:
    """The multi-hop pattern of a question: "A의 B의 C", "A가 B인 C", "nested", or None."""
    for name, regex in (
        ("A의 B의 C", _KO_CHAIN),
        ("A가 B인 C", _KO_RELATIVE),
        ("nested", _EN_NESTED),
    ):
        if regex.search(question):
            return name
    return None


def is_relational(question: str) -> bool:
    """Whether a question asks about named things' relations, or chains several steps (two
    relation words or more: "X에 투자한 회사의 대표")."""
    if question_pattern(question) or len(relation_chain(question)) >= 2:
        return True
    return bool(find_mentions(question)) and bool(_RELATION_WORDS.search(question))
