"""Upload an inflating DOCX to a real server and watch it: peak RSS growth of the server (with
its helper processes) and the time until the document reaches `error` (issue 22 #5).

The DOCX is a real one (python-docx) whose word/document.xml is one paragraph repeated to
`--inflated-mb` (300 MB: about a megabyte of upload). A second upload is a small DOCX that
splits into more chunks than PLANRAG_INGEST__MAX_CHUNKS. `--limit-mb` sets
PLANRAG_INGEST__MAX_INFLATED_MB for the server (a large value shows the unlimited behaviour;
`--timeout` bounds the wait). A timing bench: run it under `flock /work/bench.lock`.

    flock /work/bench.lock python -m bench.inflate [--inflated-mb 300] [--limit-mb 64]
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx
import psutil

from bench.server import environment, planrag_server

PARAGRAPH = "<w:p><w:r><w:t>연차 휴가는 입사 첫해 15일이다. 반복되는 문단 {n}.</w:t></w:r></w:p>"


def inflating_docx(inflated_mb: float, distinct: bool = False) -> bytes:
    """A real DOCX whose document.xml is about `inflated_mb` MB of one paragraph repeated
    (`distinct`: numbered paragraphs, each its own chunk-worth of text)."""
    import docx

    base = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("시작")
    document.save(base)
    source = zipfile.ZipFile(io.BytesIO(base.getvalue()))
    head, tail = source.read("word/document.xml").decode().split("<w:body>", 1)
    one = PARAGRAPH.format(n=0)
    repeats = int(inflated_mb * 1024 * 1024) // len(one.encode())
    if distinct:
        body = "".join(PARAGRAPH.format(n=i) * 6 for i in range(repeats // 6))
    else:
        body = one * repeats
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target:
        for info in source.infolist():
            if info.filename == "word/document.xml":
                target.writestr(info.filename, f"{head}<w:body>{body}{tail}".encode())
            else:
                target.writestr(info.filename, source.read(info))
    return out.getvalue()


def tree_rss(pid: int) -> int:
    root = psutil.Process(pid)
    total = 0
    for proc in [root, *root.children(recursive=True)]:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total


def watch(http: httpx.Client, pid: int, kb: str, name: str, data: bytes, timeout: float) -> dict:
    """Upload and sample the server's RSS every 50 ms until the document settles."""
    baseline = tree_rss(pid)
    start = time.perf_counter()
    made = http.post(f"/api/knowledge-bases/{kb}/documents", files={"files": (name, data)})
    made.raise_for_status()
    doc_id = made.json()[0]["id"]
    peak, doc = baseline, {"status": "pending"}
    while time.perf_counter() - start < timeout:
        peak = max(peak, tree_rss(pid))
        doc = http.get(f"/api/knowledge-bases/{kb}/documents/{doc_id}").json()
        if doc["status"] in ("error", "completed"):
            break
        time.sleep(0.05)
    settled = time.perf_counter() - start
    after = tree_rss(pid)
    return {
        "file": name,
        "upload_kb": round(len(data) / 1024, 1),
        "status": doc["status"],
        "seconds_to_settle": round(settled, 2),
        "peak_rss_growth_mb": round((peak - baseline) / 2**20, 1),
        "rss_growth_after_mb": round((after - baseline) / 2**20, 1),
        "error": doc.get("error"),
        "chunks": doc.get("chunk_count"),
    }


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    bomb = inflating_docx(args.inflated_mb)
    many = inflating_docx(args.chunky_mb, distinct=True)
    settings = {
        "PLANRAG_INGEST__MAX_INFLATED_MB": str(args.limit_mb),
        "PLANRAG_EMBEDDING__MODEL": "sentence-transformers/all-MiniLM-L6-v2",
    }
    results = []
    with tempfile.TemporaryDirectory() as tmp, environment(settings):
        data_dir = Path(tmp) / "data"
        with (
            planrag_server(data_dir, Path(tmp) / "server.log") as server,
            httpx.Client(base_url=server.base_url, timeout=600) as http,
        ):
            kb = http.post("/api/knowledge-bases", json={"name": "inflate"}).json()["id"]
            for name, data in (("bomb.docx", bomb), ("many.docx", many)):
                results.append(watch(http, server.pid, kb, name, data, args.timeout))
                print(json.dumps(results[-1], ensure_ascii=False), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inflated-mb", type=float, default=300.0)
    parser.add_argument("--chunky-mb", type=float, default=4.0, help="the many-chunks DOCX")
    parser.add_argument("--limit-mb", type=float, default=64.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
