"""Original uploaded files under <data_dir>/files/<kb_id>/, kept so indexing can resume."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

STAGE_BLOCK = 1 << 20


class FileStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, kb_id: str, doc_id: str, file_type: str) -> Path:
        return self.root / kb_id / f"{doc_id}.{file_type}"

    def save(self, kb_id: str, doc_id: str, file_type: str, data: bytes) -> Path:
        """Write atomically: a crash never leaves a half-written file under the final name."""
        target = self.path(kb_id, doc_id, file_type)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".part")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        return target

    def save_file(self, kb_id: str, doc_id: str, file_type: str, source: Path) -> Path:
        """`save` from a file on disk, copied block by block (never read whole)."""
        target = self.path(kb_id, doc_id, file_type)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".part")
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
        return target

    def stage(self, stream: BinaryIO, limit: int) -> Path | None:
        """Copy a stream to a new file under `<root>/.incoming`, block by block; None (and
        nothing left behind) once it passes `limit` bytes. The caller removes the file."""
        incoming = self.root / ".incoming"
        incoming.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=incoming, suffix=".upload")
        path, size = Path(name), 0
        with os.fdopen(fd, "wb") as out:
            while block := stream.read(STAGE_BLOCK):
                size += len(block)
                if size > limit:
                    break
                out.write(block)
        if size > limit:
            path.unlink(missing_ok=True)
            return None
        return path

    def read(self, kb_id: str, doc_id: str, file_type: str) -> bytes:
        return self.path(kb_id, doc_id, file_type).read_bytes()

    def exists(self, kb_id: str, doc_id: str, file_type: str) -> bool:
        return self.path(kb_id, doc_id, file_type).exists()

    def delete(self, kb_id: str, doc_id: str, file_type: str) -> None:
        self.path(kb_id, doc_id, file_type).unlink(missing_ok=True)

    def delete_kb(self, kb_id: str) -> None:
        shutil.rmtree(self.root / kb_id, ignore_errors=True)
