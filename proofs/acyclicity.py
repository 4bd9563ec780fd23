"""Theorem (d): a graph is acyclic exactly when a strict rank function exists.

Run ``python -m proofs.acyclicity`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._instances import walk_induction
from proofs._kit import Obligation, Outcome, Result, main, review_note, run_obligations, satisfiable

ID = "acyclicity"
TITLE = "Acyclicity iff a strict rank function exists"
SUPPORTS = ("GRAPH-ACYCLIC",)
BOUND = 6
"""The (=>) direction is machine-checked for every graph with 1..BOUND vertices."""

WALK_INDUCTION = (
    "hand-written induction instance: the induction schema of N for P(i) := r(v_i) >= r(v_0) + i, "
    "0 <= i <= L, a hypothesis of the (<=) obligation that z3 takes as given"
)
LARGER_GRAPHS = (
    f"prose step: the (=>) direction for graphs of more than {BOUND} vertices (the longest-path construction, "
    "machine-checked only up to that size)"
)
RESTS_ON = (WALK_INDUCTION, LARGER_GRAPHS)
"""The steps of this theorem z3 does not check (review items unless ``PROVED_IN_COQ`` cites a Coq proof)."""
PROVED_IN_COQ = {
    LARGER_GRAPHS: "SONNX.Acyclic.acyclic_iff_bounded_rank",
    # Same statement: V any type (z3's uninterpreted sort), r : V -> Z, walk : Z -> V (z3's array), L : Z, and
    # P i := r (walk i) >= r (walk 0) + i; hypotheses P(0) and the step for 0 <= i < L, conclusion for 0 <= i <= L.
    WALK_INDUCTION: "SONNX.Instances.walk_rank_induction_instance",
}
"""The steps whose exact statement a Coq theorem proves: the (=>) direction for every number of vertices, the
walk induction instance."""

THEOREM = f"""
For a directed graph (V, E), a strict rank is r: V -> Z with r(a) < r(b) for
every edge a -> b; a cycle is a closed walk v0 -> v1 -> ... -> vL = v0 with
L >= 1. The dependency graph of a SONNX graph is the case V = operations,
a -> b when a produces a tensor b requires (GRAPH-ACYCLIC; the per-model SMT
encoding asks for such ranks).
(<=) General, machine-checked: over an uninterpreted vertex sort, any edge
relation, any rank r, and any closed walk of any length L >= 1 (an array
Int -> V), the walk contradicts the rank. Axiom used besides the hypotheses:
the induction-schema instance of N for P(i) := r(v_i) >= r(v_0) + i, 0 <= i <= L.
(=>) Machine-checked for every graph with n vertices, 1 <= n <= {BOUND}, all
2^(n*n) edge relations at once (symbolic adjacency matrix): if no closed walk
of length 1..n exists (for n vertices this is the same as having no cycle at
all, since a shortest closed walk repeats no vertex), then the longest-path
rank (r(v) = the largest d such that a walk of d edges ends at v, computed
from the symbolic adjacency matrix) is a strict rank with values in 0..n-1. So ranks can be bounded by
the number of operations. For n > {BOUND} the (=>) direction is not
machine-checked; the textbook argument is the same construction (the longest
path ending at b has at most n-1 edges in an acyclic graph).
Second route: Coq proves the theorem for every number of vertices
(SONNX.Acyclic.acyclic_iff_strict_rank, and SONNX.Acyclic.acyclic_iff_bounded_rank
with the longest-path rank in 0..n-1), so the (=>) direction beyond n = {BOUND}
is not a review item. What this z3 module adds: the (<=) direction over an
uninterpreted vertex sort (not only finite graphs), which rests on the
induction instance above; Coq proves that exact instance for any vertex type
(SONNX.Instances.walk_rank_induction_instance), so it is not a review item.
""" + review_note(RESTS_ON, PROVED_IN_COQ)


def general_if() -> list[Obligation]:
    V = z3.DeclareSort("V")
    E = z3.Function("E", V, V, z3.BoolSort())
    r = z3.Function("r", V, z3.IntSort())
    walk = z3.Array("walk", z3.IntSort(), V)
    L = z3.Int("L")
    a, b = z3.Consts("a b", V)
    i = z3.Int("i")
    rank = z3.ForAll([a, b], z3.Implies(E(a, b), r(a) < r(b)))
    closed_walk = z3.And(
        L >= 1,
        walk[L] == walk[0],
        z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < L), E(walk[i], walk[i + 1]))),
    )

    # Built by proofs._instances exactly as SONNX.Instances.walk_rank_induction_instance states it.
    induction = walk_induction(r, walk, L)
    return [
        Obligation(
            "(<=) a strict rank excludes every closed walk",
            z3.Implies(z3.And(rank, induction), z3.Not(closed_walk)),
            rests_on=(WALK_INDUCTION,),
        )
    ]


def bounded_only_if(n: int) -> Obligation:
    E = [[z3.Bool(f"e_{a}_{b}") for b in range(n)] for a in range(n)]
    # ends[d][v]: some walk of exactly d edges ends at v (d = 0: the empty walk at v).
    ends: list[list[z3.BoolRef]] = [[z3.BoolVal(True) for _ in range(n)]]
    for _d in range(n):
        prev = ends[-1]
        ends.append([z3.Or([z3.And(prev[a], E[a][b]) for a in range(n)]) for b in range(n)])
    # closed[k][a][b]: a walk of exactly k edges from a to b; a cycle is closed[k][a][a], 1 <= k <= n.
    walk = [[E[a][b] for b in range(n)] for a in range(n)]
    closed = [walk[a][a] for a in range(n)]
    for _k in range(2, n + 1):
        walk = [[z3.Or([z3.And(walk[a][c], E[c][b]) for c in range(n)]) for b in range(n)] for a in range(n)]
        closed.extend(walk[a][a] for a in range(n))
    acyclic = z3.Not(z3.Or(closed))
    # Longest-path rank: the largest d such that a walk of d edges ends at v. Walks of d edges ending at v
    # give walks of d-1 edges (drop the first edge), so that largest d is the count of such d in 1..n.
    rk = [z3.Sum([z3.If(ends[d][v], 1, 0) for d in range(1, n + 1)]) for v in range(n)]
    strict = z3.And([z3.Implies(E[a][b], rk[a] < rk[b]) for a in range(n) for b in range(n)])
    bounded = z3.And([rk[v] <= n - 1 for v in range(n)])
    return Obligation(
        f"(=>) n={n}: no closed walk implies the longest-path rank is strict, in 0..{n - 1}",
        z3.Implies(acyclic, z3.And(strict, bounded)),
    )


def check() -> Result:
    obs = general_if() + [bounded_only_if(n) for n in range(1, BOUND + 1)]
    # Non-vacuity: the (<=) hypotheses without the rank admit a closed walk (a self-loop).
    V = z3.DeclareSort("V")
    E = z3.Function("E", V, V, z3.BoolSort())
    v = z3.Const("v", V)
    extra: list[Outcome] = [satisfiable("a cyclic graph exists (the closed-walk notion is not empty)", [E(v, v)])]
    return run_obligations(TITLE, obs, extra, steps=(LARGER_GRAPHS,), coq=PROVED_IN_COQ)


if __name__ == "__main__":
    main(check, THEOREM)
