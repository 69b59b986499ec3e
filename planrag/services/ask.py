"""Ask: plan → execute through whitelisted executors → grounded answer, as a stream of events
(DESIGN.md: search_plan → search_result → exist_in_post_status → context → answer* → end; a
failure after the stream started is an `error` event). Every ask stores a trace."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from functools import partial
from typing import TypeVar
from zoneinfo import ZoneInfo

from planrag.core import telemetry
from planrag.core.errors import (
    DocumentNotFound,
    InvalidInput,
    KnowledgeBaseNotFound,
    PlanragError,
)
from planrag.core.messages import params_of
from planrag.core.settings import Settings
from planrag.core.types import CrossFloors, GraphPath, KnowledgeBase
from planrag.llm.chat import ChatClient
from planrag.llm.e5 import is_e5
from planrag.planner import chains
from planrag.planner.planner import DocumentCounter, Planner
from planrag.planner.schema import FollowUp, PlanEnvelope, SearchPlan
from planrag.planner.scope import KbInfo, PlanScope
from planrag.services import answers
from planrag.services.adaptive_steps import lookup, plan_adaptive
from planrag.services.admission import StageAdmission
from planrag.services.answers import Passage
from planrag.services.ask_events import (
    AnswerEvent,
    AskEvent,
    ContextEvent,
    EndEvent,
    ErrorEvent,
    ResultHit,
    SearchPlanEvent,
    SearchStages,
    StepAnswer,
)
from planrag.services.ask_requests import (
    TONES,
    AskOutcome,
    AskRequest,
    PlanRequest,
    check_llm_choice,
    plan_event,
    with_categories,
    with_top_k,
)
from planrag.services.ask_run import AskRun, elapsed_ms, evidence_events
from planrag.services.ask_steps import AskSteps, StepsOutcome, StepsRequest
from planrag.services.citation_check import check_citations
from planrag.services.document_listing import DocumentListing
from planrag.services.extractive import Extractor, path_reading
from planrag.services.fusion_feedback import Evidence, Learn, evidence
from planrag.services.graph_steps import GraphStepReader
from planrag.services.ownership import OwnershipResolver, check_owner
from planrag.services.plan_execution import PlanExecutor
from planrag.services.retrieval import (
    RetrievalService,
)
from planrag.services.step_execution import StepResult, StepRunner, step_answer_text
from planrag.services.step_reader import StepReader
from planrag.stores.catalog import Catalog
from planrag.stores.metadata import MetadataStore
from planrag.stores.traces import TraceStore
from planrag.text.answer_types import is_summary_request

log = logging.getLogger(__name__)
EvidenceFloors = Callable[[KnowledgeBase], CrossFloors]
FRONT_THREADS = 8  # scope reads and planning of asks, ahead of searches
T = TypeVar("T")


def document_counter(catalog: Catalog) -> DocumentCounter:
    """How many documents of the plan's KBs its filters leave (the planner's relax check)."""

    def count(plan: SearchPlan, scope: PlanScope) -> int:
        kb_ids = [kb.id for kb in scope.knowledge_bases if kb.name in plan.knowledge_bases]
        return catalog.count_documents(kb_ids, plan.filters.to_retrieve(), scope.restriction())

    return count


class AskService:
    @classmethod
    def build(
        cls,
        settings: Settings,
        metadata: MetadataStore,
        retrieval: RetrievalService,
        chat: ChatClient,
        strategies: tuple[str, ...],
        learn: Learn | None = None,
        floors: EvidenceFloors | None = None,
    ) -> AskService:
        catalog = Catalog(metadata.engine)
        planner = Planner(settings.planner, settings.llm, chat, document_counter(catalog))
        traces = TraceStore(metadata.engine, keep=settings.ask.max_traces)
        return cls(
            settings, metadata, catalog, retrieval, planner, chat, traces, strategies, learn, floors
        )

    def __init__(
        self,
        settings: Settings,
        metadata: MetadataStore,
        catalog: Catalog,
        retrieval: RetrievalService,
        planner: Planner,
        chat: ChatClient,
        traces: TraceStore,
        strategies: tuple[str, ...],
        learn: Learn | None = None,
        floors: EvidenceFloors | None = None,
    ) -> None:
        self._settings = settings
        # a KB's cross-lingual evidence floors, measured on first use when its calibration
        # predates them (FusionCalibrator.cross_floors); else the stored ones
        self._floors = floors
        # what an LLM answer's citations teach the KBs' fusion weights (fusion_feedback.py)
        self._learn = learn if settings.ask.fusion_feedback else None
        self._metadata = metadata
        self._catalog = catalog
        listing = DocumentListing(catalog, metadata)
        self._executor = PlanExecutor(
            retrieval, settings.ask.max_passages, listing, settings.ask.world_date_passages
        )
        self._retrieval = retrieval
        self._planner = planner
        self._chat = chat
        self._strategies = list(strategies)
        self.traces = traces
        # Planning has its own threads and goes ahead of other asks' searches, which are
        # bounded (AskSettings.search_concurrency, plans_before_searches; services/admission.py).
        self._stages = StageAdmission(
            FRONT_THREADS, settings.ask.search_concurrency, settings.ask.plans_before_searches
        )
        self._owners = OwnershipResolver(metadata.engine)
        self._steps = AskSteps(
            StepRunner(self._executor, settings.ask.max_passages, GraphStepReader(retrieval)),
            self._stages,
            settings.planner.max_steps,
            settings.ask.steps_time_budget_s,
        )

    # ------------------------------------------------------------------ planning

    def close(self) -> None:
        self._stages.close()

    async def front(self, work: Callable[[], T]) -> T:
        """Work of an ask before its first event (the router's metadata reads): on the planning
        threads, ahead of other asks' searches."""
        return await self._stages.front(work)

    def scope(
        self, request: PlanRequest, readable: list[KnowledgeBase], doc_id: str | None = None
    ) -> PlanScope:
        if len(request.question) > self._settings.ask.max_question_chars:
            raise InvalidInput(
                f"question longer than {self._settings.ask.max_question_chars} characters"
            )
        if isinstance(request, AskRequest) and request.llm is not None:
            check_llm_choice(request.llm, self._settings.llm)
        user = request.user_id if isinstance(request, AskRequest) else None
        chosen = readable
        if request.knowledge_bases:  # each by name or id
            by_key = {kb.id: kb for kb in readable} | {kb.name: kb for kb in readable}
            missing = [n for n in request.knowledge_bases if n not in by_key]
            if missing:
                raise KnowledgeBaseNotFound(
                    f"knowledge base '{missing[0]}' not found", kb=missing[0]
                )
            wanted = {by_key[n].id for n in request.knowledge_bases}
            chosen = [kb for kb in readable if kb.id in wanted]
        if doc_id is not None:
            doc = self._metadata.get_document(doc_id)
            if doc.kb_id not in {kb.id for kb in readable}:  # read as unknown: no id oracle
                raise DocumentNotFound(f"document '{doc_id}' not found", doc_id=doc_id)
            check_owner(next(kb for kb in readable if kb.id == doc.kb_id), doc, user)
            chosen = [kb for kb in chosen if kb.id == doc.kb_id]
            if not chosen:
                raise InvalidInput(
                    f"document '{doc_id}' is not in the requested knowledge bases", doc_id=doc_id
                )
        return PlanScope(
            knowledge_bases=self._kb_infos(chosen, user),
            requested=bool(request.knowledge_bases) or doc_id is not None,
            strategies=self._strategies,
            now=request.now or datetime.now(ZoneInfo(self._settings.planner.timezone)),
            doc_id=doc_id,
        )

    def _kb_infos(self, chosen: list[KnowledgeBase], user: str | None) -> list[KbInfo]:
        """What the planner knows of each KB; of a per-user one, only the asker's documents
        (facets, and the relax check's count)."""
        owned = self._owners.restriction(chosen, user)
        return [
            KbInfo(
                id=kb.id,
                name=kb.name,
                description=kb.description,
                has_graph=kb.graph_backend != "none",
                facets=self._catalog.facets(kb.id, owned.get(kb.id)),
                documents=owned.get(kb.id),
            )
            for kb in chosen
        ]

    def plan(
        self,
        request: PlanRequest,
        readable: list[KnowledgeBase],
        doc_id: str | None = None,
        model: str | None = None,
    ) -> PlanEnvelope:
        """The plan envelope without executing it (plan inspection)."""
        scope = self.scope(request, readable, doc_id)
        return self._planner.plan(request.question, scope, model)

    # ------------------------------------------------------------------ the stream

    async def ask(
        self,
        request: AskRequest,
        scope: PlanScope,
        readable: list[KnowledgeBase],
        principal: str | None = None,
        followup: FollowUp | None = None,
        fixed: bool = False,
    ) -> AsyncIterator[AskEvent]:
        """The event stream of one ask; `scope` comes from `scope()`, called before the stream
        starts so that bad requests are plain HTTP errors. Stages: plan → search → answer → end,
        each recorded in the ask's trace."""
        run = AskRun(request, principal)
        try:
            envelope = await self._plan_stage(run, scope, followup, fixed)
            yield plan_event(envelope, scope, request)
            passages: list[Passage] = []
            exists = False
            if envelope.plan.mode != "direct":
                if envelope.plan.steps:
                    run.chain = self._steps_request(run, envelope.plan, readable)
                else:
                    passages, exists = await self._search_stage(run, envelope, readable)
                if run.chain is not None:  # planned steps, or the adaptive second step
                    async for step_event in self._chain_stage(run, run.chain, readable):
                        yield step_event
                    passages, exists = run.chained
                for event in evidence_events(passages, exists, run.record.stages, envelope):
                    yield event
            answered = passages if exists else []
            async for answer_event in self._answer_stage(run, envelope.plan, answered, readable):
                yield answer_event
            last: AskEvent = run.end(passages)
            if self._learn is not None and run.record.answer_source == "llm":
                kb_ids = {kb.name: kb.id for kb in readable}
                run.evidence = evidence(run.record.citations or [], passages, kb_ids)
        except asyncio.CancelledError:
            run.trace.status = "cancelled"
            self._record(run)
            raise
        except GeneratorExit:  # the consumer stopped reading mid-stream
            self._record(run)
            raise
        except PlanragError as exc:
            last = run.fail(exc.code, exc.message, params_of(exc.details))
        except Exception as exc:  # never a broken stream without a reason
            log.exception("ask failed")
            last = run.fail("internal_error", f"{type(exc).__name__}: {exc}")
        try:
            # Stored off the event loop, before the last event (a client reading the trace
            # on `end` finds it).
            await asyncio.to_thread(self._record, run)
        finally:
            if not run.recorded:  # cancelled before the thread took it
                self._record(run)
        yield last

    async def _plan_stage(
        self, run: AskRun, scope: PlanScope, followup: FollowUp | None, fixed: bool = False
    ) -> PlanEnvelope:
        model = run.request.llm.model if run.request.llm else None
        if fixed:  # spec 002's v1 pipeline: the same plan for every question
            envelope = self._planner.fixed(scope)
        else:  # planning goes ahead of other asks' searches (services/admission.py)
            envelope = await self._stages.front(
                lambda: self._planner.plan(run.request.question, scope, model)
            )
        if followup is not None and followup.source != "none":
            envelope = envelope.model_copy(update={"followup": followup})
        envelope = with_categories(envelope, run.request.category_ids)
        envelope = with_top_k(envelope, run.request.top_k)
        run.trace.source, run.trace.knowledge_bases = envelope.source, envelope.plan.knowledge_bases
        run.record.envelope = envelope
        run.record.timings_ms["plan"] = elapsed_ms(run.started)
        return envelope

    async def _search_stage(
        self, run: AskRun, envelope: PlanEnvelope, readable: list[KnowledgeBase]
    ) -> tuple[list[Passage], bool]:
        """The passages, and whether they are evidence to answer from; one admitted turn, which
        without an LLM also makes the extractive answer (`run.extractive`): a second turn would
        queue behind every search admitted meanwhile, and under a burst every answer would wait
        for the burst's last search."""
        kbs = {kb.name: kb for kb in readable}
        plan, question = envelope.plan, run.request.question
        chosen = [kbs[name] for name in plan.knowledge_bases if name in kbs]
        queued = time.perf_counter()

        def search() -> tuple[list[Passage], SearchStages, bool, float]:
            started = time.perf_counter()
            # Per-user KBs: only the asking user's documents (spec 002 user_id).
            restriction = self._owners.restriction(chosen, run.request.user_id)
            passages, stages = self._executor.execute(plan, question, kbs, restriction)
            # One verdict: without an LLM, evidence is what the extractive answer finds.
            exists = bool(passages)
            path = graph_path(stages, passages)  # the graph walked the chain already
            if path is None and self._may_adapt(plan, question):
                run.chain = self._adaptive(run, plan, (passages, stages), kbs, readable)
            if exists and not self._chat.configured and run.chain is None:
                run.extractive = self._extractive(question, plan, passages, readable, path)
                exists = bool(run.extractive)
            return passages, stages, exists, started

        passages, stages, exists, started = await self._stages.search(search)
        run.record.timings_ms["search_wait"] = round((started - queued) * 1000, 3)
        run.record.timings_ms["search"] = elapsed_ms(started)
        run.record.stages = stages
        run.record.hits = [ResultHit.of(p) for p in passages]
        return passages, exists

    def _reader(self, plan: SearchPlan, readable: list[KnowledgeBase]) -> StepReader:
        words = [w for kb in readable if kb.name in plan.knowledge_bases for w in kb.user_words]
        chat = self._chat if self._chat.configured else None
        return StepReader(chat, words, self._settings.llm.timeout_s)

    def _steps_request(
        self, run: AskRun, plan: SearchPlan, readable: list[KnowledgeBase]
    ) -> StepsRequest:
        kbs = {kb.name: kb for kb in readable}
        chosen = [kbs[name] for name in plan.knowledge_bases if name in kbs]
        restriction = self._owners.restriction(chosen, run.request.user_id)
        return StepsRequest(plan, kbs, restriction, self._reader(plan, readable), plan.steps)

    def _may_adapt(self, plan: SearchPlan, question: str) -> bool:
        """The adaptive step is tried on plain searches (`_adaptive` says which)."""
        return (
            self._settings.ask.adaptive_steps
            and self._settings.planner.max_steps >= 2
            and plan.mode == "rag"
            and not plan.listing
            and plan.limit is None
            and plan.sort == "relevance"
        )

    def _adaptive(
        self,
        run: AskRun,
        plan: SearchPlan,
        found: tuple[list[Passage], SearchStages],
        kbs: dict[str, KnowledgeBase],
        readable: list[KnowledgeBase],
    ) -> StepsRequest | None:
        """The second step, when a second search can add (`adaptive_steps.plan_adaptive`)."""
        question = run.request.question
        shaped = chains.may_chain(question)  # else an entity-page or a subject lookup
        reader = self._reader(plan, readable)
        adaptive = plan_adaptive(question, reader, plan, found, shaped)
        if adaptive is None:
            return None
        request = self._steps_request(run, plan, readable)
        second = adaptive.second
        request.steps, request.first = [adaptive.step, second.step], adaptive.first
        request.reader = reader
        if second.lookup:  # own pages ranked by the question's words
            request.lookup = partial(lookup, question=question, reader=reader)
        return request

    async def _chain_stage(
        self, run: AskRun, request: StepsRequest, readable: list[KnowledgeBase]
    ) -> AsyncIterator[AskEvent]:
        """The steps' events; leaves the merged passages and whether they answer in run.chained."""
        outcome = StepsOutcome()
        searching = time.perf_counter()
        async for event in self._steps.run(request, outcome):
            yield event
        plan, question = request.plan, run.request.question
        passages = outcome.passages
        exists = bool(passages) and (
            outcome.answered(plan.answer_from) or self._exists(plan, question, passages, readable)
        )
        if exists and not self._chat.configured:
            run.extractive = await self._stages.search(
                lambda: self._chain_answer(question, plan, outcome, passages, readable)
            )
            exists = bool(run.extractive)  # one verdict
        run.record.timings_ms["steps"] = elapsed_ms(searching)
        run.record.steps = [r.record for r in outcome.results]
        run.record.steps_stopped = outcome.stopped
        run.record.stages = outcome.stages
        run.record.hits = [ResultHit.of(p) for p in passages]
        run.chained = (passages, exists)

    def _chain_answer(
        self,
        question: str,
        plan: SearchPlan,
        outcome: StepsOutcome,
        passages: list[Passage],
        readable: list[KnowledgeBase],
    ) -> str:
        """A chain's extractive answer: the answer reader's reading of the last step's query
        (it names the bridge: "What is the population of Nelson?") over every step's passages,
        then the bridge steps' sentences it does not hold already; an adaptive chain's last
        query is only search words, and an English question reads better itself, so the
        question is read instead."""
        steps = _answer_steps(outcome.results, plan.answer_from)
        if not steps:
            return self._extractive(question, plan, passages, readable)
        last = steps[-1].record
        final_id = plan.answer_from or (plan.steps[-1].id if plan.steps else None)
        # An English question is read itself, its own second hop reading the bridge's passage
        # among all eight (the last query, "In what year was Moscow State University
        # founded?", led with the first hop's "… 29 December 1899 … professor at Moscow State
        # University": HotpotQA's first 100, 5 more leads and none fewer; docs/benchmarks.md).
        named = last.id == final_id and not last.adaptive and answers.is_korean(question)
        asked = last.query if named else question
        unscoped = plan.model_copy(update={"query": None})
        final = self._extractive(asked, unscoped, passages, readable)
        if not final:
            final = step_answer_text(steps[-1:], passages)
        # The answer leads (issue 24); the bridge steps' sentences follow it, each once, and
        # the last step's too when the question was read instead and missed what it read
        # ("She died in Vienna." for "In which city did {{s1.answer}} die?").
        missed = not named and not last.adaptive and _missed(last.answer, final)
        bridges = step_answer_text(steps if missed else steps[:-1], passages, written=final)
        return " ".join(p for p in (final, bridges) if p) or self._extractive(
            question, plan, passages, readable
        )

    async def _answer_stage(
        self,
        run: AskRun,
        plan: SearchPlan,
        passages: list[Passage],
        readable: list[KnowledgeBase],
    ) -> AsyncIterator[AnswerEvent]:
        model = run.request.llm.model if run.request.llm else None
        answering = time.perf_counter()
        text: list[str] = []
        source = "llm"
        answer = self._answer(run.request, plan, passages, readable, model, run.extractive)
        async for part_source, delta in answer:
            source = part_source
            text.append(delta)
            yield AnswerEvent(delta=delta)
        run.record.answer, run.record.answer_source = "".join(text), source
        if source == "llm" and passages:  # streamed already: its citations checked after
            reader = self._extractor(plan, readable).reader
            run.unsupported = await self._stages.search(
                lambda: check_citations(run.record.answer or "", passages, reader)
            )
        run.record.timings_ms["answer"] = elapsed_ms(answering)

    def _record(self, run: AskRun) -> None:
        """Store the ask's trace and metrics; neither may break an answer."""
        run.recorded = True
        run.trace.data = run.record.to_data()
        relaxed = bool(run.record.envelope and run.record.envelope.relaxed)
        telemetry.record_ask(run.trace.source, run.trace.status, run.record.timings_ms, relaxed)
        try:
            self.traces.save(run.trace)
        except Exception:
            log.exception("could not store trace %s", run.trace.id)
        if self._learn is not None:
            self._learn_from(self._learn, run.evidence)

    @staticmethod
    def _learn_from(learn: Learn, found: list[Evidence]) -> None:
        for item in found:
            try:
                learn(item.kb_id, item.script, item.dense_rr, item.lexical_rr)
            except Exception:  # the answer stands; only the weights learn nothing
                log.exception("could not record fusion feedback for %s", item.kb_id)

    def run(
        self, request: AskRequest, readable: list[KnowledgeBase], principal: str | None = None
    ) -> AskOutcome:
        """One ask to completion, without streaming (dialects that answer in one body). Call it
        from a worker thread, not from a running event loop."""
        scope = self.scope(request, readable, request.doc_id)

        async def collect() -> AskOutcome:
            outcome = AskOutcome()
            async for item in self.ask(request, scope, readable, principal):
                if isinstance(item, SearchPlanEvent):
                    outcome.envelope = PlanEnvelope.model_validate(item.model_dump(by_alias=True))
                elif isinstance(item, ContextEvent):
                    outcome.passages = item.passages
                elif isinstance(item, AnswerEvent):
                    outcome.answer += item.delta
                elif isinstance(item, EndEvent):
                    outcome.answer_source = item.answer_source
                    outcome.trace_id = item.trace_id
                elif isinstance(item, ErrorEvent):
                    outcome.error = item
            return outcome

        return asyncio.run(collect())

    async def _answer(
        self,
        request: AskRequest,
        plan: SearchPlan,
        passages: list[Passage],
        readable: list[KnowledgeBase],
        model: str | None,
        extractive: str | None = None,
    ) -> AsyncIterator[tuple[str, str]]:
        """(answer_source, text delta) pairs: the LLM's stream, or an extractive/canned answer;
        an LLM failing mid-answer is followed by the extractive answer."""
        question = request.question
        if plan.mode == "direct":
            if not self._chat.configured:
                yield "canned", answers.canned_reply(question)
                return
            messages = answers.direct_messages(question)
        elif not passages:
            yield "none", answers.no_evidence_reply(question)
            return
        elif not self._chat.configured:
            if extractive is None:  # made with the search when it could be
                extractive = await self._stages.search(
                    lambda: self._extractive(question, plan, passages, readable)
                )
            yield "extractive", extractive or answers.no_evidence_reply(question)
            return
        else:
            messages = answers.answer_messages(
                question,
                passages,
                self._settings.ask.max_passage_chars,
                TONES.get(request.speech_tone) if request.speech_tone is not None else None,
            )
        streamed = False
        try:
            async for delta in self._chat.stream(messages, model):
                streamed = True
                yield "llm", delta
        except PlanragError as exc:
            log.warning("LLM answer failed (%s); answering extractively", exc.message)
            if plan.mode == "direct":
                yield "canned", ("\n\n" if streamed else "") + answers.canned_reply(question)
                return
            prefix = "\n\n" if streamed else ""
            text = await self._stages.search(
                lambda: self._extractive(question, plan, passages, readable)
            )
            yield "extractive", prefix + (text or answers.no_evidence_reply(question))

    def _extractor(self, plan: SearchPlan, readable: list[KnowledgeBase]) -> Extractor:
        """Document mode and listings answer from what was asked for: no relevance floor. The
        reader uses the KB's embedder when it is e5 (never a model it would have to load)."""
        chosen = [kb for kb in readable if kb.name in plan.knowledge_bases]
        words = [w for kb in chosen for w in kb.user_words]
        asked_for = plan.mode == "document" or plan.listing
        floor = 0.0 if asked_for else self._settings.ask.relevance_floor
        embedder = None
        for kb in chosen:
            if is_e5(kb.embedding_model):
                try:
                    embedder = self._retrieval.embedder_for(kb)
                except PlanragError as exc:
                    log.warning("reading without e5: %s", exc.message)
                break
        floors = {kb.name: self._evidence_floor(kb, embedder is not None) for kb in chosen}
        return Extractor(words, floor, embedder, self._settings.ask.cross_lingual_min, floors)

    def _evidence_floor(self, kb: KnowledgeBase, read_with_e5: bool) -> CrossFloors:
        """The KB's floors; measured now (once) only where the reader compares similarities."""
        if self._floors is not None and read_with_e5:
            return self._floors(kb)
        return kb.calibration.cross_floors() if kb.calibration else CrossFloors()

    def _exists(
        self,
        plan: SearchPlan,
        question: str,
        passages: list[Passage],
        readable: list[KnowledgeBase],
    ) -> bool:
        """Evidence to answer from: passages, and without an LLM to judge them, passages that
        pass the reader's evidence check."""
        if not passages or self._chat.configured:
            return bool(passages)
        return self._extractor(plan, readable).relevant(plan.query or question, passages)

    def _extractive(
        self,
        question: str,
        plan: SearchPlan,
        passages: list[Passage],
        readable: list[KnowledgeBase],
        path: GraphPath | None = None,
    ) -> str:
        """The answer without an LLM; "" when no passage passes the evidence check (then the
        ask says nothing was found and `exists` is false)."""
        extractor = self._extractor(plan, readable)
        search_text = plan.query or question
        if plan.listing or plan.limit:
            per_document = len(passages) if plan.listing else plan.limit
            return extractor.answer(search_text, passages, per_document)
        if is_summary_request(question):
            return extractor.summary(search_text, passages)
        if path is not None:  # a multi-hop answer walked along the graph
            reading = path_reading(question, passages, path)
            if reading is not None:
                return reading.text()
        return extractor.read(question, passages, search_text).text()


def graph_path(stages: SearchStages | None, passages: list[Passage]) -> GraphPath | None:
    """The multi-hop path graph search walked, when the passages hold its answer's chunk."""
    held = {p.chunk_id for p in passages}
    for meta in (stages.graph or {}).values() if stages else ():
        path = meta.get("path")
        if path and path.get("chunks") and path["chunks"][-1] in held:
            return GraphPath.model_validate(path)
    return None


def _missed(answer: StepAnswer | None, final: str) -> bool:
    return answer is not None and answer.text.casefold() not in final.casefold()


def _answer_steps(results: list[StepResult], answer_from: str | None) -> list[StepResult]:
    """The steps up to the one the answer comes from (the last by default)."""
    if answer_from is None:
        return results
    ids = [r.record.id for r in results]
    return results[: ids.index(answer_from) + 1] if answer_from in ids else results
