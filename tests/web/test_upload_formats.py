"""The console's file picker offers exactly the extensions the server parses."""

from __future__ import annotations

import re
from pathlib import Path

from planrag.ingest.parsers import SUPPORTED_EXTENSIONS

UPLOAD_ZONE = Path(__file__).resolve().parents[2] / "web/src/pages/kb/UploadZone.tsx"


def test_the_picker_accepts_every_supported_extension() -> None:
    found = re.search(r'const ACCEPTED = "([^"]+)"', UPLOAD_ZONE.read_text(encoding="utf-8"))
    assert found, "ACCEPTED not found in UploadZone.tsx"
    assert sorted(found.group(1).split(",")) == sorted(SUPPORTED_EXTENSIONS)
