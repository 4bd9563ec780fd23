"""Start-up: ``import sonnx``, the command line, and a check that proves nothing with z3 import only what they use.

Each case runs in a fresh interpreter (the test process has imported
everything already) and lists which of the heavy modules ended up in
``sys.modules``. The heavy ones are the optional runtimes and services
(onnxruntime, Dask, cryptography, jsonschema), z3, and sonnx's own parts that
only some runs need: the kernel table, the executor, the SMT engine, the
evidence bundle, the batch runner; and of the standard library, what onnx and
NumPy leave out and a check does not use (the digests, HTML, the worker
processes' machinery). The default engine on a small model runs
the SMT proofs, so there z3 is imported: the last case says so, so that the
first ones are known to detect an import at all.

The rules are listed in one table that holds what the reports need, and a
rule's module is imported when the rule runs: a check of the base profile
imports none of the modules of the strict profile's rules nor the analyses
only they use, and a check of the strict profile imports them all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sonnx.rules import PROFILE_SONNX, PROFILE_STRICT, rules_for

ROOT = Path(__file__).resolve().parents[2]
CNN = str(ROOT / "examples" / "cnn_block.onnx")

THIRD_PARTY = ("z3", "onnxruntime", "dask", "distributed", "cryptography", "jsonschema", "numpy.ma")
STANDARD = ("hashlib", "html", "multiprocessing")
"""Of the standard library, what onnx and NumPy do not import and a small check does not use: the digests
(OpenSSL's library), the HTML entity tables, the worker processes' machinery."""
OWN = (
    "sonnx.ops.registry",
    "sonnx.execution.executor",
    "sonnx.smt.engine",
    "sonnx.differential.run",
    "sonnx.checking.evidence.render",
    "sonnx.checking.batch",
    "sonnx.checking.formats.sarif",
    "sonnx.differential.oracles",
    "sonnx.differential.metrics",
    "sonnx.smt.pool",
    "sonnx.base.workers",
    "sonnx.base.build_info",
    "sonnx.execution.orders",
    "sonnx.ops.base",
)
STRICT_RULES = tuple(
    sorted({r.module for r in rules_for(PROFILE_STRICT)} - {r.module for r in rules_for(PROFILE_SONNX)})
)
"""The modules of the rules only the strict profile runs."""
STRICT_ANALYSES = (
    "sonnx.rules.intervals_graph",
    "sonnx.rules.intervals_search",
    "sonnx.rules.shapes_analysis",
    "sonnx.rules.value_classes",
    "sonnx.rules.shape_inputs",
    "sonnx.rules.strict_op_table",
)
"""What only those rules use: the interval analysis, the shape analysis, the value classes, the working group's
restrictions."""
HEAVY = THIRD_PARTY + STANDARD + OWN + STRICT_RULES + STRICT_ANALYSES


def imported_after(code: str) -> set[str]:
    """The modules of :data:`HEAVY` that a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def _check(*argv: str, entry: str = "check_main", code: tuple[int, ...] = (0,)) -> str:
    """Code that runs ``sonnx-check ARGV`` (or ``sonnx ARGV`` with ``entry="main"``) in-process, its report
    thrown away, and asserts its exit code is one of ``code``."""
    return (
        f"import io\nfrom sonnx.cli.main import {entry}\n"
        f"code = {entry}({list(argv)!r}, io.StringIO(), io.StringIO())\nassert code in {code!r}, code"
    )


@pytest.mark.parametrize("code", ["import sonnx", "import sonnx.cli.main", "import sonnx.cli"])
def test_importing_sonnx_and_its_command_line_imports_nothing_heavy(code: str) -> None:
    assert imported_after(code) == set()


def test_a_check_with_the_direct_engine_imports_nothing_heavy() -> None:
    assert imported_after(_check("--engine", "direct", CNN)) == set()
    assert imported_after(_check("check", "--engine", "direct", CNN, entry="main")) == set()  # nor the others' set-up


def test_a_check_imports_the_code_of_the_rules_its_profile_runs_and_no_other() -> None:
    assert len(STRICT_RULES) == 17
    assert not imported_after(_check("--engine", "direct", CNN)) & set(STRICT_RULES + STRICT_ANALYSES)
    got = imported_after(_check("--engine", "direct", "--profile", "sonnx-strict", CNN, code=(0, 1)))
    assert set(STRICT_RULES + STRICT_ANALYSES) <= got


def test_the_default_engine_on_a_small_model_imports_z3_and_the_smt_engine_only() -> None:
    assert imported_after(_check(CNN)) == {"z3", "sonnx.smt.engine", "sonnx.smt.pool"}  # its pool never starts


def test_a_run_that_executes_the_model_imports_the_executor() -> None:
    got = imported_after(_check("--engine", "direct", "--orders", "2", CNN))
    assert {"sonnx.execution.executor", "sonnx.ops.registry"} <= got and not got & set(THIRD_PARTY)
    assert {"sonnx.execution.orders", "sonnx.ops.base", "hashlib"} <= got  # EXEC-ORDERS digests each order
