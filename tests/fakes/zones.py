"""A fake time zone database: TZif files for zones whose clocks change when a test wants.

Real zones change their clocks twice a year; a test through the real service cannot wait for
the last Sunday in March. `write_zone` writes a zone (RFC 8536 TZif, version 2) with one change
at a chosen instant into a folder; a process started with `PYTHONTZPATH` set to that folder
finds it by name through `zoneinfo`, exactly as it finds Europe/Berlin.
"""

from __future__ import annotations

import struct
from datetime import datetime
from pathlib import Path

_ABBREVIATIONS = b"STD\x00DST\x00"


def write_zone(folder: Path, name: str, *, change_at: datetime, before: int, after: int) -> None:
    """Write zone `name` ("Test/Spring"): UTC offset `before` seconds until `change_at`, then
    `after`. The later offset is marked daylight saving when it is the greater."""
    transitions = [(int(change_at.timestamp()), 1)]
    types = [(before, 0, 0), (after, int(after > before), 4)]

    def block(time_format: str) -> bytes:
        counts = struct.pack(">6l", 0, 0, 0, len(transitions), len(types), len(_ABBREVIATIONS))
        times = b"".join(struct.pack(time_format, at) for at, _ in transitions)
        indices = bytes(index for _, index in transitions)
        infos = b"".join(struct.pack(">lBB", *info) for info in types)
        return counts + times + indices + infos + _ABBREVIATIONS

    header = b"TZif2" + bytes(15)
    # Version 1 data (32-bit times), then version 2 data (64-bit), then an empty footer: no
    # rule after the last change, whose offset holds for ever.
    data = header + block(">l") + header + block(">q") + b"\n\n"
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
