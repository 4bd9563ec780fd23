"""Rewrite theorem: folding Shape (with Shape-15 start/end) into a constant indexes the static shape soundly.

Run ``python -m proofs.rewrite_shape`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Outcome, Result, main, run_obligations, satisfiable
from proofs.rewrite_common import model_note, refute

ID = "rewrite-shape"
TITLE = "Shape to constant under static shapes"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = f"""
{model_note('no element value occurs (the proof is about shapes)')}
Pass `shape` (src/sonnx/rewrite/shape.py, function shape_slice). For every
rank r >= 0 and every start and end (unbounded integers; end absent means
r), with norm(k) = k + r if k < 0 else k and clamp(k) = min(max(k, 0), r),
lo = clamp(norm(start)), hi = clamp(norm(end)). Machine-checked for all of
them: 0 <= lo <= r and 0 <= hi <= r; the constant has max(hi - lo, 0)
elements, its element j (0 <= j < hi - lo) is dims[lo + j] with
0 <= lo + j < r (never out of the shape); with start = 0 and end absent the
constant is the whole shape (lo = 0, hi = r), which is Shape before opset
15. For any dims array (a shape of symbolic rank) the folded constant and the
Shape operator's output agree element by element, given that the declared
dims are the runtime dims.
Counterexample found: the seed's assumption (graph inputs have static
shapes) does not make an intermediate tensor's shape known: a tensor whose
declared shape is wrong by one element gives a folded constant different
from the runtime Shape. The pass therefore requires the Shape input's own
declared shape to be static, and translation validation re-runs the model
to check the declaration on the seeded inputs.
"""


def _bounds() -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.BoolRef]:
    r, start, end = z3.Ints("r start end")
    has_end = z3.Bool("has_end")

    def clamp(k: z3.ArithRef) -> z3.ArithRef:
        n = z3.If(k < 0, k + r, k)
        return z3.If(n < 0, 0, z3.If(n > r, r, n))

    lo = clamp(start)
    hi = z3.If(has_end, clamp(end), r)
    return r, start, end, lo, hi, has_end


def check() -> Result:
    r, start, _end, lo, hi, has_end = _bounds()
    j = z3.Int("j")
    dims = z3.Array("dims", z3.IntSort(), z3.IntSort())
    runtime = z3.Array("runtime_dims", z3.IntSort(), z3.IntSort())
    length = z3.If(hi > lo, hi - lo, 0)
    # The Shape operator's output element j is runtime[lo + j]; the folded constant's is dims[lo + j].
    same_dims = z3.ForAll(
        [z3.Int("k")], z3.Implies(z3.And(0 <= z3.Int("k"), z3.Int("k") < r), dims[z3.Int("k")] == runtime[z3.Int("k")])
    )
    obs: list[Obligation] = [
        Obligation("0 <= lo <= r and 0 <= hi <= r", z3.Implies(r >= 0, z3.And(0 <= lo, lo <= r, 0 <= hi, hi <= r))),
        Obligation(
            "every element j < max(hi - lo, 0) reads a dimension inside the shape",
            z3.Implies(z3.And(r >= 0, 0 <= j, j < length), z3.And(0 <= lo + j, lo + j < r)),
        ),
        Obligation(
            "start 0 and no end take the whole shape",
            z3.Implies(z3.And(r >= 0, start == 0, z3.Not(has_end)), z3.And(lo == 0, hi == r)),
        ),
        Obligation(
            "declared dims = runtime dims => the constant equals Shape's output element by element",
            z3.Implies(z3.And(r >= 0, same_dims, 0 <= j, j < length), dims[lo + j] == runtime[lo + j]),
        ),
    ]
    extra: list[Outcome] = [
        satisfiable("non-vacuous: a rank-4 shape with start -2", [r == 4, start == -2, z3.Not(has_end)]),
        refute(
            "a wrongly declared shape folds to a wrong constant",
            [
                r == 2,
                start == 0,
                z3.Not(has_end),
                dims[0] == 3,
                runtime[0] == 4,
                dims[1] == runtime[1],
                dims[lo] != runtime[lo],
            ],
        ),
    ]
    return run_obligations(TITLE, obs, extra)


if __name__ == "__main__":
    main(check, THEOREM)
