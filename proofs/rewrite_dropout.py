"""Rewrite theorem: Dropout removal is sound exactly in inference mode with an unused mask.

Run ``python -m proofs.rewrite_dropout`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Outcome, Result, main, run_obligations, satisfiable
from proofs.rewrite_common import model_note, refute, rewiring_obligations

ID = "rewrite-dropout"
TITLE = "Dropout removal is sound in inference mode"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = f"""
{model_note('element values are reals (R)')}
Pass `dropout` (src/sonnx/rewrite/dropout.py). Element semantics of Dropout,
for every element index i, ratio r in [0, 1), mask m and data x (reals):
y(i) = m(i) * x(i) / (1 - r) in training mode, y(i) = x(i) otherwise. The
mode is decided by the model: opsets 1-6 train unless is_test = 1; opsets
7-10 leave it to the runtime (inference assumed, as sonnx executes);
opsets 12 on train when the training_mode input is true.
Machine-checked, for all values and every opset: under the pass's
precondition (opset < 7 -> is_test = 1; opset >= 12 -> training_mode is a
constant false or absent) y(i) = x(i) for every i; with the rewiring lemma
(readers of y read x; GRAPH-C1/C3/R1 kept) every reader sees the same value.
Counterexamples found by z3 for the seed's precondition (none: "Dropout has
no effect in inference") read as "any Dropout": is_test = 0 at opset 6, and
training_mode = true at opset 12, both with a dropped element (y != x);
and a read mask: deleting the operation leaves the mask's reader without a
producer (GRAPH-C3 broken), so the pass also requires the mask to be unused.
"""


def _semantics() -> tuple[z3.BoolRef, z3.BoolRef, z3.ArithRef, z3.ArithRef, dict[str, z3.ExprRef]]:
    opset, is_test = z3.Ints("opset is_test")
    tm = z3.Bool("training_mode")
    r = z3.Real("ratio")
    i = z3.Int("i")
    x = z3.Function("x", z3.IntSort(), z3.RealSort())
    mask = z3.Function("mask", z3.IntSort(), z3.BoolSort())
    training = z3.If(opset < 7, is_test == 0, z3.If(opset >= 12, tm, z3.BoolVal(False)))
    y = z3.If(training, z3.If(mask(i), x(i) / (1 - r), z3.RealVal(0)), x(i))
    pre = z3.And(z3.Implies(opset < 7, is_test == 1), z3.Implies(opset >= 12, z3.Not(tm)))
    domain = z3.And(opset >= 1, 0 <= r, r < 1)
    return pre, domain, y, x(i), {"opset": opset, "is_test": is_test, "tm": tm, "r": r, "mask_i": mask(i)}


def check() -> Result:
    pre, domain, y, xi, v = _semantics()
    obs: list[Obligation] = [
        Obligation(
            "precondition => y(i) = x(i) for every i, value, ratio and opset", z3.Implies(z3.And(domain, pre), y == xi)
        ),
        *rewiring_obligations(),
    ]
    N = z3.DeclareSort("Name")
    read = z3.Function("read", N, z3.BoolSort())
    producers = z3.Function("producers", N, z3.IntSort())
    mask_name = z3.Const("mask_name", N)
    extra: list[Outcome] = [
        satisfiable("the precondition admits a Dropout (opset 13)", [domain, pre, v["opset"] == 13]),
        refute(
            "seed precondition too weak: is_test = 0 at opset 6 drops an element",
            [domain, v["opset"] == 6, v["is_test"] == 0, z3.Not(v["mask_i"]), xi != 0, y != xi],
        ),
        refute(
            "seed precondition too weak: training_mode = true at opset 12 drops an element",
            [domain, v["opset"] == 12, v["tm"], z3.Not(v["mask_i"]), xi != 0, y != xi],
        ),
        refute(
            "a read mask loses its only producer when the Dropout is deleted (GRAPH-C3)",
            [read(mask_name), producers(mask_name) == 1, producers(mask_name) - 1 == 0],
        ),
    ]
    return run_obligations(TITLE, obs, extra)


if __name__ == "__main__":
    main(check, THEOREM)
