"""What the CLI commands run against: this process's own stores (`LocalBackend`) or, when a
server is up for the data dir or PLANRAG_SERVER_URL is set, that server's HTTP API
(`HttpBackend`). Both speak the API's JSON shapes, so a command prints the same either way.
Heavy modules (the stores, models, the ask pipeline) are imported only when a command needs them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from planrag.cli.discovery import server_url
from planrag.core.errors import InvalidInput, KnowledgeBaseNotFound, NotFound

if TYPE_CHECKING:
    from planrag.cli.client import ApiClient
    from planrag.core.settings import Settings
    from planrag.runtime import Runtime
    from planrag.stores.metadata import MetadataStore
    from planrag.stores.sqlite_listing import Listing

Event = tuple[str, dict[str, Any]]
POLL_S = 0.2


class Backend(Protocol):
    where: str  # "local" or the server's URL

    def list_kbs(self) -> list[dict[str, Any]]: ...
    def find_kb(self, name_or_id: str) -> dict[str, Any]: ...
    def create_kb(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def delete_kb(self, kb_id: str) -> None: ...
    def ingest(self, kb_id: str, path: Path, metadata: dict[str, Any]) -> dict[str, Any]: ...
    def plan(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def ask(self, body: dict[str, Any]) -> Iterator[Event]: ...
    def close(self) -> None: ...


def ensure_data_dir(data_dir: Path, may_create: bool) -> str | None:
    """Refuse to invent an empty data dir for a command that only reads; say where a new one
    goes. Returns the notice to print, if any."""
    if data_dir.is_dir():
        return None
    where = data_dir.resolve()
    if not may_create:
        raise InvalidInput(
            f"no data dir at {where}: run planrag from the folder that holds ./data, or set "
            "PLANRAG_DATA_DIR (nothing was created)",
            setting="PLANRAG_DATA_DIR",
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"created the data dir {where} (PLANRAG_DATA_DIR)"


def open_backend(settings: Settings, may_create: bool) -> tuple[Backend, str | None]:
    """The backend for a command, and a notice to print (a data dir created)."""
    url = server_url(settings.server_url, settings.data_dir)
    if url:
        from planrag.cli.client import ApiClient  # httpx: only when there is a server

        return HttpBackend(ApiClient(url, settings.api_key)), None
    notice = ensure_data_dir(settings.data_dir, may_create)
    return LocalBackend(settings), notice


class LocalBackend:
    """The stores of the data dir, opened by this process (no server running)."""

    where = "local"

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    @cached_property
    def runtime(self) -> Runtime:
        from planrag.runtime import Runtime

        return Runtime.open(self._settings)

    def close(self) -> None:
        if "runtime" in self.__dict__:
            self.runtime.close()
        elif "metadata" in self.__dict__:
            self.metadata.engine.dispose()

    @cached_property
    def metadata(self) -> MetadataStore:
        """The metadata DB alone (listing needs neither vectors nor models: a fast start)."""
        if "runtime" in self.__dict__ or self._settings.pg.metadata:
            return self.runtime.metadata  # metadata on (perhaps embedded) PostgreSQL
        from planrag.stores import migrations
        from planrag.stores.metadata import MetadataStore, make_engine

        engine = make_engine(self._settings.database_url)
        migrations.upgrade_if_needed(engine)
        return MetadataStore(engine)

    def list_kbs(self) -> list[dict[str, Any]]:
        listing = self._sqlite_listing()
        if listing is None:
            kbs = self.metadata.list_kbs()
            stats = self.metadata.kb_stats(kb.id for kb in kbs)
            listing = [(kb, stats[kb.id]) for kb in kbs]
        return [
            {**kb.model_dump(mode="json"), "stats": stats.model_dump(mode="json")}
            for kb, stats in listing
        ]

    def _sqlite_listing(self) -> Listing | None:
        """The listing read with `sqlite3` alone (no SQLAlchemy: a fast `kb list`) when the
        metadata DB is a current SQLite file and no store is open yet; else None."""
        if "runtime" in self.__dict__ or "metadata" in self.__dict__ or self._settings.pg.metadata:
            return None
        from planrag.stores.sqlite_listing import list_knowledge_bases

        return list_knowledge_bases(self._settings.database_url)

    def find_kb(self, name_or_id: str) -> dict[str, Any]:
        services = self.runtime.knowledge_bases
        try:
            kb = services.get_by_name(name_or_id)
        except KnowledgeBaseNotFound:
            kb = services.get(name_or_id)
        return kb.model_dump(mode="json")

    def create_kb(self, body: dict[str, Any]) -> dict[str, Any]:
        from planrag.services.knowledge_bases import KnowledgeBaseCreate

        kb = self.runtime.knowledge_bases.create(KnowledgeBaseCreate.model_validate(body))
        return kb.model_dump(mode="json")

    def delete_kb(self, kb_id: str) -> None:
        self.runtime.knowledge_bases.delete(kb_id)

    def ingest(self, kb_id: str, path: Path, metadata: dict[str, Any]) -> dict[str, Any]:
        from planrag.core.types import DocumentMetadata, DocumentStatus
        from planrag.services.ingestion import UploadItem

        ingestion = self.runtime.ingestion
        item = UploadItem(filename=path.name, data=path.read_bytes())
        uploaded = ingestion.upload(
            kb_id, [item], DocumentMetadata.model_validate(metadata), background=False
        )[0]
        result = uploaded.model_dump(mode="json")
        if uploaded.status == DocumentStatus.pending:
            result |= ingestion.index(uploaded.id).model_dump(mode="json")
        return result

    def plan(self, body: dict[str, Any]) -> dict[str, Any]:
        from planrag.services.ask_requests import PlanRequest

        runtime = self.runtime
        envelope = runtime.ask.plan(PlanRequest.model_validate(body), runtime.metadata.list_kbs())
        return envelope.model_dump(mode="json", by_alias=True)

    def ask(self, body: dict[str, Any]) -> Iterator[Event]:
        import asyncio

        from planrag.services.ask_events import event_data
        from planrag.services.ask_requests import AskRequest

        runtime = self.runtime
        readable = runtime.metadata.list_kbs()
        request = AskRequest.model_validate(body)
        scope = runtime.ask.scope(request, readable, request.doc_id)
        events = runtime.ask.ask(request, scope, readable)
        loop = asyncio.new_event_loop()
        try:
            while True:
                try:
                    event = loop.run_until_complete(anext(events))
                except StopAsyncIteration:
                    return
                yield event.event, event_data(event)
        finally:
            closing = getattr(events, "aclose", None)
            if closing is not None:
                loop.run_until_complete(closing())
            loop.close()


class HttpBackend:
    """A running planrag server (this data dir's, or PLANRAG_SERVER_URL)."""

    def __init__(self, client: ApiClient) -> None:
        self._client = client
        self.where = client.base_url

    def close(self) -> None:
        self._client.close()

    def list_kbs(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._client.get("/api/knowledge-bases")
        return found

    def find_kb(self, name_or_id: str) -> dict[str, Any]:
        try:
            found: dict[str, Any] = self._client.get(_kb_path(name_or_id))
        except Exception as exc:
            if getattr(exc, "status", None) == 404:
                raise KnowledgeBaseNotFound(f"knowledge base '{name_or_id}' not found") from exc
            raise
        return found

    def create_kb(self, body: dict[str, Any]) -> dict[str, Any]:
        created: dict[str, Any] = self._client.post("/api/knowledge-bases", body)
        return created

    def delete_kb(self, kb_id: str) -> None:
        self._client.delete(_kb_path(kb_id))

    def ingest(self, kb_id: str, path: Path, metadata: dict[str, Any]) -> dict[str, Any]:
        form = {k: str(v) for k, v in metadata.items() if v not in (None, [], "") and k != "tags"}
        if metadata.get("tags"):
            import json

            form["tags"] = json.dumps(metadata["tags"], ensure_ascii=False)
        uploaded = self._client.upload(quote(kb_id, safe=""), path, form)
        document = uploaded
        while document["status"] in ("pending", "processing"):
            time.sleep(POLL_S)
            try:
                document = self._client.get(f"{_kb_path(kb_id)}/documents/{uploaded['id']}")
            except Exception as exc:
                if isinstance(exc, NotFound) or getattr(exc, "status", None) == 404:
                    raise NotFound(f"'{path.name}' was deleted while indexing") from exc
                raise
        return {**document, "duplicate": uploaded.get("duplicate", False)}

    def plan(self, body: dict[str, Any]) -> dict[str, Any]:
        envelope: dict[str, Any] = self._client.post("/ai/v2/plan", body)
        return envelope

    def ask(self, body: dict[str, Any]) -> Iterator[Event]:
        return self._client.events("/ai/v2/ask", body)


def _kb_path(name_or_id: str) -> str:
    return f"/api/knowledge-bases/{quote(name_or_id, safe='')}"
