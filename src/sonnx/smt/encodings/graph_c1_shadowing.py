"""GRAPH-C1-SHADOWING as SMT: no name a nested graph defines is bound to an enclosing definition.

The rule as a formula over the raw facts (see :mod:`sonnx.smt.definitions`): an
uninterpreted predicate ``bound`` holds for the name of every binding fact
``(bd t u)`` (name ``t`` of a nested graph resolved to the nearest enclosing
definition ``u``: every name a nested graph reads or defines that an enclosing
graph defines) and fails for every tensor a nested graph defines itself, by a
seed fact ``(sd s t)`` or a write fact ``(wr o k t)``. Both can hold only if
no locally defined name is also bound outside, so sat = PROVED. The main
graph has no binding facts and its tensor ids are its own, so its definitions
are left out. The solver decides it; Python only lists the facts.

In search mode each fact is written with its ids; in certificate mode only
the tensor's id: the bound and locally defined ids in sorted order, as ground
comparisons that hold exactly when no id is both, in parts above
:data:`.common.PART` ids (see ``sonnx.smt.definitions.disjoint``). Violations,
both modes: an untrusted grouping proposes, per shadowing name, its local
definition, its binding fact and the outer definition, in the direct rule's
order; each group is refuted on its own and the exported obligation is all
groups together (unsat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...rules import graph_c1_shadowing as direct
from ...rules.graph_c1_shadowing import ID
from ..arrays import I64, as_np
from ..common import Asking, Encoding, Proof, ProofContext
from ..definitions import LOGIC, TERMS, Group, disjoint, first_definition, prove_definitions, role, seeds
from ..facts import ScopeFacts, scope_of_tensor
from ..smtlib import Obligation
from ..solver import Answer

RULE = [
    *TERMS,
    "; rule: bound holds for every name bound to an enclosing definition and for no name a nested graph",
    ";   defines itself, so no nested graph redefines an enclosing name",
    "(declare-fun bound (Int) Bool)",
]

MEANING = "no name a nested graph defines is bound to an enclosing graph's definition"


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    """The rule's formula, each fact written as its term."""
    nested = [f for f in facts if f.parent >= 0]
    bindings = [f"(bd {t} {u})" for f in nested for t, u in f.captures + f.shadows]
    local = [f"(sd {f.index} {t})" for f in nested for t in seeds(f)]
    local += [f"(wr {o} {k} {t})" for f in nested for o, k, t in f.writes()]
    lines = [*RULE, *(f"(assert (bound {x}))" for x in bindings), *(f"(assert (not (bound {x})))" for x in local)]
    return Obligation(ID, "c1_shadowing.disjoint", LOGIC, lines, "sat", "search", MEANING)


def certificate_mode_obligations(facts: Sequence[ScopeFacts]) -> Asking[tuple[Answer, list[Obligation]]]:
    """The same formula over bare tensor ids, in parts on large models (``definitions.disjoint``)."""
    nested = [f for f in facts if f.parent >= 0]
    bindings = as_np([t for f in nested for t, _ in f.captures + f.shadows])
    local = np.concatenate(
        [as_np([t for f in nested for t in seeds(f)]), *(as_np(f.wr_t) for f in nested), np.zeros(0, I64)]
    )
    head = ["; the ids of the names bound to an enclosing definition and of those a nested graph defines: none is both"]
    return (yield from disjoint(ID, "c1_shadowing", bindings, local, head, MEANING))


def conflicts(facts: Sequence[ScopeFacts]) -> list[Group]:
    """Untrusted: per shadowing name, its local definition, binding and outer definition (direct rule's order)."""
    out: list[Group] = []
    for f in facts:
        for t, u in sorted(f.shadows, key=lambda p: f.name(p[0])):
            outer = first_definition(scope_of_tensor(facts, u), u)
            out.append((direct.KIND, f, t, [first_definition(f, t), f"(bd {t} {u})", outer]))
    return out


def _describer(facts: Sequence[ScopeFacts]) -> Callable[[Group], dict[str, Any]]:
    def describe(grp: Group) -> dict[str, Any]:
        kind, f, t, _ = grp
        u = next(u for t2, u in f.shadows if t2 == t)
        return {
            "kind": kind,
            "scope": f.path,
            "tensor": f.name(t),
            "inner": role(f, t),
            "outer": role(scope_of_tensor(facts, u), u),
        }

    return describe


def prove(ctx: ProofContext) -> Proof:
    return (
        yield from prove_definitions(
            ctx, ID, "c1_shadowing", certificate_mode_obligations, search_obligation, conflicts, _describer(ctx.facts),
            direct.LISTING,
        )
    )


ENCODING = Encoding(ID, prove)
"""GRAPH-C1-SHADOWING in the table of :mod:`sonnx.smt.registry`."""
