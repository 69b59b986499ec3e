"""The published OpenAPI document, fuzzed: schemathesis generates a few requests per operation
(seeded, so every run sends the same ones) against a real server, with authentication off and
on, and checks that no response is a 5xx and that every response — status code, content type,
body — is one the schema documents.

The same probe, larger (hundreds of examples per operation), is how issue 10's bad-input and
schema findings were made: `PLANRAG_FUZZ_EXAMPLES=200` reproduces it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from psycopg import sql
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from planrag.app.main import create_app
from planrag.core.settings import AuthSettings, LLMSettings, PgSettings, RerankSettings, Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.stores.postgres import EmbeddedPostgres
from tests.llm.fake_llm import Reply, Script, serve_llm
from tests.llm.rerank_models import build_random_cross_encoder
from tests.servers import serve

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("PLANRAG_FUZZ_EXAMPLES", "2"))
SECRET = "a-fuzzing-secret-that-is-long-enough"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def _seed(url: str, headers: dict[str, str]) -> None:
    """A knowledge base and a spec-000 document, so that some generated requests hit data."""
    with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        http.post("/api/knowledge-bases", json={"name": "news"}).raise_for_status()
        document = {
            "domain": "news",
            "title": "메타버스 뉴스",
            "author": "삼성전자",
            "text": "메타버스는 비대면 시대 뜨거운 화두로 떠올랐다.",
            "tags": {"date": "20240315"},
        }
        http.post("/rag/insert", json=document).raise_for_status()
        # A per-user knowledge base with one user's document (issue 22): the routes reaching it
        # by name or id meet owners, the document API's owner checks and the manage rule.
        http.post(
            "/api/knowledge-bases", json={"name": "mine", "per_user": True}
        ).raise_for_status()
        mine = {**document, "domain": "mine", "tags": {"date": "20240316", "user": "u1"}}
        http.post("/rag/insert", json=mine).raise_for_status()


class AlwaysAnswers(Script):
    """The scripted LLM, never out of replies (the fuzzer asks it many times)."""

    def next(self) -> Reply:
        return Reply(content="메타버스는 가상 세계입니다 [1].")


@pytest.fixture(scope="module")
def llm_url() -> Iterator[str]:
    with serve_llm(AlwaysAnswers()) as url:
        yield url


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_random_cross_encoder(tmp_path_factory.mktemp("fuzz-cross-encoder") / "model")


def fuzz_settings(
    tmp: Path, pg: EmbeddedPostgres, llm_url: str, cross_encoder: Path, **changes: Any
) -> Settings:
    """Settings of a fuzzed server with every part the schema offers working: pgvector
    knowledge bases live in a database of the test session's PostgreSQL, the LLM is the
    scripted one, the reranker a real (random-weight) cross-encoder. A 5xx is then a bug."""
    name = f"fuzz_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg.conninfo("postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp / "data",
        pg=PgSettings(url=pg.conninfo(name)),
        llm=LLMSettings(calibration_questions=False, base_url=llm_url, model="test-model"),
        rerank=RerankSettings(model=str(cross_encoder)),
        **changes,
    )


@pytest.fixture(scope="module")
def open_server(  # type: ignore[no-untyped-def]
    tmp_path_factory, embedders: EmbedderRegistry, pg_server, llm_url: str, cross_encoder: Path
) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("fuzz-open")
    app = create_app(fuzz_settings(tmp, pg_server, llm_url, cross_encoder), embedders)
    with serve(app) as url:
        _seed(url, {})
        app.state.runtime.ingestion.wait(timeout=120)
        yield url


@pytest.fixture(scope="module")
def auth_server(  # type: ignore[no-untyped-def]
    tmp_path_factory, embedders: EmbedderRegistry, pg_server, llm_url: str, cross_encoder: Path
) -> Iterator[tuple[str, str]]:
    settings_ = fuzz_settings(
        tmp_path_factory.mktemp("fuzz-auth"),
        pg_server,
        llm_url,
        cross_encoder,
        auth=AuthSettings(enabled=True, secret_key=SECRET),
    )
    app = create_app(settings_, embedders)
    with serve(app) as url:
        key, _ = app.state.runtime.auth.create_key("fuzzer")
        _seed(url, {"X-API-Key": key})
        app.state.runtime.ingestion.wait(timeout=120)
        yield url, key


def fuzz(url: str, headers: dict[str, str] | None = None, anonymous: bool = False) -> None:
    """Every operation of the server's OpenAPI document, EXAMPLES schema-valid and EXAMPLES
    schema-invalid requests each; fails listing every operation that broke a check."""
    raw = httpx.get(f"{url}/openapi.json", headers=headers, timeout=120).json()
    schema = schemathesis.openapi.from_dict(raw)
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        takes_input = bool(operation.body) or bool(operation.query)
        modes = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if takes_input else ()
        for mode in modes or (GenerationMode.POSITIVE,):

            @FUZZ_SETTINGS
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: schemathesis.Case) -> None:
                if anonymous:
                    case.call_and_validate(url, checks=CHECKS, timeout=120)
                case.call_and_validate(url, checks=CHECKS, headers=headers, timeout=120)

            try:
                run()
            # One operation's failure must not hide the others'.
            except (Exception, BaseExceptionGroup) as exc:
                failures.append(f"{operation.label} ({mode}): {exc}"[:3000])
    assert not failures, "\n\n".join(failures)


def test_every_operation_auth_off(open_server: str) -> None:
    fuzz(open_server)


def test_every_operation_auth_on(auth_server: tuple[str, str]) -> None:
    """Each generated request twice: without credentials (a documented 401 where the path is
    not public) and with a key."""
    url, key = auth_server
    fuzz(url, {"X-API-Key": key}, anonymous=True)
