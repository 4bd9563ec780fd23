"""The two lock files agree: ``make example``'s runtime lock pins what the dev lock pins, and only the runtime part.

``requirements/run.lock`` is written by uv constrained by ``requirements/dev.lock`` (``make lock``), so a
quick-start check and the test suite run the same versions of every library sonnx imports.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==(\S+)(?: ; (.*?))? \\$", re.M)


def pins(lock: str) -> dict[tuple[str, str], str]:
    """``(name, marker) -> version`` of every pinned requirement of a uv lock file."""
    text = (ROOT / "requirements" / lock).read_text(encoding="utf-8")
    return {(m.group(1).lower(), m.group(3) or ""): m.group(2) for m in PIN.finditer(text)}


def test_every_runtime_pin_is_the_dev_locks_pin() -> None:
    run, dev = pins("run.lock"), pins("dev.lock")
    assert run and all(dev.get(k) == v for k, v in run.items()), {k: (v, dev.get(k)) for k, v in run.items()}


def test_the_runtime_lock_holds_the_runtime_dependencies_and_no_dev_tool() -> None:
    names = {name for name, _ in pins("run.lock")}
    assert {"onnx", "numpy", "z3-solver", "threadpoolctl", "ml-dtypes", "setuptools-scm"} <= names
    assert not names & {"pytest", "ruff", "mypy", "sphinx", "onnxruntime", "hypothesis", "dask"}
    assert len(names) < 20
