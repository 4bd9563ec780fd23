"""Counter-certificates split into parts: the same verdicts and witnesses whatever the part size.

A violated model's counter-certificate (GRAPH-R1's dead list, GRAPH-R1-TRANSITIVE's
idle list, GRAPH-C3's never-defined set, GRAPH-ACYCLIC's cycle) is checked in
parts of at most ``common.PART`` checks. These tests make the parts tiny, so
that small graphs are split, and require: the verdicts and witnesses of an
unsplit run; each part's text as the definition of the parts says (the units
of the ids its checks read, then its checks); and a wrong claim caught in
exactly the parts whose checks it breaks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sonnx.base.verdict import Status, Verdict
from sonnx.model.graph import Model, make_operation
from sonnx.smt import SolverSettings, common, run_smt
from sonnx.smt.common import ProofContext, drive
from sonnx.smt.counter import closed_set, refute
from sonnx.smt.encodings import graph_acyclic, graph_r1
from sonnx.smt.facts import ScopeFacts, model_facts
from tests.common.smtkit import g, model, op

SIZES = [1, 2, 3, 4]
"""Part sizes; all but the last split every case's counter-certificate (the smallest has four checks)."""


def dead() -> Model:
    """Neg reads what Abs writes, and nothing reads Neg's result: Neg dead, Abs and Neg idle."""
    ops = [op("Relu", ("x",), ("y",), "r"), op("Abs", ("x",), ("a",), "abs"), op("Neg", ("a",), ("n",), "neg")]
    return model(g(["x"], ["y"], ops))


def idle_cycle() -> Model:
    """A cycle of two cut off from the output: neither contributes (and GRAPH-ACYCLIC fails)."""
    ops = [op("Relu", ("x",), ("y",), "r"), op("Add", ("x", "q"), ("p",), "add"), op("Neg", ("p",), ("q",), "neg")]
    return model(g(["x"], ["y"], ops))


def undefined() -> Model:
    """The output z comes from a chain that starts at a name nothing defines."""
    ops = [op("Relu", ("x",), ("y",), "r"), op("Neg", ("ghost",), ("a",), "neg"), op("Abs", ("a",), ("z",), "abs")]
    return model(g(["x"], ["y", "z"], ops))


def long_cycle(n: int = 9) -> Model:
    """A chain of ``n`` operations whose first also reads the last one's result."""
    ops = [op("Add", ("x", f"t{n - 1}"), ("t0",), "n0")]
    ops += [op("Relu", (f"t{i - 1}",), (f"t{i}",), f"n{i}") for i in range(1, n)]
    return model(g(["x"], [f"t{n - 1}"], ops))


def nested() -> Model:
    """A dead operation in a branch of an If and one in the main graph."""
    then_g = g([], ["h"], [op("Relu", ("x",), ("a",)), op("Neg", ("a",), ("h",), "live"), op("Sin", ("a",), ("d",))])
    else_g = g([], ["h2"], [op("Relu", ("x",), ("h2",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    return model(g(["x", "c"], ["y", "z"], [op("Abs", ("x",), ("z",)), if_op, op("Sin", ("x",), ("s",), "dead")]))


CASES: dict[str, tuple[Callable[[], Model], dict[str, str]]] = {
    "dead": (dead, {"GRAPH-R1": "r1.dead", "GRAPH-R1-TRANSITIVE": "r1t.idle"}),
    "idle cycle": (idle_cycle, {"GRAPH-R1-TRANSITIVE": "r1t.idle", "GRAPH-ACYCLIC": "graph_acyclic.cycle0"}),
    "undefined": (undefined, {"GRAPH-C3": "c3.never_defined"}),
    "long cycle": (long_cycle, {"GRAPH-ACYCLIC": "graph_acyclic.cycle0"}),
    "nested": (nested, {"GRAPH-R1": "r1.dead", "GRAPH-R1-TRANSITIVE": "r1t.idle"}),
}
"""Case -> (model, the violated rules whose counter-certificate is split, with its obligation's name)."""


def shown(v: Verdict) -> tuple[Any, ...]:
    """What a report shows of a verdict: status, reason, witness summary and data."""
    w = v.witness
    return v.status, v.reason, w.summary if w else None, w.data if w else None


def certificate_run(m: Model) -> tuple[dict[str, Verdict], list[Any]]:
    run = run_smt(m, SolverSettings(), mode="certificate")
    return {v.rule_id: v for v in run.verdicts}, run.obligations


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE", "GRAPH-C3", "GRAPH-ACYCLIC")
@pytest.mark.parametrize("case", list(CASES))
def test_split_counter_certificates_give_the_same_verdicts_and_witnesses(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, rules = CASES[case]
    whole, obs = certificate_run(build())
    names = {o.name for o in obs}
    for rule, name in rules.items():
        assert whole[rule].status is Status.VIOLATED, whole[rule]
        assert name in names, names  # one obligation when the parts are large
    for size in SIZES:
        monkeypatch.setattr(common, "PART", size)
        split, obs = certificate_run(build())
        assert {r: shown(v) for r, v in split.items()} == {r: shown(v) for r, v in whole.items()}, size
        for rule, name in rules.items():
            parts = [o for o in obs if o.rule_id == rule and o.name.startswith(f"{name}.part")]
            assert len(parts) > 1 or size == SIZES[-1], (size, rule, [o.name for o in obs if o.rule_id == rule])
            assert all(o.answer == "unsat" for o in parts), [(o.name, o.answer) for o in parts]


# -- the parts' text, against the definition ----------------------------------------------------------------------


def reference_parts(facts: list[ScopeFacts], listed: dict[int, list[int]], size: int) -> list[list[str]]:
    """Each part of a closed set as the definition reads: (units, checks), written the plain way."""
    units: dict[tuple[str, int], str] = {}
    checks: list[tuple[str, list[tuple[str, int]]]] = []
    for f in facts:
        ops = {f.op_base + j for j in listed.get(f.index, [])}
        written = {t for o, _, t in f.writes() if o in ops}
        for o in range(f.op_base, f.op_base + f.n):
            units["o", o] = f"(Dd {o})" if o in ops else f"(not (Dd {o}))"
        for t in range(f.t_base, f.t_base + f.n_tensors):
            units["t", t] = f"(X {t})" if t in written else f"(not (X {t}))"
        checks += [(f"(wr {o} {k} {t})", [("o", o), ("t", t)]) for o, k, t in f.writes()]
        checks += [(f"(rd {o} {k} {t})", [("o", o), ("t", t)]) for o, k, t in f.reads()]
        checks += [(f"(go {f.index} {k} {t})", [("t", t)]) for k, t in f.outputs]
    if len(checks) <= size:
        return [[*units.values(), *(c for c, _ in checks)]]
    out = []
    for lo in range(0, len(checks), size):
        chunk = checks[lo : lo + size]
        ids = dict.fromkeys(i for _, need in chunk for i in need)
        out.append([*(units[i] for i in ids), *(c for c, _ in chunk)])
    return out


def written_parts(facts: list[ScopeFacts], listed: dict[int, list[int]]) -> list[list[str]]:
    """The units and checks of each part :func:`refute` writes, read back from its text."""
    checks = closed_set(facts, listed, "Dd", "X")
    obs: list[Any] = []
    proof = refute("GRAPH-R1", "r1.dead", checks, "m", "w", "certificate", obs)
    asked = next(proof)
    out = []
    for a in asked:
        units, goal = a.ob.text.rsplit("(assert (not (and ", 1)
        terms = goal.removesuffix(" true)))\n").replace(")(", ") (")
        items = [u.strip() for u in units.replace("(assert (and ", "").replace("(assert ", "").splitlines()]
        flat = " ".join(items)
        out.append([*split_terms(flat), *split_terms(terms)])
    return out


def split_terms(text: str) -> list[str]:
    """The top-level parenthesised terms of ``text`` (a closing parenthesis left over from ``and`` dropped)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
            if depth == 1:
                start = i
        elif ch == ")":
            depth -= 1
            if depth == 0:
                out.append(text[start : i + 1])
            depth = max(depth, 0)
    return out


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("case", ["dead", "nested", "idle cycle"])
@pytest.mark.parametrize("size", [*SIZES, 10_000])
def test_each_part_holds_the_units_of_its_ids_then_its_checks(
    case: str, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "PART", size)
    facts = model_facts(CASES[case][0]())
    listed = {f.index: [0, f.n - 1] for f in facts}  # any claim: the text does not depend on its truth
    assert written_parts(facts, listed) == reference_parts(facts, listed, size)


# -- a wrong claim is caught in the parts whose checks it breaks ----------------------------------------------------


def failing_parts(facts: list[ScopeFacts], listed: dict[int, list[int]], size: int) -> set[int]:
    """The parts (of ``size`` checks) holding a GRAPH-R1 check that the claimed dead list breaks."""
    ops = {f.op_base + j for f in facts for j in listed.get(f.index, [])}
    written = {t for f in facts for o, _, t in f.writes() if o in ops}
    held: list[bool] = []
    for f in facts:
        held += [o not in ops or t in written for o, _, t in f.writes()]
        held += [t not in written for _, _, t in f.reads()]
        held += [t not in written for _, t in f.outputs]
    return {i // size for i, ok in enumerate(held) if not ok}


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("size", SIZES)
def test_a_live_operation_claimed_dead_fails_exactly_the_parts_of_its_checks(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = nested()
    facts = model_facts(m)
    real = graph_r1.uses
    for f in facts:
        live = [j for j in range(f.n) if j not in real(f, graph_r1.index_of(f))[1]]
        for wrong in live:

            def lying(s: ScopeFacts, ix: Any, scope: int = f.index, extra: int = wrong) -> Any:
                found, rest = real(s, ix)
                return found, sorted({*rest, extra}) if s.index == scope else rest

            monkeypatch.setattr(graph_r1, "uses", lying)
            monkeypatch.setattr(common, "PART", size)
            verdicts, obs = certificate_run(m)
            monkeypatch.setattr(graph_r1, "uses", real)
            v = verdicts["GRAPH-R1"]
            assert v.status is Status.UNKNOWN and "rejected the list of dead operations" in (v.reason or ""), v
            claimed: dict[int, list[int]] = {}
            for s in facts:
                rest = real(s, graph_r1.index_of(s))[1]
                claimed[s.index] = sorted({*rest, wrong}) if s.index == f.index else rest
            expected = failing_parts(facts, claimed, size)
            answers = [o.answer for o in obs if o.name.startswith("r1.dead.part")]
            assert expected and {k for k, a in enumerate(answers) if a == "sat"} == expected, (f.path, wrong)
            assert all(a in ("sat", "unsat") for a in answers), answers


# -- a claimed cycle in segments: a wrong step is caught in its own segment ------------------------------------------


def acyclic(m: Model) -> tuple[Verdict, list[Any]]:
    """GRAPH-ACYCLIC's encoding alone, in certificate mode, solved here."""
    ctx = ProofContext(m, model_facts(m), SolverSettings(), "certificate")
    res = drive(graph_acyclic.ENCODING.prove(ctx), ctx.settings)
    return res.verdict, res.obligations


@pytest.mark.rule("GRAPH-ACYCLIC")
@pytest.mark.parametrize("size", SIZES)
def test_a_broken_step_of_a_claimed_cycle_fails_exactly_its_segment(size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each step's read fact in turn replaced by an unrelated one (Add's read of x): only that segment is sat."""
    m = long_cycle()
    f = model_facts(m)[0]
    x_read = next(r for r in range(len(f.rd_t)) if f.rd_t[r] == f.tid["x"])
    real = graph_acyclic.cycle
    steps = real(f, graph_acyclic.index_of(f))
    assert steps is not None and len(steps) == 9
    monkeypatch.setattr(common, "PART", size)
    span = max(1, size // 2)
    for j in range(len(steps)):
        wrong = [*steps[:j], (steps[j][0], x_read), *steps[j + 1 :]]
        monkeypatch.setattr(graph_acyclic, "cycle", lambda s, ix, w=wrong: w)
        v, obs = acyclic(m)
        assert v.status is Status.UNKNOWN and "rejected the claimed cycle" in (v.reason or ""), (j, v)
        parts = [o for o in obs if o.rule_id == "GRAPH-ACYCLIC" and o.name.startswith("graph_acyclic.cycle0.part")]
        # parts are confirmed in order and the first rejected one ends the proof: it is the broken step's segment
        assert [o.answer for o in parts] == ["unsat"] * (j // span) + ["sat"], (j, [o.name for o in parts])
    open_path = steps[:-1]  # the chain without the step that closes it: no cycle
    monkeypatch.setattr(graph_acyclic, "cycle", lambda s, ix: open_path)
    v = acyclic(m)[0]
    assert v.status is Status.UNKNOWN and "rejected the claimed cycle" in (v.reason or ""), v
