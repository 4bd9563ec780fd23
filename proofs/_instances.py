"""The hand-written z3 hypotheses that a Coq theorem of ``proofs/coq/Instances.v`` proves, written once.

A z3 module may cite a Coq theorem for a hypothesis it takes as given only
when the hypothesis in its obligation is, as a z3 term, the one built here:
each builder mirrors one Coq statement conjunct for conjunct, and
:func:`occurs` lets a module check that its obligation really contains it
(a copy of the module with a mis-stated hypothesis then loses the citation
and shows the hypothesis as a review item again), or :func:`concludes` that
an obligation proves exactly a Coq theorem's hypothesis from given premises.
Spec section 3.7, GRAPH-ACYCLIC.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3


def least_unfired(op: z3.SortRef, rank: z3.FuncDeclRef, fired: z3.ArrayRef) -> z3.BoolRef:
    """No rank-minimal unfired operation => every operation fired (SONNX.Instances.least_unfired_instance).

    The Coq theorem proves this for every type of operations when every rank
    is >= 0; an obligation citing it must have ``ForAll o. rank(o) >= 0``
    among its hypotheses (:func:`ranks_nonnegative`).
    """
    x, y = z3.Consts("ln_x ln_y", op)
    minimal = z3.And(z3.Not(fired[x]), z3.ForAll([y], z3.Implies(z3.Not(fired[y]), rank(x) <= rank(y))))
    return z3.Implies(z3.Not(z3.Exists([x], minimal)), z3.ForAll([x], fired[x]))


def ranks_nonnegative(op: z3.SortRef, rank: z3.FuncDeclRef) -> z3.BoolRef:
    """The hypothesis ``0 <= rank o`` for every operation o, under which the least-number instance holds."""
    o = z3.Const("sr_o", op)
    return z3.ForAll([o], rank(o) >= 0)


def walk_induction(r: z3.FuncDeclRef, walk: z3.ArrayRef, length: z3.ArithRef) -> z3.BoolRef:
    """Induction on 0..L for P(i) := r(walk[i]) >= r(walk[0]) + i (SONNX.Instances.walk_rank_induction_instance)."""
    i = z3.Int("i")

    def p(k: z3.ArithRef) -> z3.BoolRef:
        return r(walk[k]) >= r(walk[0]) + k

    return z3.Implies(
        z3.And(p(z3.IntVal(0)), z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < length, p(i)), p(i + 1)))),
        z3.ForAll([i], z3.Implies(z3.And(0 <= i, i <= length), p(i))),
    )


@dataclass(frozen=True)
class DownwardInduction:
    """The two hypotheses and the conclusion of a downward induction on ``0..r``, as z3 terms."""

    base: z3.BoolRef
    step: z3.BoolRef
    conclusion: z3.BoolRef


def flatten_downward_induction(p: z3.FuncDeclRef, s: z3.FuncDeclRef, r: z3.ArithRef) -> DownwardInduction:
    """SONNX.Instances.flatten_downward_induction_instance for ``Q k := P k * S k = P r``, term for term.

    The base is ``Q r``; the step ``forall k, 0 <= k < r -> Q (k + 1) -> Q k``
    (Coq's ``0 <= k < r`` is ``0 <= k /\\ k < r``, and its two arrows are two
    nested implications); the conclusion ``forall k, 0 <= k <= r -> Q k``.
    ``p`` and ``s`` are z3 functions from Int to Int (Coq's ``Z -> Z``) and
    ``r`` an Int (Coq's ``Z``). A module's obligations are these
    hypotheses only when they are these exact terms (:func:`concludes`).
    """
    k = z3.Int("fd_k")

    def q(m: z3.ArithRef) -> z3.BoolRef:
        return p(m) * s(m) == p(r)

    return DownwardInduction(
        q(r),
        z3.ForAll([k], z3.Implies(z3.And(0 <= k, k < r), z3.Implies(q(k + 1), q(k)))),
        z3.ForAll([k], z3.Implies(z3.And(0 <= k, k <= r), q(k))),
    )


def concludes(formula: z3.ExprRef, premises: z3.BoolRef, goal: z3.BoolRef) -> bool:
    """Whether ``formula`` is exactly ``premises => goal`` (z3's structural equality, bound names included).

    Stricter than :func:`occurs`: a formula that merely contains ``goal``
    (as a hypothesis, or under a disjunction) does not conclude it.
    """
    return formula.eq(z3.Implies(premises, goal))


def occurs(part: z3.ExprRef, whole: z3.ExprRef) -> bool:
    """Whether ``part`` is a sub-term of ``whole`` (z3's structural equality, bound variable names included)."""
    todo: list[z3.ExprRef] = [whole]
    while todo:
        e = todo.pop()
        if e.eq(part):
            return True
        if z3.is_quantifier(e):
            todo.append(e.body())
        elif z3.is_app(e):
            todo.extend(e.children())
    return False
