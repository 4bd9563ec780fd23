"""The proof machinery says only what it proves: vacuous obligations fail, review items show, evidence is counted.

Three ways a z3 theorem can print a proof it does not have, each checked here:
an implication whose hypotheses contradict each other (``_kit`` must find it
and fail the obligation); a hand-written axiom z3 takes as given (it must be
named in the verdict, which z3 cannot do for us: a mis-stated one is not
refuted); and an obligation that holds by construction of its model, or a
counterexample that asserts the difference it reports (not counted as
evidence).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import z3

from proofs import _instances, _kit, _state, rewrite_constant, rewrite_flatten, rewrite_identity, termination
from proofs.registry import MODULES

ROOT = Path(__file__).resolve().parents[2]
REWRITES = [m for m in MODULES if m.startswith("rewrite_")]


def _run_copy(path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_an_implication_from_contradictory_hypotheses_is_failed_as_vacuous() -> None:
    x = z3.Int("x")
    out = _kit.discharge(_kit.Obligation("from x > 0 and x < 0", z3.Implies(z3.And(x > 0, x < 0), x == 5)))
    assert not out.ok and out.detail.startswith("vacuous: the hypotheses unsatisfiable"), out.detail


def test_a_conjunction_with_one_vacuous_implication_is_failed() -> None:
    x = z3.Int("x")
    fine = z3.Implies(x > 0, x >= 1)
    empty = z3.Implies(z3.And(x > 1, x < 1), x == 7)
    out = _kit.discharge(_kit.Obligation("two claims", z3.And(fine, empty)))
    assert not out.ok and out.detail.startswith("vacuous: hypotheses #2 unsatisfiable"), out.detail
    ok = _kit.discharge(_kit.Obligation("one claim", z3.And(fine, z3.Implies(x > 5, x > 4))))
    assert ok.ok and "hypotheses are satisfiable" in ok.detail, ok.detail


_CONTRADICTORY_MODULE = '''
import z3
from proofs._kit import Obligation, main, run_obligations

THEOREM = "planted: every integer is 5, from hypotheses that contradict each other"


def check():
    x = z3.Int("x")
    return run_obligations("planted", [Obligation("x = 5", z3.Implies(z3.And(x > 0, x < 0), x == 5))])


if __name__ == "__main__":
    main(check, THEOREM)
'''


def test_a_theorem_module_with_contradictory_hypotheses_prints_failed(tmp_path: Path) -> None:
    planted = tmp_path / "planted_theorem.py"
    planted.write_text(_CONTRADICTORY_MODULE, encoding="utf-8")
    proc = _run_copy(planted)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith("FAILED: planted"), proc.stdout
    assert "[FAIL] x = 5: vacuous" in proc.stdout


# The audit's planted copy of termination.py: acyclicity dropped from obligation (4), and the least-number
# axiom mis-stated (a strict minimum, which no operation has: the "axiom" then says that every operation
# is fired). A 2-cycle refutes the statement, yet z3 cannot refute an axiom it is given.
_NO_RANK = (
    "z3.And(graph, wf(s), terminal, least_unfired_axiom(s.fired))",
    "z3.And(c1(), producers_exist(), wf(s), terminal, least_unfired_axiom(s.fired))",
)
_WRONG_AXIOM = (
    "z3.ForAll([y], z3.Implies(z3.Not(fired[y]), rank(x) <= rank(y)))",
    "z3.ForAll([y], z3.Implies(z3.Not(fired[y]), rank(x) < rank(y)))",
)


def _termination_copy(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    text = (ROOT / "proofs" / "termination.py").read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "termination_planted.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_without_acyclicity_the_terminal_state_obligation_has_a_counterexample(tmp_path: Path) -> None:
    proc = _run_copy(_termination_copy(tmp_path, _NO_RANK))
    assert proc.returncode == 1 and proc.stdout.startswith("FAILED: "), proc.stdout + proc.stderr
    assert "[FAIL] (4) terminal states" in proc.stdout and "counterexample" in proc.stdout


def test_a_mis_stated_axiom_still_proves_but_the_verdict_names_the_axiom(tmp_path: Path) -> None:
    proc = _run_copy(_termination_copy(tmp_path, _NO_RANK, _WRONG_AXIOM))
    first = proc.stdout.splitlines()[0] if proc.stdout else ""
    # z3 discharges the false statement (the axiom is a hypothesis it takes as given) ...
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # ... so the verdict must say that it rests on a hand-written axiom, never a bare PROVED (the two
    # prose steps are proved in Coq and cited instead; Coq proves the correctly stated axiom, but the
    # mis-stated one is not that term, so its citation is dropped and it stays a review item).
    assert first.startswith("PROVED, resting on 1 review item "), first
    assert "review item: hand-written axiom: the least-number principle" in proc.stdout
    line4 = next(line for line in proc.stdout.splitlines() if "(4) terminal states" in line)
    assert line4.startswith("  [ok]")


def test_the_least_number_citation_needs_the_exact_coq_instance_in_obligation_four() -> None:
    obs = termination.obligations()
    assert termination.coq_citations(obs) == termination.PROVED_IN_COQ
    four = next(i for i, ob in enumerate(obs) if ob.name.startswith("(4)"))
    # The same obligation without "every rank >= 0": the Coq theorem's hypothesis is missing.
    nonneg = _instances.ranks_nonnegative(_state.Op, termination.rank)
    assert _instances.occurs(nonneg, obs[four].formula)
    weaker = z3.substitute(obs[four].formula, (nonneg, z3.BoolVal(True)))
    obs[four] = _kit.Obligation(obs[four].name, weaker)
    cited = termination.coq_citations(obs)
    assert termination.LEAST_NUMBER not in cited and len(cited) == len(termination.PROVED_IN_COQ) - 1


# Flatten's base and step obligations must conclude the Coq instance's hypotheses exactly. Each edit below
# leaves an obligation that z3 still proves but that no longer gives that hypothesis for every shape: a step
# that skips k = 0 (the induction would then not reach Q(0), which the seed's special case uses), and a base
# shown only for shapes whose first size is non-zero.
_STEP_SKIPS_ZERO = (
    "z3.Implies(shape, induction.step)",
    "z3.Implies(shape, z3.ForAll([i], z3.Implies(z3.And(0 < i, i < r), z3.Implies(Q(i + 1), Q(i)))))",
)
_BASE_NEEDS_NONZERO = ("z3.Implies(shape, induction.base)", "z3.Implies(z3.And(shape, d(0) > 0), induction.base)")


def _flatten_copy(tmp_path: Path, edit: tuple[str, str]) -> Path:
    text = (ROOT / "proofs" / "rewrite_flatten.py").read_text(encoding="utf-8")
    assert text.count(edit[0]) == 1, edit[0]
    path = tmp_path / "rewrite_flatten_planted.py"
    path.write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    return path


@pytest.mark.parametrize("edit", [_STEP_SKIPS_ZERO, _BASE_NEEDS_NONZERO], ids=["step", "base"])
def test_a_mis_stated_flatten_base_or_step_loses_the_coq_citation(tmp_path: Path, edit: tuple[str, str]) -> None:
    proc = _run_copy(_flatten_copy(tmp_path, edit))
    first = proc.stdout.splitlines()[0] if proc.stdout else ""
    # z3 proves the mis-stated obligation, but it is not the Coq instance's hypothesis: the induction is a
    # review item again instead of a citation.
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert first.startswith("PROVED, resting on 1 review item "), first
    assert "review item: hand-written induction instance: downward induction" in proc.stdout
    assert "proved in Coq (SONNX.Instances.flatten_downward_induction_instance)" not in proc.stdout


def test_the_flatten_citation_needs_obligations_that_conclude_the_exact_coq_hypotheses() -> None:
    obs = rewrite_flatten.obligations()
    assert rewrite_flatten.coq_citations(obs) == rewrite_flatten.PROVED_IN_COQ
    d, p, s, r = rewrite_flatten._shape()
    coq = _instances.flatten_downward_induction(p, s, r)
    shape = rewrite_flatten.shape_definitions(d, p, s, r)
    step = next(k for k, ob in enumerate(obs) if _instances.concludes(ob.formula, shape, coq.step))
    # The step obligation, with its premise strengthened by the Coq hypothesis it is to prove: still valid,
    # and it still contains that hypothesis, but it no longer concludes it from the shape alone.
    circular = z3.Implies(z3.And(shape, coq.step), coq.step)
    assert _instances.occurs(coq.step, circular)
    obs[step] = _kit.Obligation(obs[step].name, circular)
    assert rewrite_flatten.coq_citations(obs) == {}


def test_occurs_finds_sub_terms_under_quantifiers_only_when_equal() -> None:
    a, b = z3.Ints("a b")
    whole = z3.ForAll([a], z3.Implies(a > 0, z3.Or(a == b, b < 3)))
    assert _instances.occurs(b < 3, whole)
    assert not _instances.occurs(b <= 3, whole)


def test_a_verdict_without_review_items_is_a_bare_proved() -> None:
    res = _kit.Result("t", [_kit.Outcome("a", True, "valid", obligation=True)])
    assert res.verdict == "PROVED"
    res.steps = ("cited lemma: something",)
    assert res.verdict.startswith("PROVED, resting on 1 review item (")
    res.outcomes.append(_kit.Outcome("b", False, "counterexample"))
    assert res.verdict == "FAILED"


def test_obligations_marked_not_evidence_are_not_counted() -> None:
    x = z3.Int("x")
    ob = _kit.Obligation("x = x", z3.Implies(x > 0, x == x), evidence=False, why_not_evidence="by construction")
    res = _kit.run_obligations("t", [ob, _kit.Obligation("x + 1 > x", x + 1 > x)])
    assert res.proved and res.evidence_count == (1, 2)
    assert res.outcomes[0].detail.endswith("not evidence: by construction")


def test_the_by_construction_obligations_of_the_rewrite_theorems_are_not_evidence() -> None:
    for mod, name in (
        (rewrite_identity, "Identity semantics gives val(y) = val(x)"),
        (rewrite_constant, "GRAPH-C1/C3: the initializer replaces the only producer; y stays defined"),
        (rewrite_flatten, "seed special case a = 0: [P(0), S(0)] = [1, P(r)]"),
    ):
        res = mod.check()
        marked = [o for o in res.outcomes if o.name == name]
        assert len(marked) == 1 and marked[0].ok and not marked[0].evidence, mod.ID
        # Every counterexample line is excluded from the evidence as well.
        assert all(not o.evidence for o in res.outcomes if o.detail.startswith("counterexample found")), mod.ID
        counted, total = res.evidence_count
        assert 0 < counted < total, (mod.ID, counted, total)


@pytest.mark.parametrize("name", REWRITES)
def test_each_rewrite_theorem_says_what_its_model_is_over(name: str) -> None:
    text = __import__(f"proofs.{name}", fromlist=["THEOREM"]).THEOREM
    first = text.strip().split("\n\n")[0].replace("\n", " ")
    assert first.startswith("Model: ") and "integers (Z)" in first and "not IEEE-754" in first, name
    assert "reals (R)" in first or "uninterpreted sort" in first or "no element value" in first, name


@pytest.mark.parametrize("name", MODULES)
def test_each_review_item_is_in_the_published_statement(name: str) -> None:
    mod = __import__(f"proofs.{name}", fromlist=["THEOREM", "RESTS_ON"])
    flat = " ".join(mod.THEOREM.split())
    assert all(" ".join(item.split()) in flat for item in mod.RESTS_ON), name
    coq = getattr(mod, "PROVED_IN_COQ", {})
    assert ("Review items (steps z3 does not check" in flat) == any(i not in coq for i in mod.RESTS_ON), name
    assert all(f"proved in Coq: {coq_name}" in flat for coq_name in coq.values()), name
