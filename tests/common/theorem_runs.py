"""Each theorem module run alone in a process of its own, once per test session, for every file that reads it.

``tests/spec/test_proofs.py`` reads the report ``python -m proofs.NAME`` prints and its exit code;
``tests/spec/test_proofs_isolation.py`` compares the outcomes of the same run (``--record FILE`` writes them
as JSON beside the printed report) with a run of all modules in one process. Under pytest-xdist the two
files may be on two workers, so the runs are kept in a folder every worker of the session shares (the
parent of the workers' base temporary folders), one lock per module: a worker first runs the modules no
other worker holds, then waits for the others' results, so that two workers split the runs instead of one
waiting for the other, and no module runs twice in a session.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proofs.registry import MODULES

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class AloneRun:
    """What ``python -m proofs.NAME --record FILE`` did: its exit code, its output, the JSON it wrote."""

    name: str
    returncode: int
    stdout: str
    stderr: str
    record: dict[str, Any] | None
    """``_kit.result_record`` of the run, None when the run wrote none."""


def shared_folder(factory: pytest.TempPathFactory) -> Path:
    """The session's folder of theorem runs: shared by the xdist workers, under the session's temp root."""
    base = factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "theorems-alone"
    folder.mkdir(exist_ok=True)
    return folder


def _run(name: str, folder: Path) -> None:
    record = folder / f"{name}.record.json"
    proc = subprocess.run(
        [sys.executable, "-m", f"proofs.{name}", "--record", str(record)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    kept = {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
    temporary = folder / f".{name}.json.tmp"
    temporary.write_text(json.dumps(kept), encoding="utf-8")
    temporary.replace(folder / f"{name}.json")


def _read(name: str, folder: Path) -> AloneRun:
    kept = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    record_file = folder / f"{name}.record.json"
    record = json.loads(record_file.read_text(encoding="utf-8")) if record_file.is_file() else None
    return AloneRun(name, kept["returncode"], kept["stdout"], kept["stderr"], record)


def _take(name: str, folder: Path, wait: bool) -> AloneRun | None:
    """The run of ``name``, made now when no worker made it; None when another worker holds it and not ``wait``."""
    with open(folder / f"{name}.lock", "a", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        try:
            if not (folder / f"{name}.json").is_file():
                _run(name, folder)
            return _read(name, folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def alone_runs(folder: Path) -> dict[str, AloneRun]:
    """Every module of the registry run alone, in registry order (see the module docstring)."""
    runs: dict[str, AloneRun] = {}
    for name in MODULES:
        taken = _take(name, folder, wait=False)
        if taken is not None:
            runs[name] = taken
    for name in MODULES:
        if name not in runs:
            waited = _take(name, folder, wait=True)
            assert waited is not None
            runs[name] = waited
    return {name: runs[name] for name in MODULES}
