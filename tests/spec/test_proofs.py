"""Every theorem module of proofs/ must print PROVED, and the proof machinery must be able to fail."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import z3

from proofs import _kit, order_independence
from proofs.registry import MODULES, passes_by_theorem, theorems
from sonnx.model import make_graph, make_operation
from sonnx.rewrite import PASSES
from sonnx.rewrite.driver import PASS_NAMES
from sonnx.rules import RULES
from tests.common.theorem_runs import AloneRun, alone_runs, shared_folder
from tools.traceability import theorem_modules

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> dict[str, AloneRun]:
    """``python -m proofs.NAME`` of every module, run once per session (``tests/common/theorem_runs.py``)."""
    return alone_runs(shared_folder(tmp_path_factory))


@pytest.mark.parametrize("name", MODULES)
def test_theorem_module_prints_proved(name: str, alone: dict[str, AloneRun]) -> None:
    proc = alone[name]
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The JSON the same run wrote (what test_proofs_isolation.py compares) is the result the report shows.
    assert lines and proc.record is not None and lines[0] == f"{proc.record['verdict']}: {proc.record['theorem']}"
    mod = importlib.import_module(f"proofs.{name}")
    # A bare PROVED only when nothing rests on a step z3 did not check and Coq does not prove;
    # otherwise the count is in the verdict.
    coq = dict(getattr(mod, "PROVED_IN_COQ", {}))
    review = [item for item in mod.RESTS_ON if item not in coq]
    n = len(review)
    head = "PROVED: " if n == 0 else f"PROVED, resting on {n} review item{'s' if n > 1 else ''} "
    assert lines and lines[0].startswith(head), proc.stdout
    assert "[FAIL]" not in proc.stdout
    assert sum(1 for line in lines if line.strip().startswith("[ok]")) >= 2
    # The printed review items are exactly the module's RESTS_ON less the steps proved in Coq, and those
    # are printed with their Coq theorem (what the README and the docs publish).
    printed = [line.split("review item: ", 1)[1] for line in lines if line.startswith("  review item: ")]
    assert sorted(printed) == sorted(review), proc.stdout
    cited = [line for line in lines if line.startswith("  proved in Coq (")]
    assert sorted(cited) == sorted(f"  proved in Coq ({name}): {item}" for item, name in coq.items()), proc.stdout
    assert any(line.startswith("  evidence: ") for line in lines), proc.stdout


def test_a_module_run_alone_prints_as_json_what_its_record_holds(alone: dict[str, AloneRun]) -> None:
    proc = subprocess.run([sys.executable, "-m", "proofs.rewrite_identity", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [alone["rewrite_identity"].record]
    bad = subprocess.run([sys.executable, "-m", "proofs.rewrite_identity", "--jsn"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1


def test_registry_describes_every_module_consistently() -> None:
    listed = theorems()
    assert [t.module for t in listed] == [f"proofs/{m}.py" for m in MODULES]
    rule_ids = {r.id for r in RULES}
    for t in listed:
        # a theorem justifies graph rules, or (rewrite theorems) exactly one pass of sonnx rewrite
        assert bool(t.supports) != bool(t.rewrite_pass), t.id
        assert set(t.supports) <= rule_ids, t.id
        assert not t.rewrite_pass or t.rewrite_pass in PASS_NAMES, t.id
        assert t.statement and t.title
    # The traceability matrix reads the same data without importing the modules.
    static = [(ref.id, ref.title, ref.module, sup) for ref, sup in theorem_modules(ROOT)]
    assert static == [(t.id, t.title, t.module, t.supports) for t in listed]


def test_every_pass_names_a_registered_theorem_that_proves_only_it() -> None:
    # The link is written once, on the pass; the registry reads it from there.
    assert all(p.theorem in MODULES for p in PASSES), [p.name for p in PASSES if p.theorem not in MODULES]
    assert sorted(passes_by_theorem().values()) == sorted(PASS_NAMES)
    assert all(m.startswith("rewrite_") for m in passes_by_theorem())


def test_the_runner_runs_named_theorems_and_refuses_unknown_ones() -> None:
    ok = subprocess.run([sys.executable, "-m", "proofs", "rewrite_identity", "--json"], cwd=ROOT,
                        capture_output=True, text=True, timeout=600, check=False)
    assert ok.returncode == 0, ok.stderr
    assert [line.startswith('{"theorem"') for line in ok.stdout.splitlines()] == [True]
    bad = subprocess.run([sys.executable, "-m", "proofs", "no_such_theorem"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "unknown theorem" in bad.stderr and bad.stderr.count("\n") == 1


def test_an_invalid_claim_is_not_proved() -> None:
    x = z3.Int("x")
    outcome = _kit.discharge(_kit.Obligation("x is positive", x > 0))
    assert not outcome.ok and outcome.detail.startswith("counterexample")


def test_unknown_is_not_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_kit, "RLIMIT", 1)
    x, y = z3.Ints("x y")
    hard = z3.ForAll([x, y], z3.Implies(x * x * x + y * y * y == 33, x > 10**6))
    outcome = _kit.discharge(_kit.Obligation("hard", hard))
    assert not outcome.ok and outcome.detail.startswith("unknown")


def test_an_empty_result_is_not_proved() -> None:
    assert not _kit.Result("nothing").proved


def test_bounded_check_detects_order_dependence() -> None:
    # Two operations write the same tensor (C1 violated): the two schedules leave different values.
    ops = [make_operation("Neg", ["x"], ["t"], name="a"), make_operation("Relu", ["x"], ["t"], name="b")]
    g = make_graph("g", ["x"], ["t"], ops)
    _runs, problems = order_independence.all_schedules(g)
    assert problems and "different states" in problems[0]


def test_bounded_check_detects_an_operation_that_never_fires() -> None:
    ops = [make_operation("Neg", ["u"], ["v"], name="a"), make_operation("Neg", ["v"], ["u"], name="b")]
    g = make_graph("g", ["x"], [], ops)
    _runs, problems = order_independence.all_schedules(g)
    assert problems and "0 of 2" in problems[0]
