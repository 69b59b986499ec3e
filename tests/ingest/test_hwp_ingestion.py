""".hwp files end to end: uploaded through the HTTP API and ingested by `planrag ingest`, then
found by a Korean search; protected and broken ones end `error` with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from planrag.core.settings import Settings
from planrag.llm.embedders import EmbedderRegistry
from planrag.runtime import Runtime
from planrag.services.retrieval import RetrieveRequest
from tests.cli.invoke import planrag
from tests.conftest import wait_for_documents
from tests.ingest.hwp_files import PASSWORD, SECTION_DEF, TAB, Table, make_hwp

MEMO = [
    [[SECTION_DEF, "출장비 규정"], ["숙박비는", TAB, "1박 10만 원까지 지급한다."]],
    [["지역별 한도:", Table([["서울", "12만 원"], ["부산", "10만 원"]])]],
]
QUERY = "숙박비 지급 한도"


def test_upload_through_the_api(client: TestClient) -> None:
    kb = client.post("/api/knowledge-bases", json={"name": "hwp"}).json()
    files = {
        "출장비.hwp": make_hwp(MEMO),
        "잠긴.hwp": make_hwp(MEMO, flags=PASSWORD),
        "가짜.hwp": b"this is not an hwp file at all",
    }
    response = client.post(
        f"/api/knowledge-bases/{kb['id']}/documents",
        files=[("files", (name, data)) for name, data in files.items()],
    )
    assert response.status_code == 202, response.text
    docs = {d["filename"]: d for d in wait_for_documents(client, kb["id"])}
    assert docs["출장비.hwp"]["status"] == "completed", docs["출장비.hwp"]
    assert docs["출장비.hwp"]["file_type"] == "hwp"
    assert docs["잠긴.hwp"]["status"] == "error"
    assert docs["잠긴.hwp"]["error"].startswith("password-protected HWP")
    assert docs["가짜.hwp"]["status"] == "error"
    assert "not a valid .hwp file" in docs["가짜.hwp"]["error"]
    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": QUERY, "strategy": "bm25", "top_k": 5},
    ).json()
    assert hits and hits[0]["doc_id"] == docs["출장비.hwp"]["id"]
    assert "1박 10만 원" in hits[0]["content"]
    chunks = client.get(
        f"/api/knowledge-bases/{kb['id']}/documents/{docs['출장비.hwp']['id']}/chunks"
    ).json()
    assert "부산" in " ".join(c["text"] for c in chunks)  # table cells are text too


@pytest.mark.slow
def test_planrag_ingest(tmp_path: Path, embedders: EmbedderRegistry) -> None:
    data, docs = tmp_path / "data", tmp_path / "docs"
    docs.mkdir()
    (docs / "출장비.hwp").write_bytes(make_hwp(MEMO, compressed=False))
    (docs / "배포용.hwp").write_bytes(make_hwp(MEMO, flags=1 << 2))
    result = planrag(data, "ingest", str(docs), "--kb", "규정", "--create")
    assert result.returncode == 1, result.stderr  # one of the two failed
    assert "1 of 2 file(s) indexed" in result.stderr
    assert "배포용.hwp" in result.stderr and "distribution-protected HWP" in result.stderr
    runtime = Runtime.open(Settings(_env_file=None, data_dir=data), embedders)  # type: ignore[call-arg]
    try:
        kb = runtime.knowledge_bases.get_by_name("규정")
        hits = runtime.retrieval.retrieve(kb.id, RetrieveRequest(query=QUERY, strategy="bm25"))
    finally:
        runtime.close()
    assert hits and hits[0].metadata.filename == "출장비.hwp"
