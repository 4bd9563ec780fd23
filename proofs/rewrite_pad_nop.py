"""Rewrite theorem: a Pad whose counts are all 0 is the identity, for every rank, mode and fill value.

Run ``python -m proofs.rewrite_pad_nop`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Outcome, Result, main, run_obligations, satisfiable
from proofs.rewrite_common import model_note, on_axes, pad_axis, refute, rewiring_obligations

ID = "rewrite-pad-nop"
TITLE = "Removing a Pad with all counts 0 is sound"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = f"""
{model_note('element values are reals (R)')}
Pass `pad-nop` (src/sonnx/rewrite/pad_nop.py). Pad semantics per axis of
size n with begin/end counts b, e of any sign (crop by the negative counts,
then pad by the positive ones): output size n - max(-b,0) - max(-e,0) +
max(b,0) + max(e,0); output index t reads input index t - max(b,0) +
max(-b,0) when max(b,0) <= t < max(b,0) + kept, and otherwise a padded value
(the fill value, or the reflect/edge/wrap element: the mode only matters
there). Multi-axis: a symbolic rank R, sizes and counts as arrays over the
axes, a multi-index as an array; the output element at T is X(src(T)) when
every axis reads the input, else a padded value, X any function of index
arrays (any tensor). Machine-checked for every rank, every shape, every
mode and fill value: if every count is 0, the output has the input's shape
and every output element is the input element at the same index (no axis
ever reaches the padded branch); with the rewiring lemma the readers see the
same values (GRAPH-C1/C3/R1 kept). Counterexample found for the weaker
condition "every axis keeps its size" (b + e = 0): n = 2, b = -1, e = 1 keeps
the size but output element 0 reads input element 1.
"""


def check() -> Result:
    R = z3.Int("R")
    N = z3.Array("N", z3.IntSort(), z3.IntSort())
    B = z3.Array("B", z3.IntSort(), z3.IntSort())
    E = z3.Array("E", z3.IntSort(), z3.IntSort())
    T = z3.Array("T", z3.IntSort(), z3.IntSort())
    X = z3.Function("X", z3.ArraySort(z3.IntSort(), z3.IntSort()), z3.RealSort())
    fill = z3.Real("fill")
    i = z3.Int("i")

    def axis(k: z3.ArithRef) -> tuple[z3.ArithRef, z3.BoolRef, z3.ArithRef]:
        return pad_axis(N[k], B[k], E[k], T[k])

    in_range = z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < R), z3.And(0 <= T[i], T[i] < N[i])))
    zeros = z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < R), z3.And(B[i] == 0, E[i] == 0, N[i] >= 0)))
    all_inside = z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < R), axis(i)[1]))
    src = on_axes(R, axis(i)[2], i)
    same = on_axes(R, T[i], i)
    out_value = z3.If(all_inside, X(src), fill)
    n0, b0, e0, t0 = z3.Ints("n b e t")
    size0, inside0, src0 = pad_axis(n0, b0, e0, t0)
    obs: list[Obligation] = [
        Obligation(
            "one axis, counts 0: output size n; every t in [0, n) reads input index t",
            z3.Implies(z3.And(n0 >= 0, b0 == 0, e0 == 0, 0 <= t0, t0 < n0), z3.And(size0 == n0, inside0, src0 == t0)),
        ),
        Obligation(
            "every rank: counts 0 => the output shape is the input shape",
            z3.Implies(
                zeros, z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < R), pad_axis(N[i], B[i], E[i], T[i])[0] == N[i]))
            ),
        ),
        Obligation(
            "every rank: counts 0 => output element T is input element T (padded branch unreachable)",
            z3.Implies(z3.And(R >= 0, zeros, in_range), z3.And(all_inside, src == same, out_value == X(same))),
        ),
        *rewiring_obligations(),
    ]
    extra: list[Outcome] = [
        satisfiable("non-vacuous: a rank-3 tensor with counts 0", [R == 3, zeros, in_range, N[0] == 2]),
        refute(
            "b + e = 0 is not enough: n = 2, b = -1, e = 1 moves element 1 to index 0",
            [n0 == 2, b0 == -1, e0 == 1, t0 == 0, size0 == n0, inside0, src0 != t0],
        ),
    ]
    return run_obligations(TITLE, obs, extra)


if __name__ == "__main__":
    main(check, THEOREM)
