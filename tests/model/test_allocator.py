"""sonnx.base.allocator: freed memory stays in the process and the next array of that size reuses it."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sonnx.base import allocator

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")


def faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_freed_memory_is_reused_without_faults() -> None:
    assert allocator.keep_freed_memory()
    assert allocator.keep_freed_memory()  # once per process; the second call says the same
    size = 16 << 20  # below the 32 MiB mmap threshold: from the heap
    first = np.ones(size // 8)
    del first
    before = faults()
    again = np.ones(size // 8)  # written through: each page not already in the process would fault
    pages = size // resource.getpagesize()
    assert faults() - before < pages // 50  # glibc left alone faults in about one page in eight here
    assert float(again[-1]) == 1.0


def test_a_plan_keeps_freed_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    from sonnx.execution import plan
    from sonnx.loader import load_model

    calls: list[None] = []
    monkeypatch.setattr(plan, "keep_freed_memory", lambda: calls.append(None) or True)
    plan.ModelPlan(load_model(str(ROOT / "examples" / "cnn_block.onnx")))
    assert len(calls) == 1


def test_the_thresholds_are_set_without_starting_a_process() -> None:
    """mallopt is looked up among the process's own symbols: no ldconfig child (what ctypes.util.find_library
    runs), whose start would cost a small check more than the memory it saves. Checked in a fresh interpreter,
    where nothing has set the thresholds yet, with every way of starting a process made to fail."""
    probe = (
        "import os, subprocess\n"
        "def refused(*a, **k):\n    raise RuntimeError('a process was started')\n"
        "subprocess.Popen = refused\nos.fork = refused\nos.posix_spawn = refused\n"
        "from sonnx.base.allocator import keep_freed_memory\nassert keep_freed_memory() is True\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
