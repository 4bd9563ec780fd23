"""Evidence bundles in tests: writing one with the command line, verifying it, copying it, forging it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sonnx.cli import check_main, main
from tests.common.cli import EXAMPLES as EX
from tests.common.cli import ROOT, call

__all__ = ["EX", "ROOT", "copy_of", "files_of", "flip_byte", "rehash", "rehash_all", "verify", "write"]


def write(dest: Path, model: Path | str, *extra: str) -> int:
    code, _, err = call(check_main, "-q", str(model), "--evidence", str(dest), *extra)
    assert "Traceback" not in err and "internal error" not in err, err
    return code


def verify(dest: Path, *extra: str) -> tuple[int, str]:
    code, out, err = call(main, "evidence", "verify", "-q", str(dest), *extra)
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out


def files_of(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def rehash(d: Path, rel: str) -> None:
    """Update the manifest after a change, as a careful forger would."""
    m = json.loads((d / "manifest.json").read_text())
    digest = hashlib.sha256((d / rel).read_bytes()).hexdigest()
    m["files"][rel] = digest
    if m["model"]["file"] == rel:
        m["model"]["sha256"] = digest
    (d / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")


def rehash_all(d: Path) -> None:
    """Recompute every hash the manifest holds from the files on disk, and list every file present."""
    m = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
    present = {rel for rel in files_of(d) if rel not in ("manifest.json", "attestation.intoto.jsonl")}
    digests = {rel: hashlib.sha256((d / rel).read_bytes()).hexdigest() for rel in sorted(present)}
    m["files"] = digests
    m["model"]["sha256"] = digests.get(m["model"]["file"], m["model"]["sha256"])
    for e in m["model"]["external_data"]:
        e["sha256"] = digests.get(e["file"], e["sha256"])
    (d / "manifest.json").write_text(json.dumps(m, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def copy_of(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy"
    for rel, data in files_of(src).items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(data)
    return dest


def edit_json(path: Path, edit: Callable[[Any], object]) -> None:
    """Apply ``edit`` to the JSON document at ``path`` in place and write it back (a forger's edit)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    edit(doc)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
