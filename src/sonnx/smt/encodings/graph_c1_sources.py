"""GRAPH-C1-SOURCES as SMT: no write fact defines a graph input or an initialized tensor.

The rule as a formula over the raw facts (see :mod:`sonnx.smt.definitions`): an
uninterpreted predicate ``src`` holds for the tensor of every seed fact
``(sd s t)`` (a graph input or a tensor with an initial value) and fails for
the tensor of every write fact ``(wr o k t)``. Both can hold only if no write
names a seed, so sat = PROVED; the solver decides it (the formula is ground and
linear in the number of facts); Python only lists the facts.

In search mode each fact is written with its ids; in certificate mode (large
models) only the defined tensor's id: the seeded and written ids in sorted
order, as ground comparisons that hold exactly when no id is both, in parts
above :data:`.common.PART` ids (see ``sonnx.smt.definitions.disjoint``).
Violations, both modes: an untrusted grouping proposes, per written seed, the
seed fact and a write fact of it, in the direct rule's order; each
group is refuted on its own and the exported obligation is all groups
together (unsat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.witness import op_ref
from ...rules import graph_c1_sources as direct
from ...rules.graph_c1_sources import ID
from ..arrays import I64, as_np
from ..common import Asking, Encoding, Proof, ProofContext
from ..definitions import LOGIC, TERMS, Group, disjoint, prove_definitions, seeds
from ..facts import ScopeFacts
from ..smtlib import Obligation
from ..solver import Answer

RULE = [
    *TERMS,
    "; rule: src holds for every seeded tensor and for no written one, so no write defines a seeded tensor",
    "(declare-fun src (Int) Bool)",
]

MEANING = "no tensor written by an operation is a graph input or an initialized tensor"


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    """The rule's formula, each fact written as its term."""
    seeded = [f"(sd {f.index} {t})" for f in facts for t in seeds(f)]
    written = [f"(wr {o} {k} {t})" for f in facts for o, k, t in f.writes()]
    lines = [*RULE, *(f"(assert (src {x}))" for x in seeded), *(f"(assert (not (src {x})))" for x in written)]
    return Obligation(ID, "c1_sources.disjoint", LOGIC, lines, "sat", "search", MEANING)


def certificate_mode_obligations(facts: Sequence[ScopeFacts]) -> Asking[tuple[Answer, list[Obligation]]]:
    """The same formula over bare tensor ids, in parts on large models (``definitions.disjoint``)."""
    seeded = as_np([t for f in facts for t in seeds(f)])
    written = np.concatenate([as_np(f.wr_t) for f in facts] or [np.zeros(0, I64)])
    head = ["; the ids of the seeded tensors (graph inputs, initialized) and of the written ones: no id is both"]
    return (yield from disjoint(ID, "c1_sources", seeded, written, head, MEANING))


def conflicts(facts: Sequence[ScopeFacts]) -> list[Group]:
    """Untrusted: per written seed, its seed fact and its first write fact (in the direct rule's order)."""
    out: list[Group] = []
    for f in facts:
        s = f.index
        first: dict[int, str] = {}
        for o, k, t in f.writes():
            first.setdefault(t, f"(wr {o} {k} {t})")
        inputs = {t for _, t in f.inputs}
        inits = [t for t in f.initialized if t not in inputs]
        for kind, group in ((direct.INPUT, inputs), (direct.INITIALIZED, inits)):
            for t in sorted((t for t in group if t in first), key=f.name):
                out.append((kind, f, t, [f"(sd {s} {t})", first[t]]))
    return out


def _describe(grp: Group) -> dict[str, Any]:
    kind, f, t, _ = grp
    ops = f.graph.operations
    producers = list(dict.fromkeys(o for o, _, x in f.writes() if x == t))
    return {
        "kind": kind,
        "scope": f.path,
        "tensor": f.name(t),
        "producers": [op_ref(f.path, o - f.op_base, ops[o - f.op_base]) for o in producers],
    }


def prove(ctx: ProofContext) -> Proof:
    return (
        yield from prove_definitions(
            ctx, ID, "c1_sources", certificate_mode_obligations, search_obligation, conflicts, _describe,
            direct.LISTING,
        )
    )


ENCODING = Encoding(ID, prove)
"""GRAPH-C1-SOURCES in the table of :mod:`sonnx.smt.registry`."""
