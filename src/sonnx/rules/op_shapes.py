"""OP-SHAPES (strict profile): every shape precondition of every operation holds for every admissible input.

Spec rule OP-SHAPES (spec/operators.rst, section 3.1). The symbolic shape
analysis (:mod:`.shapes_analysis`) gives each operation's conditions as z3
terms over the symbolic input dimensions; z3 decides each one under the
domains of the dimensions (``--dims``, else at least 1), with a fixed
resource limit so that a verdict does not depend on the machine's speed.

* PROVED: every operation is derived and the negation of every condition is
  unsatisfiable.
* VIOLATED: z3 found the least assignment of the dimensions (an input
  shape: the least sum, then the least of each dimension in turn) under
  which a condition fails, and a run of
  sonnx's executor on inputs of that shape (``CheckConfig.trial_run``,
  elements all zero) failed at that very operation.
* UNKNOWN otherwise, with the reason: operations not derived, a solver that
  gave up, a condition of the analysis itself, a counterexample that no run
  confirmed (no trial run, too large to run, or a run that did not fail there).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from onnx import helper

from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import brief
from ..model.graph import Model
from .base import CheckContext
from .shapes_analysis import Analysis, analyse
from .shapes_view import Need

if TYPE_CHECKING:  # z3 is imported where a formula is built: the sonnx profile's check builds none
    import z3

ID = "OP-SHAPES"
SEVERITY = Severity.ERROR

RLIMIT = 5_000_000
"""z3's resource limit for one question (deterministic, unlike a wall-clock timeout)."""
MAX_RUNS = 3
"""The most counterexamples confirmed by a run in one check."""
MAX_RUN_ELEMENTS = 10_000_000
"""The most input elements a confirming run may be given."""


def _solver(a: Analysis) -> z3.Solver:
    import z3

    s = z3.SolverFor("QF_NIA")
    s.set("rlimit", RLIMIT)
    s.add(*a.domain())
    return s


def _least(a: Analysis, broken: z3.BoolRef) -> dict[str, int] | None:
    """An assignment of the dimensions under which ``broken`` holds, its sum minimized when z3 manages.

    The objectives are lexicographic: the sum first, then each dimension in
    the order the inputs declare them, so that the minimum is one assignment
    and the witness the same on every run.
    """
    import z3

    opt = z3.Optimize()
    opt.set("rlimit", RLIMIT)
    opt.add(*a.domain(), broken)
    if a.variables:
        opt.minimize(z3.Sum(*a.variables.values()))
        for var in a.variables.values():
            opt.minimize(var)
    # only the unique optimum is used: another model could differ between the check and its replay
    return _assignment(a, opt.model()) if opt.check() == z3.sat else None


def _assignment(a: Analysis, m: z3.ModelRef) -> dict[str, int]:
    import z3

    out = {}
    for name, var in a.variables.items():
        got = m.eval(var, model_completion=True)
        out[name] = int(got.as_long()) if z3.is_int_value(got) else a.bounds[name][0]
    return out


def _feeds(model: Model, a: Analysis, assignment: Mapping[str, int]) -> dict[str, Any] | str:
    """Inputs of the shape ``assignment`` gives, every element zero; or why none can be made."""
    import z3

    feeds: dict[str, Any] = {}
    total = 0
    for name in model.graph.inputs:
        info = a.infos.get(name)
        t = model.graph.tensors.get(name)
        if t is None or t.initial_value is not None:
            continue
        if info is None or t.type is None or not t.type.elem_type:
            return f"graph input {name!r} has no shape or element type to give"
        shape = tuple(int(z3.simplify(z3.substitute(d, *[(v, z3.IntVal(assignment[n])) for n, v in
                                                           a.variables.items()])).as_long())
                      if not isinstance(d, int) else d for d in info.shape)
        total += int(np.prod(shape, dtype=object))
        if total > MAX_RUN_ELEMENTS:
            return f"the inputs would hold more than {MAX_RUN_ELEMENTS:,} elements"
        dtype = helper.tensor_dtype_to_np_dtype(t.type.elem_type)
        feeds[name] = np.zeros(shape, dtype=object if dtype.kind in "OUS" else dtype)
        if dtype.kind in "OUS":
            feeds[name][...] = ""
    return feeds


def _shown(assignment: Mapping[str, int]) -> str:
    return ", ".join(f"{n}={v}" for n, v in assignment.items()) or "the declared shapes"


def check(ctx: CheckContext) -> Verdict:
    import z3

    model = ctx.model
    a = analyse(model, ctx.config.dims, ctx.config.read_weights)
    ops = model.graph.operations
    open_: list[str] = [*a.unknown_inputs, *(f"{ops[j].label} {why}" for j, why in a.uncovered)]
    if a.blocked:
        open_.append(f"{a.blocked} operation(s) downstream of those have no derived shapes")
    solver = _solver(a)
    pending = [(j, n) for j, n in a.needs]
    symbolic = [n.cond for _, n in pending if not isinstance(n.cond, bool)]
    if symbolic and not any(n.cond is False for _, n in pending):
        solver.push()
        solver.add(z3.Not(z3.And(*symbolic)))
        if solver.check() == z3.unsat:
            pending = []  # every condition holds on the whole domain
        solver.pop()
    confirmer = _Confirmer(ctx, a)
    for j, need in pending:
        broken = z3.BoolVal(True) if need.cond is False else z3.Not(need.cond)
        solver.push()
        solver.add(broken)
        answer = solver.check()
        solver.pop()
        where = f"{ops[j].label}: {need.text}"
        if answer == z3.unsat:
            continue
        if answer == z3.unknown:
            open_.append(f"{where}: z3 gave up ({solver.reason_unknown()})")
        elif need.analysis:
            open_.append(f"{where}: a condition of the analysis may fail")
        elif confirmer.tries >= MAX_RUNS:
            open_.append(f"{where}: fails for some admissible input (not tried: {MAX_RUNS} failing shapes per check)")
        else:
            got = confirmer.confirm(j, need, where, _least(a, broken))
            if isinstance(got, Verdict):
                return got
            open_.append(got)
    if open_:
        return Verdict.unknown(ID, f"{len(open_)} open case(s): {brief(open_, 3)}", SEVERITY)
    return Verdict.proved(ID, SEVERITY)


class _Confirmer:
    """Runs failing shapes (at most :data:`MAX_RUNS` distinct ones) and words what each run showed."""

    def __init__(self, ctx: CheckContext, a: Analysis) -> None:
        self.ctx, self.a = ctx, a
        self.tried: set[tuple[tuple[str, int], ...]] = set()
        self.tries = 0

    def confirm(self, j: int, need: Need, where: str, assignment: dict[str, int] | None) -> Verdict | str:
        """VIOLATED when a run on inputs of ``assignment``'s shapes fails at operation ``j``; else why not."""
        self.tries += 1
        if assignment is None:
            return f"{where}: z3 found a failing input but not the least one within its limit"
        where = f"{where} fails for {_shown(assignment)}"
        runner = self.ctx.config.trial_run
        if runner is None:
            return f"{where}, not confirmed (no run is possible without the weights)"
        key = tuple(sorted(assignment.items()))
        if key in self.tried:
            return f"{where}, not confirmed (a run on that shape did not fail there)"
        self.tried.add(key)
        feeds = _feeds(self.ctx.model, self.a, assignment)
        if isinstance(feeds, str):
            return f"{where}, not confirmed ({feeds})"
        run = runner(self.ctx.model, feeds)
        if run.error is None or run.operation != j:
            seen = "ran to the end" if run.error is None else f"failed at operation {run.operation}: {run.error}"
            return f"{where}, not confirmed (the run {seen})"
        shapes = {n: list(np.shape(v)) for n, v in feeds.items()}
        data: dict[str, Any] = {
            "operation": j, "label": self.ctx.model.graph.operations[j].label, "condition": need.text,
            "dims": dict(assignment), "input_shapes": shapes, "run_error": run.error,
        }
        summary = f"{where}; a run on inputs of shapes {shapes} failed there: {run.error}"
        return Verdict.violated(ID, Witness(summary, data), SEVERITY)
