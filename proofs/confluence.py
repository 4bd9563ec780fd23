"""Theorem (a): local confluence of graph execution under C1, for any graph.

Run ``python -m proofs.confluence`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Result, main, run_obligations, satisfiable
from proofs._state import Op, St, Tensor, Value, c1, executable, fire, initial, same, state, wf

ID = "confluence"
TITLE = "Local confluence of execution under C1"
SUPPORTS = ("GRAPH-C1", "GRAPH-C1-SOURCES")
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = """
For every graph (operations, tensors and values of uninterpreted sorts; every
operation with any number of inputs and outputs; every operator a function of
its input values) that satisfies the at-most-one half of C1 (no initially
valued tensor is produced, no tensor has two producers), and every reachable
state s (formally: every state satisfying the invariant WF "a tensor is
defined iff it is initially valued or produced by a fired operation", which
holds initially and is preserved by firing, both proved here):
if o1 != o2 are both executable in s, then o2 is executable in fire(s, o1),
o1 is executable in fire(s, o2), and fire(fire(s, o1), o2) = fire(fire(s, o2), o1)
(equal value, definedness and fired arrays).
Second route: the consequence the spec relies on, order independence, is
proved in Coq for every graph and every operator interpretation without this
lemma's z3 model (SONNX.OrderIndependence.order_independence); this module
checks the same diamond on the z3 state model of proofs/_state.py.
"""


def obligations() -> list[Obligation]:
    s = state("s")
    o, o1, o2 = z3.Consts("o o1 o2", Op)
    val0 = z3.Array("val0", Tensor, Value)
    hyp = z3.And(c1(), wf(s), o1 != o2, executable(s, o1), executable(s, o2))
    s1: St = fire(s, o1)
    s2: St = fire(s, o2)
    return [
        Obligation("invariant holds initially", wf(initial(val0))),
        Obligation(
            "invariant preserved by firing",
            z3.Implies(z3.And(c1(), wf(s), executable(s, o)), wf(fire(s, o))),
        ),
        Obligation("firing o1 keeps o2 executable", z3.Implies(hyp, executable(s1, o2))),
        Obligation("firing o2 keeps o1 executable", z3.Implies(hyp, executable(s2, o1))),
        Obligation("both orders reach the same state", z3.Implies(hyp, same(fire(s1, o2), fire(s2, o1)))),
    ]


def check() -> Result:
    s = state("s")
    o1, o2 = z3.Consts("o1 o2", Op)
    sanity = satisfiable(
        "hypotheses of the diamond are consistent",
        [c1(), wf(s), o1 != o2, executable(s, o1), executable(s, o2)],
    )
    # Non-vacuity of the encoding: drop C1 and the diamond must fail (two producers of one tensor).
    hyp_no_c1 = z3.And(wf(s), o1 != o2, executable(s, o1), executable(s, o2))
    needs_c1 = satisfiable(
        "without C1 the diamond has a counterexample (C1 is needed)",
        [hyp_no_c1, z3.Not(same(fire(fire(s, o1), o2), fire(fire(s, o2), o1)))],
    )
    return run_obligations(TITLE, obligations(), [sanity, needs_c1])


if __name__ == "__main__":
    main(check, THEOREM)
