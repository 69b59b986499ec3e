"""Spec 000's /prompt use cases: summarise what a search finds (an LLM summary, or an extractive
one flagged as such when there is no LLM or it fails), plain chat, and the LLM's model list."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from planrag.core.errors import LLMUnavailable
from planrag.core.settings import LLMSettings
from planrag.core.types import PlainText
from planrag.llm.chat import ChatClient, Message
from planrag.prompts import render
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.answers import Passage, is_korean
from planrag.services.dialects.document_search import DocumentFilters, DocumentHit, DocumentSearch
from planrag.services.dialects.json_documents import check_yyyymmdd
from planrag.services.extractive import Extractor

SUMMARY_DOCUMENTS = 5
MAX_DOCUMENT_CHARS = 1500


class SummarizeRequest(BaseModel):
    query: str = Field(min_length=1, max_length=2000, examples=["메타버스 최신 동향"])
    domain: str | None = Field(default=None, max_length=32)
    author: PlainText | None = Field(default=None, max_length=128)
    start_date: str | None = Field(default=None, description="YYYYMMDD", pattern=r"^\d{8}$")
    end_date: str | None = Field(default=None, description="YYYYMMDD", pattern=r"^\d{8}$")

    @field_validator("start_date", "end_date")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        return None if value is None else check_yyyymmdd(value)


class SummarizeResult(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "query": "메타버스 최신 동향",
                    "summary": "메타버스 시장은 빠르게 성장하고 있습니다 [1].",
                    "documents_count": 5,
                    "prompt_length": 1024,
                }
            ]
        }
    )

    query: str
    summary: str
    documents_count: int
    prompt_length: int
    fallback: str | None = Field(
        default=None,
        description='"extractive" when no LLM summarised (none configured, or it failed)',
    )
    fallback_reason: str | None = None


class ChatSource(BaseModel):
    n: int
    doc_id: str
    title: str | None = None
    knowledge_base: str
    score: float
    content: str


class ChatResult(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "query": "메타버스란 무엇인가요?",
                    "model": "llama2",
                    "response": "메타버스는 가상과 현실이 융합된 세계입니다.",
                }
            ]
        }
    )

    query: str
    model: str
    response: str
    # Grounded chat (knowledge bases given): the passages the answer may cite, and how it was made.
    sources: list[ChatSource] | None = None
    answer_source: str | None = None
    trace_id: str | None = None


class ModelList(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"models": ["llama2", "mistral", "gemma"], "default_model": "llama2", "total": 3}
            ]
        }
    )

    models: list[str]
    default_model: str
    total: int


def _passages(hits: list[DocumentHit]) -> list[Passage]:
    return [
        Passage(
            n=i,
            chunk_id=h.chunk_id,
            doc_id=h.hit.doc_id,
            knowledge_base=h.knowledge_base,
            title=h.hit.metadata.title,
            date=h.hit.metadata.date,
            score=h.score,
            content=h.text,
        )
        for i, h in enumerate(hits, start=1)
    ]


class PromptService:
    def __init__(self, search: DocumentSearch, chat: ChatClient, llm: LLMSettings) -> None:
        self._search = search
        self._chat = chat
        self._llm = llm

    def summarize(self, access: KnowledgeBaseAccess, request: SummarizeRequest) -> SummarizeResult:
        filters = DocumentFilters(
            author=request.author, start_date=request.start_date, end_date=request.end_date
        )
        kbs = self._search.knowledge_bases(access, request.domain)
        hits = (
            self._search.search(access, kbs, request.query, SUMMARY_DOCUMENTS, filters)
            if kbs
            else []
        )
        passages = _passages(hits)
        listing = "\n\n".join(
            f"[{p.n}] {p.title or ''}{f' ({p.date})' if p.date else ''}\n"
            f"{p.content[:MAX_DOCUMENT_CHARS]}"
            for p in passages
        )
        messages: list[Message] = [
            {"role": "system", "content": render("summarize_system")},
            {
                "role": "user",
                "content": render("summarize_user", query=request.query, documents=listing),
            },
        ]
        prompt_length = sum(len(m["content"]) for m in messages)
        result = SummarizeResult(
            query=request.query,
            summary="",
            documents_count=len(passages),
            prompt_length=prompt_length,
        )
        if not passages:
            result.summary = (
                "검색된 문서가 없습니다."
                if is_korean(request.query)
                else "No documents were found."
            )
            return result
        if self._chat.configured:
            try:
                result.summary = self._chat.complete(messages, self._llm.answer_timeout_s)
                return result
            except LLMUnavailable as exc:
                result.fallback_reason = exc.message
        else:
            result.fallback_reason = "no LLM configured"
        # Never empty: the sentences covering most of the documents' key terms, cited.
        result.summary = Extractor(floor=0.0).summary(request.query, passages) or (
            "검색된 문서에 요약할 내용이 없습니다."
            if is_korean(request.query)
            else "The documents found have no text to summarise."
        )
        result.fallback = "extractive"
        return result

    def chat(self, query: str, model: str | None) -> ChatResult:
        messages: list[Message] = [
            {"role": "system", "content": render("chat_system")},
            {"role": "user", "content": query},
        ]
        used = model or self._llm.model
        response = self._chat.complete(messages, self._llm.answer_timeout_s, used)
        return ChatResult(query=query, model=used, response=response)

    def models(self) -> ModelList:
        models = self._chat.list_models()
        return ModelList(models=models, default_model=self._llm.model, total=len(models))
