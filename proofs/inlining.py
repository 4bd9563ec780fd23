"""Theorem (e): inlining of functions terminates exactly when the (reachable) call graph is acyclic.

Run ``python -m proofs.inlining`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Result, main, review_note, run_obligations, satisfiable

ID = "inlining"
TITLE = "Function inlining terminates iff the call graph is acyclic"
SUPPORTS = ("GRAPH-FUNCTIONS",)
CHAIN_INDUCTION = (
    "hand-written induction instance: the induction schema of N for P(i) := r(c_i) <= r(c_0) - i, "
    "a hypothesis of the (<=) obligation that z3 takes as given"
)
KONIG = (
    "prose step: Konig's lemma (a finitely branching tree is finite iff its depth is bounded), so inlining "
    "terminates iff the depth of pending call sites is bounded"
)
RANK_EXISTS = "prose step: an acyclic call graph on finitely many functions has a strict rank (theorem (d))"
RESTS_ON = (CHAIN_INDUCTION, KONIG, RANK_EXISTS)
"""The steps of this theorem z3 does not check (review items unless ``PROVED_IN_COQ`` cites a Coq proof)."""
PROVED_IN_COQ = {
    RANK_EXISTS: "SONNX.Acyclic.acyclic_iff_strict_rank_dec",
    CHAIN_INDUCTION: "SONNX.Functions.inlining_terminates_iff",
    KONIG: "SONNX.Functions.inlining_terminates_iff",
}
"""The steps a Coq theorem makes unnecessary: theorem (d) for a decidable relation on n vertices, every n, and the
whole of theorem (e), which Coq proves for finite lists of call sites (so without Kőnig's lemma)."""

THEOREM = """
Model: functions form an uninterpreted sort F, with main (the model's graph)
among them; calls(f, g) when f's body (nested graphs included) has a call of g.
Inlining repeatedly replaces a pending call site by a copy of the callee's
body, whose call sites become pending. A pending call site created after d
replacements sits at the end of a call chain main = c0 -> c1 -> ... -> cd.
Machine-checked, in general (any F, any calls, any chain length):
 (<=) if the call graph has a strict rank (r(g) < r(f) when f calls g, r >= 0),
      every call chain from main has length at most r(main), so no pending
      call site is deeper than r(main). Axiom used: the induction-schema
      instance of N for P(i) := r(c_i) <= r(c_0) - i;
 (=>) if a cycle f -> ... -> f (length >= 1) is reachable from main, then for
      every K there is a call chain from main of length K (the path to f, then
      round the cycle), so pending call sites occur at every depth.
Meta-level step (not machine-checked): every body has finitely many call
sites, so the tree of call sites is finitely branching; by Konig's lemma it is
finite iff its depth is bounded, and inlining terminates iff that tree is
finite. With theorem (d) (acyclic iff a strict rank exists, proved in Coq for
every number of functions: SONNX.Acyclic.acyclic_iff_strict_rank_dec, applied
to the converse of calls), inlining terminates iff no cycle of the call graph
is reachable from main. GRAPH-FUNCTIONS rejects every cycle among
the model's local functions, reachable or not: a sufficient condition, and
the reading seed 001 gives ("forbids any direct or indirect recursion").
""" + review_note(RESTS_ON, PROVED_IN_COQ)

F = z3.DeclareSort("F")
calls = z3.Function("calls", F, F, z3.BoolSort())
MAIN = z3.Const("main", F)


def obligations() -> list[Obligation]:
    r = z3.Function("r", F, z3.IntSort())
    f, g = z3.Consts("f g", F)
    i = z3.Int("i")
    chain = z3.Array("chain", z3.IntSort(), F)
    L = z3.Int("L")
    rank = z3.And(
        z3.ForAll([f], r(f) >= 0), z3.ForAll([f, g], z3.Implies(calls(f, g), r(g) < r(f)))
    )

    def is_chain(c: z3.ArrayRef, n: z3.ArithRef) -> z3.BoolRef:
        return z3.And(
            n >= 0, c[0] == MAIN, z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < n), calls(c[i], c[i + 1])))
        )

    def p(k: z3.ArithRef) -> z3.BoolRef:
        return r(chain[k]) <= r(chain[0]) - k

    induction = z3.Implies(
        z3.And(p(z3.IntVal(0)), z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < L, p(i)), p(i + 1)))),
        z3.ForAll([i], z3.Implies(z3.And(0 <= i, i <= L), p(i))),
    )
    if_half = Obligation(
        "(<=) with a strict rank every call chain from main has length <= r(main)",
        z3.Implies(z3.And(rank, is_chain(chain, L), induction), L <= r(MAIN)),
        rests_on=(CHAIN_INDUCTION,),
    )

    # (=>): path q from main to fc (length M >= 0), cycle p at fc (length C >= 1); chain of any length K.
    q = z3.Array("q", z3.IntSort(), F)
    cyc = z3.Array("cyc", z3.IntSort(), F)
    M, C, K = z3.Ints("M C K")
    fc = z3.Const("fc", F)
    path = z3.And(
        M >= 0, q[0] == MAIN, q[M] == fc,
        z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < M), calls(q[i], q[i + 1]))),
    )
    cycle = z3.And(
        C >= 1, cyc[0] == fc, cyc[C] == fc,
        z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < C), calls(cyc[i], cyc[i + 1]))),
    )
    j = z3.Int("j")
    unrolled = z3.Lambda([j], z3.If(j <= M, q[j], cyc[(j - M) % C]))
    only_if_half = Obligation(
        "(=>) a cycle reachable from main gives a call chain from main of every length K",
        z3.Implies(z3.And(path, cycle, K >= 0), is_chain(unrolled, K)),
    )
    return [if_half, only_if_half]


def check() -> Result:
    f = z3.Const("f", F)
    sanity = satisfiable(
        "a recursive call graph exists (the (=>) hypotheses are not empty)", [calls(MAIN, f), calls(f, f)]
    )
    return run_obligations(TITLE, obligations(), [sanity], steps=(KONIG, RANK_EXISTS), coq=PROVED_IN_COQ)


if __name__ == "__main__":
    main(check, THEOREM)
