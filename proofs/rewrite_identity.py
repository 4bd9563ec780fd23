"""Rewrite theorem: Identity removal is sound.

Run ``python -m proofs.rewrite_identity`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Outcome, Result, main, run_obligations, satisfiable
from proofs.rewrite_common import model_note, refute, rewiring_obligations

ID = "rewrite-identity"
TITLE = "Identity removal is sound"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = f"""
{model_note('values are of an uninterpreted sort, compared only for equality')}
Pass `identity` (src/sonnx/rewrite/identity.py). Identity's output equals
its input as a value of any type (tensor, sequence, optional): for every
value v of an uninterpreted sort, Identity(v) = v. Machine-checked: with that
semantics, redirecting the readers of y to x gives every reader the same
value, and keeps GRAPH-C3, GRAPH-C1 and GRAPH-R1 (rewiring lemma, general
over an uninterpreted sort of names). When y is a graph output the pass
instead renames x to y at its producer (the output keeps its name); that is
the same lemma with the roles of the names swapped. Counterexample found for
the unrestricted rewiring of a graph output: if y is a graph output and x a
graph input, deleting the Identity leaves no tensor called y, so the
interface changes; the pass refuses that case.
"""


def check() -> Result:
    V = z3.DeclareSort("Value")
    ident = z3.Function("Identity", V, V)
    v = z3.Const("v", V)
    semantics = z3.ForAll([v], ident(v) == v)
    x = z3.Const("x", V)
    obs: list[Obligation] = [
        Obligation(
            "Identity semantics gives val(y) = val(x)",
            z3.Implies(semantics, ident(x) == x),
            evidence=False,
            why_not_evidence="holds by construction: the hypothesis is the conclusion for every v",
        ),
        *rewiring_obligations(),
    ]
    N = z3.DeclareSort("Name")
    is_input = z3.Function("is_graph_input", N, z3.BoolSort())
    is_output = z3.Function("is_graph_output", N, z3.BoolSort())
    produced = z3.Function("produced_after", N, z3.BoolSort())
    xn, yn = z3.Consts("xn yn", N)
    extra: list[Outcome] = [
        satisfiable("Identity semantics is consistent", [semantics]),
        refute(
            "graph output y fed by graph input x: after deletion y has no producer",
            [is_output(yn), is_input(xn), xn != yn, z3.Not(produced(yn))],
        ),
    ]
    return run_obligations(TITLE, obs, extra)


if __name__ == "__main__":
    main(check, THEOREM)
