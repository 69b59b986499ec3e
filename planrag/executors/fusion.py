"""Leg-aware fusion for hybrid retrieval: weights calibrated per knowledge base and script,
bounded, and chosen per query.

Each knowledge base is calibrated without labels, per script (hangul, latin), from a sample of
its chunks chosen by content (the same documents give the same sample, whatever their ids):
each chunk gives a pseudo-query and the rest of the chunk as its target, and both legs' reciprocal
ranks are measured (`calibration.measure`). The dense weight moves from an even split only as far
as the evidence carries it, and stays within [FLOOR, 1 − FLOOR] unless one leg is clearly far
weaker (`calibration.weights_for`). A query written in a script the KB barely contains (an
English question over Korean documents) is led by the dense leg: BM25 cannot match its words.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from planrag.core.types import (
    CrossFloors,
    FusionCalibration,
    FusionInfo,
    KnowledgeBase,
    LegFeedback,
    LegQuality,
)
from planrag.executors.calibration import (
    MAX_CHARS,
    PairKind,
    Weighting,
    cross_base,
    embed_pairs,
    evidence_floors,
    measure,
    pair_of,
    script_bases,
    script_of,
    weights_for,
    with_feedback,
)
from planrag.executors.calibration_questions import QuestionWriter
from planrag.executors.context import QueryContext
from planrag.executors.sentence_floors import sentence_floors
from planrag.llm.e5 import is_e5
from planrag.llm.embedders import Embedder, EmbedderRegistry
from planrag.text.tokenizer import tokenizer_for

log = logging.getLogger(__name__)

Sampler = Callable[[str, int, int], list[tuple[str, str]]]  # (kb_id, n, seed) → (chunk_id, text)
Saver = Callable[[str, FusionCalibration], None]
StoredVectors = Callable[[str, list[str]], dict[str, list[float]]]  # (kb_id, chunk ids) → vectors

SAMPLES_PER_SCRIPT = 64
MIN_PAIRS = 4
MIN_CHUNKS = 4
PAIRS: PairKind = "halves"
# Recalibrate when the KB has doubled or halved since: each calibration embeds its pseudo-queries
# and their targets, which at every 25 % of growth cost e5 ~60 % on top of indexing a 2,000-chunk
# corpus (a KB filled document by document recalibrated ~25 times); doubling bounds it to ~8.
RECALIBRATE_FACTOR = 2.0
# A query whose script is under this share of the KB's sampled chunks (not the script of most of
# its text) is led by the dense leg: ordered by it alone, the lexical leg only adding candidates
# (bench.crosslingual, 24 English questions over the fixture corpus: top-3 0.54 with 0.8 on
# dense, 0.58 with 0.5, 0.67 with 1.0).
MINOR_SCRIPT_SHARE = 0.5
CROSS_SCRIPT_DENSE = 1.0


def cross_script(calibration: FusionCalibration | None, script: str) -> Weighting | None:
    """The weighting of a query in a script the KB barely has, or None."""
    if calibration is None or not calibration.script_share:
        return None
    share = calibration.script_share.get(script, 0.0)
    if share >= MINOR_SCRIPT_SHARE:
        return None
    main = max(calibration.script_share, key=lambda s: calibration.script_share[s])
    return Weighting(
        CROSS_SCRIPT_DENSE,
        1.0,
        f"{script} query over a {main} knowledge base ({share:.0%} of its chunks are {script}): "
        "dense-led, BM25 only adds candidates (it can match just the few shared words)",
    )


@dataclass
class Sample:
    """A calibration's sample of a KB, per script."""

    pairs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    passages: dict[str, list[str]] = field(default_factory=dict)
    chunk_ids: dict[str, str] = field(default_factory=dict)  # passage text → its chunk
    counts: dict[str, int] = field(default_factory=dict)


class FusionCalibrator:
    """Measures a KB's legs when indexing finishes (and on demand), never during a search: a
    search reads the stored calibration, so concurrent searches use the previous weights while
    a new calibration is measured."""

    def __init__(
        self,
        sample: Sampler,
        save: Saver,
        load: Callable[[str], KnowledgeBase],
        count: Callable[[str], int],
        embedders: EmbedderRegistry,
        questions: QuestionWriter | None = None,
        stored: StoredVectors | None = None,
    ) -> None:
        self._sample = sample
        # the vector store's chunk vectors: the evidence floors' passages are not embedded again
        self._stored = stored
        self._questions = questions  # an LLM's questions, when one is configured
        self._save = save
        self._load = load
        # searchable chunks of a KB: a count in the metadata DB, not the BM25 index (building
        # that after every indexed document cost O(KB size) per document, O(n²) per KB)
        self._count = count
        self._embedders = embedders
        self._locks: dict[str, threading.Lock] = {}
        # Saving a KB's calibration (a new one, or an ask's feedback): held only to read and
        # write it, never while measuring, so an ask never waits for a calibration.
        self._saving: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._floorless: set[str] = set()  # KBs whose floors could not be measured (once)
        self._pending: dict[str, threading.Thread] = {}  # sentence floors being backfilled

    def fusion(self, ctx: QueryContext, mode: str, rrf_k: int | None) -> FusionInfo:
        """The weights for this query: its script's calibration, bounded; dense-led when the
        KB is written in another script."""
        calibration = ctx.kb.calibration
        script = script_of(ctx.text)
        quality = calibration.scripts.get(script) if calibration else None
        if quality is None and calibration and calibration.scripts:
            quality = next(iter(calibration.scripts.values()))  # the KB's only script
        crossed = cross_script(calibration, script)
        weighting = crossed or weights_for(quality)
        feedback = calibration.feedback.get(script) if calibration and not crossed else None
        weighting, trusted = with_feedback(weighting, feedback)
        measured = (
            f"; calibration queries: {calibration.queries}" if calibration and quality else ""
        )
        return FusionInfo(
            mode=mode,
            dense_weight=round(weighting.dense, 4),
            lexical_weight=round(1.0 - weighting.dense, 4),
            reason=f"{script} query; {weighting.reason}{measured}",
            rrf_k=rrf_k,
            dense_base=quality.dense_base if quality else None,
            dense_top=quality.dense_top if quality else None,
            script_base=script_bases(calibration, script),
            confidence=round(weighting.confidence, 3),
            query_script=script,
            feedback_asks=feedback.asks if feedback else None,
            feedback_confidence=round(trusted, 3) if feedback else None,
        )

    def learn(self, kb_id: str, script: str, dense_rr: float, lexical_rr: float) -> None:
        """One answered ask's evidence: the mean reciprocal rank each leg gave the passages of
        the KB its answer cited, for a query in `script` (kept with the calibration, which
        must exist: a KB not calibrated yet has no weight to correct)."""
        with self._feedback_lock(kb_id):
            calibration = self._load(kb_id).calibration
            if calibration is None:
                return
            old = calibration.feedback.get(script) or LegFeedback()
            diff = dense_rr - lexical_rr
            new = LegFeedback(
                asks=old.asks + 1,
                dense_rr=round(old.dense_rr + dense_rr, 6),
                lexical_rr=round(old.lexical_rr + lexical_rr, 6),
                diff_sq=round(old.diff_sq + diff * diff, 6),
            )
            feedback = {**calibration.feedback, script: new}
            self._save(kb_id, calibration.model_copy(update={"feedback": feedback}))

    def _feedback_lock(self, kb_id: str) -> threading.Lock:
        with self._guard:
            return self._saving.setdefault(kb_id, threading.Lock())

    def refresh(self, kb_id: str, force: bool = False) -> FusionCalibration | None:
        """Calibrate the KB when it has none or has doubled (or halved) since (any time with
        `force`); one calibration per KB at a time. Returns the current one."""
        return self._refresh(kb_id, force, exact=False)

    def settle(self, kb_id: str) -> FusionCalibration | None:
        """Calibrate the KB unless its calibration covers exactly its searchable chunks: called
        when nothing of it is left to index, so the weights of a KB are those of its documents,
        not of the subset indexed when a doubling happened to be noticed (issue 25: three
        ingestions of the same set must give the same figures)."""
        return self._refresh(kb_id, False, exact=True)

    def _refresh(self, kb_id: str, force: bool, exact: bool) -> FusionCalibration | None:
        with self._kb_lock(kb_id):
            kb = self._load(kb_id)
            size = self._count(kb_id)
            if size == 0:
                return kb.calibration
            current = kb.calibration
            fresh = current is not None and (
                current.chunk_count == size
                if exact
                else current.chunk_count / RECALIBRATE_FACTOR
                < size
                < current.chunk_count * RECALIBRATE_FACTOR
            )
            if fresh and not force:
                return current
            embedder = self._embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
            calibration = self._measure(kb, embedder, size)
            with self._feedback_lock(kb_id):  # the asks' feedback so far stays
                latest = self._load(kb_id).calibration
                if latest is not None and latest.feedback:
                    calibration = calibration.model_copy(update={"feedback": latest.feedback})
                self._save(kb_id, calibration)
            return calibration

    def _measure(self, kb: KnowledgeBase, embedder: Embedder, size: int) -> FusionCalibration:
        """Pseudo-queries from a content-ordered sample, per script (a KB under MIN_CHUNKS
        records only its scripts' shares: too few queries to weigh the legs)."""
        sample = self._sampled(kb.id)
        pairs = sample.pairs
        scripts: dict[str, LegQuality] = {}
        crossed: dict[str, float] = {}
        floors = CrossFloors()
        kind: str = PAIRS
        if size >= MIN_CHUNKS:
            pairs, kind = self._written(sample.passages, pairs)
            tokenizer = tokenizer_for(kb.user_words)
            vectors = {s: embed_pairs(embedder, items) for s, items in pairs.items() if items}
            scripts = {
                script: measure(embedder, tokenizer, pairs[script], vectors[script])
                for script in vectors
                if len(pairs[script]) >= MIN_PAIRS
            }
            bases = {
                f"{a}>{b}": cross_base(vectors[a], vectors[b], same=a == b)
                for a in vectors
                for b in vectors
            }
            crossed = {key: base for key, base in bases.items() if base is not None}
            floors = self._floors(kb.id, embedder, sample, sentence=is_e5(embedder.name))
        total = sum(sample.counts.values()) or 1
        return FusionCalibration(
            scripts=scripts,
            cross_base=crossed,
            evidence_floor=floors.passage,
            sentence_floor=floors.sentence,
            script_share={s: round(n / total, 4) for s, n in sorted(sample.counts.items())},
            queries=kind,
            chunk_count=size,
            calibrated_at=datetime.now(UTC),
        )

    def _sampled(self, kb_id: str) -> Sample:
        """The KB's content-ordered sample: each script's pseudo-query pairs and passages (up to
        SAMPLES_PER_SCRIPT each) and how many sampled chunks are in each script."""
        sample = Sample()
        for chunk_id, text in self._sample(kb_id, SAMPLES_PER_SCRIPT * 4, 0):
            script = script_of(text)
            sample.counts[script] = sample.counts.get(script, 0) + 1
            bucket = sample.pairs.setdefault(script, [])
            pair = pair_of(text, PAIRS) if len(bucket) < SAMPLES_PER_SCRIPT else None
            if pair:
                bucket.append(pair)
            kept = sample.passages.setdefault(script, [])
            if len(kept) < SAMPLES_PER_SCRIPT:
                kept.append(text[:MAX_CHARS])
                sample.chunk_ids[text[:MAX_CHARS]] = chunk_id
        return sample

    def _floors(
        self,
        kb_id: str,
        embedder: Embedder,
        sample: Sample,
        passage: bool = True,
        sentence: bool = True,
    ) -> CrossFloors:
        """The evidence floors of the sampled passages (those asked for), from the vectors the
        vector store holds for them where it can give them (the model embeds the rest); the
        sentence ones embed the sampled passages' sentences."""
        stored: dict[str, list[float]] = {}
        if self._stored is not None and sample.chunk_ids:
            try:
                found = self._stored(kb_id, sorted(set(sample.chunk_ids.values())))
            except Exception as exc:  # the floors are still measured, by the model
                log.warning("stored vectors unavailable for the evidence floors: %s", exc)
                found = {}
            stored = {t: found[c] for t, c in sample.chunk_ids.items() if c in found}
        return CrossFloors(
            passage=evidence_floors(embedder, sample.passages, stored) if passage else {},
            sentence=sentence_floors(embedder, sample.passages, stored) if sentence else {},
        )

    def evidence_floor(self, kb: KnowledgeBase) -> dict[str, float]:
        """The KB's cross-lingual evidence floors of whole passages (`cross_floors`)."""
        return self.cross_floors(kb).passage

    def cross_floors(self, kb: KnowledgeBase) -> CrossFloors:
        """The KB's cross-lingual evidence floors, of passages and (e5 only: the reader
        compares only e5 similarities) of sentences. A KB calibrated before they existed
        (issue 25) gets the missing ones from its stored vectors, once, kept with its
        calibration (its weights unchanged): the passage ones on first use (0.4–0.7 s, session
        10), the sentence ones in the background (they embed sentences: 80 s for CISI at load
        13), the passage ones serving until they are kept. While the KB is being calibrated,
        the stored ones (none: the reader's absolute floor) serve."""
        calibration = kb.calibration
        if calibration is None:
            return CrossFloors()
        stored = calibration.cross_floors()
        if kb.id in self._floorless or calibration.chunk_count < MIN_CHUNKS:
            return stored
        if not stored.passage:
            lock = self._kb_lock(kb.id)
            if not lock.acquire(blocking=False):  # a calibration is measuring them
                return stored
            try:
                stored = self._backfill(kb, sentence=False)
            finally:
                lock.release()
        if not stored.sentence and is_e5(kb.embedding_model):
            self._in_background(kb)
        return stored

    def backfilled(self, kb_id: str, timeout: float | None = None) -> None:
        """Waits until the KB's sentence floors started in the background are kept."""
        with self._guard:
            thread = self._pending.get(kb_id)
        if thread is not None:
            thread.join(timeout)

    def _kb_lock(self, kb_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(kb_id, threading.Lock())

    def _in_background(self, kb: KnowledgeBase) -> None:
        def run() -> None:
            with self._kb_lock(kb.id):  # after a calibration measuring them, if one runs
                self._backfill(kb, sentence=True)

        with self._guard:
            if kb.id in self._pending:
                return
            thread = threading.Thread(target=run, name=f"floors-{kb.id}", daemon=True)
            self._pending[kb.id] = thread
        thread.start()

    def _backfill(self, kb: KnowledgeBase, sentence: bool) -> CrossFloors:
        """The missing passage floors (and with `sentence` the sentence floors), measured and
        kept; a KB whose floors cannot be measured is not tried again in this process."""
        latest = self._load(kb.id).calibration
        if latest is None:
            return CrossFloors()
        known = latest.cross_floors()
        wanted = (not known.passage, sentence and not known.sentence)
        if not any(wanted):
            return known
        try:
            embedder = self._embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
            measured = self._floors(kb.id, embedder, self._sampled(kb.id), *wanted)
        except Exception as exc:  # the stored ones serve
            log.warning("evidence floors of %s not measured: %s", kb.name, exc)
            measured = CrossFloors()
        floors = CrossFloors(
            passage=known.passage or measured.passage, sentence=known.sentence or measured.sentence
        )
        if (wanted[0] and not floors.passage) or (wanted[1] and not floors.sentence):
            self._floorless.add(kb.id)
        if floors == known:
            return known
        with self._feedback_lock(kb.id):
            current = self._load(kb.id).calibration
            if current is not None:
                update = {"evidence_floor": floors.passage, "sentence_floor": floors.sentence}
                self._save(kb.id, current.model_copy(update=update))
        log.info("evidence floors of %s measured from its stored vectors: %s", kb.name, floors)
        return floors

    def _written(
        self, passages: dict[str, list[str]], pairs: dict[str, list[tuple[str, str]]]
    ) -> tuple[dict[str, list[tuple[str, str]]], str]:
        """The LLM's questions for each script's passages where it wrote enough of them (else
        that script's pseudo-queries), and what the calibration queries were."""
        if self._questions is None or not self._questions.configured:
            return pairs, PAIRS
        out, used = dict(pairs), 0
        for script, texts in sorted(passages.items()):
            written = self._questions.pairs(texts)
            if written is None:  # the LLM failed: it is not asked again for another script
                break
            if len(written) >= MIN_PAIRS:
                out[script], used = written, used + 1
        if used == 0:
            return pairs, PAIRS
        return out, "llm" if used == len(passages) else f"llm+{PAIRS}"
