"""POST /v1/chat/completions and GET /v1/models through the real `openai` Python client against a
real server: streaming and not, a knowledge base as the model, a follow-up in `messages`, sources
in the extra fields, auth scopes."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest

from planrag.app.main import create_app
from planrag.core.settings import Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.kb_fill import fill_kb
from tests.servers import serve

DOCS = [
    ("leave.md", "연차 휴가는 입사 첫해 15일이며 매년 1일씩 늘어난다.", {"title": "연차 규정"}),
    ("vpn.md", "VPN password resets are done on the IT portal under Account > Security.",
     {"title": "VPN guide"}),
]  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[str]:
    settings = Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("oa"))  # type: ignore[call-arg]
    with serve(create_app(settings, embedders)) as url:
        fill_kb(url, "handbook", DOCS)
        httpx.post(f"{url}/api/knowledge-bases", json={"name": "other"}, timeout=60)
        yield url


@pytest.fixture
def client(server: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server}/v1", api_key="unused", max_retries=0)


def test_models_list_planrag_and_each_knowledge_base(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["planrag", "handbook", "other"]


def test_a_cited_answer_with_sources(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="handbook", messages=[{"role": "user", "content": "연차 휴가는 며칠인가요?"}]
    )
    answer = completion.choices[0].message.content
    assert "15일" in answer and "[1]" in answer
    assert completion.choices[0].finish_reason == "stop"
    extra = completion.model_extra
    assert extra["sources"][0]["title"] == "연차 규정"
    assert extra["plan"]["plan"]["knowledge_bases"] == ["handbook"]
    assert extra["citations"] and extra["trace_id"]


def test_streaming_gives_the_same_answer_in_chunks(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="planrag",
        messages=[{"role": "user", "content": "How do I reset my VPN password?"}],
        stream=True,
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "IT portal" in text
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["sources"][0]["title"] == "VPN guide"


def test_earlier_messages_make_a_follow_up_standalone(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="handbook",
        messages=[
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "Tell me about the VPN guide"},
            {"role": "assistant", "content": "It explains VPN password resets [1]."},
            {"role": "user", "content": "summarize it"},
        ],
    )
    followup = completion.model_extra["plan"]["followup"]
    assert followup["source"] == "rules" and "VPN" in followup["standalone"]


def test_an_unknown_model_is_404(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="no-such-kb", messages=[{"role": "user", "content": "hi"}]
        )
    with pytest.raises(openai.UnprocessableEntityError):
        client.chat.completions.create(model="planrag", messages=[])
