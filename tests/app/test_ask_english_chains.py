"""English chain questions through POST /ai/v2/ask (a real server, real stores and model, our
invented English encyclopedia pages `tests/fixtures/en_pages`): a relative clause on a class
noun is a step whose answer fills the next query, each step reads the name of the type its
query asks for, and the answer says what the last step read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.app.main import create_app
from planrag.core.settings import Settings
from planrag.llm.embedders import EmbedderRegistry
from tests.app.kb_fill import fill_kb
from tests.app.test_ask_api import Served, answer_text
from tests.llm.fake_llm import Script
from tests.servers import serve

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "en_pages"
DOCS = [(p.name, p.read_text(encoding="utf-8"), {}) for p in sorted(PAGES.glob("*.txt"))]


@pytest.fixture(scope="module")
def plain(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[Served]:
    settings = Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("en-chains"))  # type: ignore[call-arg]
    app = create_app(settings, embedders)
    with serve(app) as url:
        yield Served(url, Script(), app, fill_kb(url, "en", DOCS))


def steps_of(stream: list[tuple[str, dict]]) -> list[dict]:
    return [d for n, d in stream if n == "step"]


def test_the_answer_says_what_the_last_step_read(plain: Served) -> None:
    """ "the conservatory where …" is a step (a class noun; "June Alcott studied" keeps its
    verb); the question read itself answers with the conservatory, so the last step's
    sentence, naming the city it read, follows."""
    stream = plain.ask(question="In which city is the conservatory where June Alcott studied?")
    first, second = steps_of(stream)
    assert first["query"] == "the conservatory where June Alcott studied"
    assert first["answer"]["text"] == "Brackley Conservatory"
    assert second["query"] == "In which city is Brackley Conservatory?"
    assert second["answer"]["text"] == "Leeds"
    assert "Leeds" in answer_text(stream)


def test_a_label_step_reads_the_label_not_its_other_artist(plain: Served) -> None:
    stream = plain.ask(
        question="Where was the founder of the record label of The Lantern Society born?"
    )
    first = steps_of(stream)[0]
    assert first["query"] == "the record label of The Lantern Society"
    assert first["answer"]["text"] == "Redwing Records"  # not "Milo Grant", on the same page
