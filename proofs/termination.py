"""Theorem (b): termination and exactly-once firing in an acyclic graph with C1 and C3.

Run ``python -m proofs.termination`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._instances import least_unfired, occurs, ranks_nonnegative
from proofs._kit import Obligation, Result, main, review_note, run_obligations, satisfiable
from proofs._state import Op, Tensor, c1, executable, fire, init, inp, out, state, wf

ID = "termination"
TITLE = "Termination and exactly-once firing (acyclic, C1, C3)"
SUPPORTS = ("GRAPH-ACYCLIC", "GRAPH-C1", "GRAPH-C1-SOURCES")
LEAST_NUMBER = (
    "hand-written axiom: the least-number principle of N instantiated for 'n is the rank of an unfired "
    "operation' (least_unfired_axiom: when ranks are >= 0, no rank-minimal unfired operation means every "
    "operation is fired), a hypothesis of obligation (4) that z3 takes as given"
)
RUN_ENDS = "prose step: a finite set of operations with (1) bounds every run, so every run ends"
EXACTLY_ONCE = "prose step: (1)-(4) together give that every maximal run fires every operation exactly once"
RESTS_ON = (LEAST_NUMBER, RUN_ENDS, EXACTLY_ONCE)
"""The steps of this theorem z3 does not check (review items unless ``PROVED_IN_COQ`` cites a Coq proof)."""
PROVED_IN_COQ = {
    RUN_ENDS: "SONNX.Termination.every_run_terminates",
    EXACTLY_ONCE: "SONNX.Termination.exactly_once",
    # Same statement: Op is any type (z3's uninterpreted sort), rank : Op -> Z, fired : Op -> bool (z3's
    # Boolean array); the Coq theorem's conclusion is least_unfired_axiom conjunct for conjunct, under its
    # hypothesis 0 <= rank o, which is the first conjunct of strict_rank, a hypothesis of obligation (4).
    LEAST_NUMBER: "SONNX.Instances.least_unfired_instance",
}
"""The steps whose exact statement a Coq theorem proves, for every finite graph and every operator interpretation."""

THEOREM = """
Hypotheses on the graph (uninterpreted sorts, any number of inputs/outputs per
operation): C1 as seed 001 states it, i.e. its at-most-one half (no initially
valued tensor is produced, no tensor has two producers) and its at-least-one
half for every consumed tensor (every tensor an operation requires is initially
valued or produced by some operation; on the tensors that reach a graph output
this is what GRAPH-C3 checks); acyclicity, given as a strict rank
rank: Op -> Nat with rank(p) < rank(o) whenever p produces a tensor o requires
(equivalent to acyclicity by theorem (d)).
Machine-checked, for every state s satisfying the reachability invariant WF:
 (1) measure: firing an executable operation adds exactly that operation,
     which was unfired, to the fired set and removes none (the set of unfired
     operations strictly decreases);
 (2) at most once: a fired operation is not executable, and stays fired;
 (3) progress: an unfired operation of minimal rank among the unfired ones
     is executable;
 (4) a terminal state (no operation executable) has every operation fired and
     every graph output that is produced or initially valued defined (C3).
Axiom used in (4) besides the hypotheses: the instance of the least-number
principle of N for "n is the rank of an unfired operation", in contrapositive
form: if no unfired operation has a rank at most that of every unfired
operation, then every operation is fired (stated in the code; it needs the
hypothesis rank >= 0 of the strict rank).
Coq proves that exact instance for any type of operations
(SONNX.Instances.least_unfired_instance), so it is not a review item.
Not machine-checked (meta-level, finite sets): for a finite set of operations,
(1) bounds every run by the number of operations, so every run terminates;
with (2)-(4), every maximal run fires every operation exactly once.
(Theorem (c) also confirms exactly-once firing on the real sonnx.model
semantics, for every schedule of every graph of its bounded families.)
Second route: Coq proves both meta-level steps (spec section 3.7):
SONNX.Termination.every_run_terminates (a run from a state where nothing has
fired has at most as many steps as the graph has operations) and
SONNX.Termination.exactly_once (under a strict rank, every consumed tensor
having an origin, and operators giving one value per output entry, every
maximal run fires every operation exactly once), and
SONNX.Premises.exactly_once_under_rules derives those premises from GRAPH-C1,
GRAPH-C3, GRAPH-R1 and acyclicity. The Coq proof of exactly-once uses strong
induction on the rank; the least-number instance this z3 route uses is proved
on its own, as stated above.
""" + review_note(RESTS_ON, PROVED_IN_COQ)

rank = z3.Function("rank", Op, z3.IntSort())


def strict_rank() -> z3.BoolRef:
    p, o = z3.Consts("sr_p sr_o", Op)
    t = z3.Const("sr_t", Tensor)
    return z3.And(
        ranks_nonnegative(Op, rank),
        z3.ForAll([p, o, t], z3.Implies(z3.And(out(p, t), inp(o, t)), rank(p) < rank(o))),
    )


def producers_exist() -> z3.BoolRef:
    o, p = z3.Consts("pe_o pe_p", Op)
    t = z3.Const("pe_t", Tensor)
    return z3.ForAll([o, t], z3.Implies(inp(o, t), z3.Or(init(t), z3.Exists([p], out(p, t)))))


def least_unfired_axiom(fired: z3.ArrayRef) -> z3.BoolRef:
    """Least-number principle instance, contrapositive: no rank-minimal unfired operation => every one fired.

    Together with ``rank >= 0`` (in :func:`strict_rank`, a hypothesis of
    obligation (4)) this is SONNX.Instances.least_unfired_instance; the
    citation stands only while the obligation contains the term
    ``proofs._instances.least_unfired`` builds (see :func:`check`).
    """
    x, y = z3.Consts("ln_x ln_y", Op)
    return z3.Implies(
        z3.Not(
            z3.Exists(
                [x],
                z3.And(z3.Not(fired[x]), z3.ForAll([y], z3.Implies(z3.Not(fired[y]), rank(x) <= rank(y)))),
            )
        ),
        z3.ForAll([x], fired[x]),
    )


def coq_citations(obs: list[Obligation]) -> dict[str, str]:
    """``PROVED_IN_COQ``, without the least-number item unless obligation (4) holds the Coq instance's exact terms."""
    s = state("s")
    four = next(ob for ob in obs if ob.name.startswith("(4)"))
    exact = occurs(least_unfired(Op, rank, s.fired), four.formula) and occurs(ranks_nonnegative(Op, rank), four.formula)
    return {item: name for item, name in PROVED_IN_COQ.items() if exact or item != LEAST_NUMBER}


def obligations() -> list[Obligation]:
    s = state("s")
    o, x, m = z3.Consts("o x m", Op)
    t = z3.Const("t", Tensor)
    graph = z3.And(c1(), producers_exist(), strict_rank())
    s1 = fire(s, o)
    terminal = z3.ForAll([x], z3.Not(executable(s, x)))
    return [
        Obligation(
            "(1) measure: the fired set grows by exactly the fired operation",
            z3.Implies(
                executable(s, o),
                z3.And(
                    z3.Not(s.fired[o]),
                    s1.fired[o],
                    z3.ForAll([x], s1.fired[x] == z3.Or(s.fired[x], x == o)),
                ),
            ),
        ),
        Obligation(
            "(2) at most once: fired operations are not executable and stay fired",
            z3.And(
                z3.Implies(s.fired[o], z3.Not(executable(s, o))),
                z3.Implies(executable(s, m), z3.ForAll([x], z3.Implies(s.fired[x], fire(s, m).fired[x]))),
            ),
        ),
        Obligation(
            "(3) progress: a rank-minimal unfired operation is executable",
            z3.Implies(
                z3.And(
                    graph,
                    wf(s),
                    z3.Not(s.fired[m]),
                    z3.ForAll([x], z3.Implies(z3.Not(s.fired[x]), rank(m) <= rank(x))),
                ),
                executable(s, m),
            ),
        ),
        Obligation(
            "(4) terminal states: every operation fired, every produced tensor defined",
            z3.Implies(
                z3.And(graph, wf(s), terminal, least_unfired_axiom(s.fired)),
                z3.And(
                    z3.ForAll([x], s.fired[x]),
                    z3.ForAll([t], z3.Implies(z3.Or(init(t), z3.Exists([x], out(x, t))), s.dfn[t])),
                ),
            ),
            rests_on=(LEAST_NUMBER,),
        ),
    ]


def check() -> Result:
    s = state("s")
    o = z3.Const("o", Op)
    sanity = satisfiable(
        "hypotheses consistent with a pending executable operation",
        [c1(), producers_exist(), strict_rank(), wf(s), executable(s, o)],
    )
    x = z3.Const("x", Op)
    # Non-vacuity: without the rank (a cycle is allowed) a terminal state may leave an operation unfired.
    needs_rank = satisfiable(
        "without acyclicity a terminal state can leave an operation unfired",
        [c1(), producers_exist(), wf(s), z3.ForAll([x], z3.Not(executable(s, x))), z3.Not(s.fired[o])],
    )
    obs = obligations()
    return run_obligations(TITLE, obs, [sanity, needs_rank], steps=(RUN_ENDS, EXACTLY_ONCE), coq=coq_citations(obs))


if __name__ == "__main__":
    main(check, THEOREM)
