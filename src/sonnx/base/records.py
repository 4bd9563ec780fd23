"""Results kept under the SHA-256 of their inputs: ``<folder>/<digest>.json``, read back only when whole.

The build keeps two such records: a passing Coq check (``tools/coq_record.py``)
and a run of the theorem modules (``proofs/_record.py``). Each is a function of
inputs it names by digest, so a later step of the same tree can read the result
instead of computing it again. What they share is here: the digest frames each
named part by its name and length (no two inputs hash alike by moving bytes
from one part to the next), a record is written atomically, and a record is
read only when it is a JSON object of the expected format that names its own
file's digest; anything else is ``None``, which means computing again, never a
result taken on trust.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .files import write_atomically


def framed_digest(header: str, parts: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 (hex) of ``header`` and of each named part, framed by its name and length."""
    h = hashlib.sha256(f"{header}\n".encode())
    for name, data in parts:
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def read_record(record: Path, fmt: int) -> dict[str, Any] | None:
    """The record's object, or None when it is absent, unreadable, of another format or of another digest."""
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != fmt or data.get("digest") != record.stem:
        return None
    return data


def write_record(record: Path, fmt: int, fields: Mapping[str, Any]) -> None:
    """Write ``fields`` as the record of format ``fmt`` named by its file's digest, atomically."""
    record.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"format": fmt, "digest": record.stem, **fields}, indent=1, sort_keys=True) + "\n"
    write_atomically(str(record), lambda out: out.write(text.encode("utf-8")))
