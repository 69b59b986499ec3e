"""A minimal writer of OLE2 compound files (CFB version 3, 512-byte sectors), written for the HWP
tests from the [MS-CFB] layout: header, FAT, directory (a red-black sibling tree per storage, all
nodes black and balanced), a mini stream with its mini FAT for streams under 4,096 bytes, and
regular sectors for larger ones. Enough for `olefile` to read what real writers produce; no DIFAT
sectors (up to 109 FAT sectors, about 7 MB), no timestamps.

Shared with other test packages: `from tests.ingest.cfb import compound_file`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
SECTOR = 512
MINI_SECTOR = 64
MINI_CUTOFF = 4096
FREESECT, ENDOFCHAIN, FATSECT, NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
_STORAGE, _STREAM, _ROOT = 1, 2, 5
_BLACK = 1
_HEADER_DIFAT = 109


@dataclass
class _Entry:
    name: str
    kind: int
    data: bytes = b""
    children: list[_Entry] = field(default_factory=list)
    id: int = 0
    left: int = NOSTREAM
    right: int = NOSTREAM
    child: int = NOSTREAM
    start: int = ENDOFCHAIN
    size: int = 0


class _Sectors:
    """Regular sectors and their FAT chains, allocated in file order."""

    def __init__(self) -> None:
        self.sectors: list[bytes] = []
        self.fat: list[int] = []

    def add(self, data: bytes) -> int:
        if not data:
            return ENDOFCHAIN
        start = len(self.sectors)
        count = -(-len(data) // SECTOR)
        for i in range(count):
            self.sectors.append(data[i * SECTOR : (i + 1) * SECTOR].ljust(SECTOR, b"\0"))
            self.fat.append(start + i + 1 if i < count - 1 else ENDOFCHAIN)
        return start


def compound_file(streams: dict[str, bytes]) -> bytes:
    """A compound file holding `streams` ("Storage/Stream" paths; storages are implied)."""
    root = _tree(streams)
    entries = _number(root)
    sectors = _Sectors()
    mini, mini_fat = bytearray(), []
    for entry in entries:
        if entry.kind != _STREAM:
            continue
        entry.size = len(entry.data)
        if entry.size < MINI_CUTOFF:
            entry.start = len(mini) // MINI_SECTOR
            count = -(-entry.size // MINI_SECTOR)
            mini_fat += [entry.start + i + 1 for i in range(count - 1)] + [ENDOFCHAIN]
            mini += entry.data.ljust(count * MINI_SECTOR, b"\0")
        else:
            entry.start = sectors.add(entry.data)
    root.start, root.size = sectors.add(bytes(mini)), len(mini)
    mini_fat_bytes = _pack_table(mini_fat, SECTOR // 4) if mini_fat else b""
    mini_fat_start = sectors.add(mini_fat_bytes)
    directory = b"".join(_pack_entry(e) for e in entries)
    directory += _pack_empty_entry() * (-len(entries) % (SECTOR // 128))
    directory_start = sectors.add(directory)
    fat_ids = _add_fat(sectors)
    header = struct.pack(
        "<8s16sHHHHH6sIIIIIIIII",
        MAGIC, bytes(16), 0x3E, 3, 0xFFFE, 9, 6, bytes(6),
        0, len(fat_ids), directory_start, 0, MINI_CUTOFF,
        mini_fat_start, len(mini_fat_bytes) // SECTOR, ENDOFCHAIN, 0,
    )  # fmt: skip
    header += struct.pack(f"<{_HEADER_DIFAT}I", *fat_ids, *[FREESECT] * (109 - len(fat_ids)))
    return header + b"".join(sectors.sectors)


def _tree(streams: dict[str, bytes]) -> _Entry:
    root = _Entry("Root Entry", _ROOT)
    for path, data in streams.items():
        *storages, name = path.split("/")
        parent = root
        for storage in storages:
            found = next((c for c in parent.children if c.name == storage), None)
            if found is None:
                found = _Entry(storage, _STORAGE)
                parent.children.append(found)
            parent = found
        parent.children.append(_Entry(name, _STREAM, data=data))
    return root


def _number(root: _Entry) -> list[_Entry]:
    """Entries in directory order (breadth first, root 0) with their sibling trees linked."""
    order, queue = [root], [root]
    while queue:
        parent = queue.pop(0)
        for child in parent.children:
            child.id = len(order)
            order.append(child)
            queue.append(child)
    for entry in order:
        siblings = sorted(entry.children, key=lambda c: (len(c.name), c.name.upper()))
        entry.child = _balance(siblings)
    return order


def _balance(siblings: list[_Entry]) -> int:
    """Link a sorted list of siblings as a balanced binary tree; returns its root's id."""
    if not siblings:
        return NOSTREAM
    middle = len(siblings) // 2
    node = siblings[middle]
    node.left = _balance(siblings[:middle])
    node.right = _balance(siblings[middle + 1 :])
    return node.id


def _add_fat(sectors: _Sectors) -> list[int]:
    """Append the FAT sectors (which map themselves as FATSECT); returns their ids."""
    used = len(sectors.sectors)
    count = 1
    while used + count > count * (SECTOR // 4):
        count += 1
    if count > _HEADER_DIFAT:
        raise ValueError("file too large for a header-only DIFAT")
    ids = list(range(used, used + count))
    table = _pack_table([*sectors.fat, *[FATSECT] * count], SECTOR // 4)
    sectors.sectors += [table[i * SECTOR : (i + 1) * SECTOR] for i in range(count)]
    return ids


def _pack_table(values: list[int], per_sector: int) -> bytes:
    padded = values + [FREESECT] * (-len(values) % per_sector)
    return struct.pack(f"<{len(padded)}I", *padded)


def _pack_entry(entry: _Entry) -> bytes:
    name = (entry.name + "\0").encode("utf-16-le")
    return struct.pack(
        "<64sHBBIII16sIQQIQ",
        name, len(name), entry.kind, _BLACK, entry.left, entry.right, entry.child,
        bytes(16), 0, 0, 0, entry.start if entry.kind != _STORAGE else 0, entry.size,
    )  # fmt: skip


def _pack_empty_entry() -> bytes:
    return struct.pack(
        "<64sHBBIII16sIQQIQ", b"", 0, 0, 0, NOSTREAM, NOSTREAM, NOSTREAM, bytes(16), 0, 0, 0, 0, 0
    )
