"""Start-up: ``import sonnx``, the command line, and a check that proves nothing with z3 import only what they use.

Each case runs in a fresh interpreter (the test process has imported
everything already) and lists which of the heavy modules ended up in
``sys.modules``. The heavy ones are the optional runtimes and services
(onnxruntime, Dask, cryptography, jsonschema), z3, and sonnx's own parts that
only some runs need: the kernel table, the executor, the SMT engine, the
evidence bundle, the batch runner. The default engine on a small model runs
the SMT proofs, so there z3 is imported: the last case says so, so that the
first ones are known to detect an import at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CNN = str(ROOT / "examples" / "cnn_block.onnx")

THIRD_PARTY = ("z3", "onnxruntime", "dask", "distributed", "cryptography", "jsonschema")
OWN = (
    "sonnx.ops.registry",
    "sonnx.execution.executor",
    "sonnx.smt.engine",
    "sonnx.differential.run",
    "sonnx.checking.evidence.render",
    "sonnx.checking.batch",
    "sonnx.checking.formats.sarif",
)
HEAVY = THIRD_PARTY + OWN


def imported_after(code: str) -> set[str]:
    """The modules of :data:`HEAVY` that a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def _check(*argv: str, entry: str = "check_main") -> str:
    """Code that runs ``sonnx-check ARGV`` (or ``sonnx ARGV`` with ``entry="main"``) in-process, its report
    thrown away."""
    return (
        f"import io\nfrom sonnx.cli.main import {entry}\n"
        f"code = {entry}({list(argv)!r}, io.StringIO(), io.StringIO())\nassert code == 0, code"
    )


@pytest.mark.parametrize("code", ["import sonnx", "import sonnx.cli.main", "import sonnx.cli"])
def test_importing_sonnx_and_its_command_line_imports_nothing_heavy(code: str) -> None:
    assert imported_after(code) == set()


def test_a_check_with_the_direct_engine_imports_nothing_heavy() -> None:
    assert imported_after(_check("--engine", "direct", CNN)) == set()
    assert imported_after(_check("check", "--engine", "direct", CNN, entry="main")) == set()  # nor the others' set-up


def test_the_default_engine_on_a_small_model_imports_z3_and_the_smt_engine_only() -> None:
    assert imported_after(_check(CNN)) == {"z3", "sonnx.smt.engine"}


def test_a_run_that_executes_the_model_imports_the_executor() -> None:
    got = imported_after(_check("--engine", "direct", "--orders", "2", CNN))
    assert {"sonnx.execution.executor", "sonnx.ops.registry"} <= got and not got & set(THIRD_PARTY)
