"""Rewrite theorem: Flatten(axis) equals Reshape to [prod(d[:a]), prod(d[a:])] (allowzero when a product is 0).

Run ``python -m proofs.rewrite_flatten`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._instances import concludes, flatten_downward_induction
from proofs._kit import Obligation, Outcome, Result, main, review_note, run_obligations, satisfiable
from proofs.rewrite_common import model_note, refute

ID = "rewrite-flatten"
TITLE = "Flatten to Reshape, for every rank and axis"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
DOWNWARD_INDUCTION = (
    "hand-written induction instance: downward induction on k from r to 0 for Q(k) := P(k) S(k) = P(r), "
    "applied outside z3 to the base and step obligations; the seed special case assumes its result Q(0)"
)
RESTS_ON = (DOWNWARD_INDUCTION,)
"""The steps of this theorem z3 does not check (review items unless ``PROVED_IN_COQ`` cites a Coq proof)."""
PROVED_IN_COQ = {
    # Same statement: P, S : Z -> Z, r : Z, Q k := P k * S k = P r; hypotheses the base Q(r) and the step
    # Q(k + 1) => Q(k) for 0 <= k < r, conclusion Q(k) for every 0 <= k <= r (Q(0) is the instance k = 0).
    # The citation stands only while the base and step obligations conclude, from the shape's definitions
    # alone, the exact terms proofs._instances.flatten_downward_induction builds (see coq_citations).
    DOWNWARD_INDUCTION: "SONNX.Instances.flatten_downward_induction_instance",
}
"""The steps whose exact statement a Coq theorem proves (here: the downward induction for Q(k))."""

THEOREM = f"""
{model_note('no element value occurs (the proof is about shapes and row-major indices)')}
Pass `flatten` (src/sonnx/rewrite/flatten.py). A shape of symbolic rank
r >= 0 is a function d from axes to sizes >= 0. P(k) = d(0) * ... * d(k-1)
and S(k) = d(k) * ... * d(r-1) are given by their recursive definitions
(P(0) = 1, P(k+1) = P(k) d(k); S(r) = 1, S(k) = d(k) S(k+1), for
0 <= k < r), which with r >= 0 and d(k) >= 0 are the one premise of the
base and step obligations. Machine-checked, for every r, d and axis:
(1) the axis normalisation a' = a + r (a < 0), a' = a otherwise, maps every
a in [-r, r] into [0, r]; (2) from those definitions, the base Q(r) and the
step "Q(k + 1) => Q(k) for every 0 <= k < r" of
Q(k) := P(k) S(k) = P(r) (downward induction from k = r; the
induction-schema instance of N is the axiom used; Coq proves that exact
instance, SONNX.Instances.flatten_downward_induction_instance, so it is not a
review item: the check builds the Coq instance's two hypotheses for this Q
term for term and cites Coq only while the two obligations conclude exactly
those terms), so the Reshape target
[P(a'), S(a')] holds exactly the input's element count, and the seed's
special case a = 0 gives [1, P(r)]; (3) row-major indexing: for
0 <= i < P, 0 <= j < S the flat index i S + j lies in [0, P S) and
determines (i, j), so Flatten and Reshape (both row-major re-indexings of the
same element sequence) give the same element at every (i, j); (4) Reshape
with allowzero = 1 returns exactly the requested shape, and with
allowzero = 0 it does so whenever no requested entry is 0.
Counterexample found for the seed's formula applied as is: a zero-sized
axis, d = [2, 0, 3], a = 2, requests [0, 3]; Reshape (allowzero = 0, the
default) reads the 0 as "copy input dimension 0" and targets [2, 3], which
does not hold the 0 elements. The pass sets allowzero = 1 (opset >= 14)
when a product is 0 and refuses it before opset 14.
""" + review_note(RESTS_ON, PROVED_IN_COQ)


def shape_definitions(d: z3.FuncDeclRef, p: z3.FuncDeclRef, s: z3.FuncDeclRef, r: z3.ArithRef) -> z3.BoolRef:
    """A shape of rank r >= 0 with sizes d(k) >= 0, P and S its prefix and suffix products (their recursions)."""
    k = z3.Int("sd_k")
    recursion = z3.And(d(k) >= 0, p(k + 1) == p(k) * d(k), s(k) == d(k) * s(k + 1))
    return z3.And(r >= 0, p(0) == 1, s(r) == 1, z3.ForAll([k], z3.Implies(z3.And(0 <= k, k < r), recursion)))


def _shape() -> tuple[z3.FuncDeclRef, z3.FuncDeclRef, z3.FuncDeclRef, z3.ArithRef]:
    """The symbols d, P, S and r of the theorem (z3 gives equal terms for equal names and sorts)."""
    d, p, s = (z3.Function(n, z3.IntSort(), z3.IntSort()) for n in ("d", "P", "S"))
    return d, p, s, z3.Int("r")


def coq_citations(obs: list[Obligation]) -> dict[str, str]:
    """``PROVED_IN_COQ``, without the downward induction unless two obligations prove its Coq hypotheses.

    The base and the step must be exactly ``shape_definitions => H`` for the
    base and the step ``H`` that ``proofs._instances.flatten_downward_induction``
    builds for Q(k) := P(k) S(k) = P(r): then the Coq theorem applies to the
    shape's P and S, which satisfy their definitions.
    """
    d, p, s, r = _shape()
    premises, coq = shape_definitions(d, p, s, r), flatten_downward_induction(p, s, r)
    exact = all(any(concludes(ob.formula, premises, h) for ob in obs) for h in (coq.base, coq.step))
    return {item: name for item, name in PROVED_IN_COQ.items() if exact or item != DOWNWARD_INDUCTION}


def obligations() -> list[Obligation]:
    d, P, S, r = _shape()
    a, i, j = z3.Ints("a i j")
    PR = P(r)
    norm = z3.If(a < 0, a + r, a)
    induction = flatten_downward_induction(P, S, r)
    shape = shape_definitions(d, P, S, r)

    def Q(m: z3.ArithRef) -> z3.BoolRef:
        return P(m) * S(m) == PR

    rows, cols = z3.Ints("rows cols")
    index = z3.And(rows >= 0, cols >= 0, 0 <= i, i < rows, 0 <= j, j < cols)
    i2, j2 = z3.Ints("i2 j2")
    index2 = z3.And(0 <= i2, i2 < rows, 0 <= j2, j2 < cols)
    # Reshape's resolution of a requested dimension q at position p (no -1 is ever requested here).
    q0, q1, in0, in1, az = z3.Ints("q0 q1 in0 in1 allowzero")

    def resolved(q: z3.ArithRef, dim_in: z3.ArithRef) -> z3.ArithRef:
        return z3.If(z3.And(az == 0, q == 0), dim_in, q)

    obs: list[Obligation] = [
        Obligation(
            "axis normalisation maps [-r, r] into [0, r]",
            z3.Implies(z3.And(r >= 0, -r <= a, a <= r), z3.And(0 <= norm, norm <= r)),
        ),
        Obligation(
            "induction base: Q(r), P(r) S(r) = P(r)", z3.Implies(shape, induction.base), rests_on=(DOWNWARD_INDUCTION,)
        ),
        Obligation(
            "induction step: Q(k + 1) => Q(k) for every 0 <= k < r",
            z3.Implies(shape, induction.step),
            rests_on=(DOWNWARD_INDUCTION,),
        ),
        Obligation(
            "seed special case a = 0: [P(0), S(0)] = [1, P(r)]",
            z3.Implies(z3.And(P(0) == 1, Q(0)), z3.And(P(0) == 1, S(0) == PR)),
            rests_on=(DOWNWARD_INDUCTION,),
            evidence=False,
            why_not_evidence="holds by construction: it restates its hypothesis Q(0) with P(0) = 1 substituted",
        ),
        Obligation(
            "row-major: 0 <= i S + j < P S", z3.Implies(index, z3.And(0 <= i * cols + j, i * cols + j < rows * cols))
        ),
        Obligation(
            "row-major: the flat index determines (i, j)",
            z3.Implies(z3.And(index, index2, i * cols + j == i2 * cols + j2), z3.And(i == i2, j == j2)),
        ),
        Obligation(
            "Reshape targets the requested [P, S] with allowzero = 1, or when neither is 0",
            z3.Implies(
                z3.And(q0 >= 0, q1 >= 0, z3.Or(az == 1, z3.And(q0 != 0, q1 != 0))),
                z3.And(resolved(q0, in0) == q0, resolved(q1, in1) == q1),
            ),
        ),
    ]
    return obs


def check() -> Result:
    _, P, S, r = _shape()
    a = z3.Int("a")
    q0, q1, in0, in1, az = z3.Ints("q0 q1 in0 in1 allowzero")

    def resolved(q: z3.ArithRef, dim_in: z3.ArithRef) -> z3.ArithRef:
        return z3.If(z3.And(az == 0, q == 0), dim_in, q)

    # Counterexample on the concrete rank-3 shape [2, 0, 3], axis 2, allowzero = 0.
    dims = [2, 0, 3]
    p2 = dims[0] * dims[1]
    s2 = dims[2]
    extra: list[Outcome] = [
        satisfiable("non-vacuous: rank 4, axis -1", [r == 4, a == -1, P(0) == 1, S(r) == 1]),
        refute(
            "allowzero = 0 with a zero-sized axis: [2, 0, 3], axis 2 requests [0, 3], Reshape targets [2, 3]",
            [
                q0 == p2,
                q1 == s2,
                in0 == dims[0],
                in1 == dims[1],
                az == 0,
                resolved(q0, in0) * resolved(q1, in1) != p2 * s2,
            ],
        ),
    ]
    obs = obligations()
    return run_obligations(TITLE, obs, extra, coq=coq_citations(obs))


if __name__ == "__main__":
    main(check, THEOREM)
