"""GRAPH-C1-SOURCES as SMT: no write fact defines a graph input or an initialized tensor.

The rule as a formula over the raw facts (see :mod:`sonnx.smt.definitions`): an
uninterpreted predicate ``src`` holds for the tensor of every seed fact
``(sd s t)`` (a graph input or a tensor with an initial value) and fails for
the tensor of every write fact ``(wr o k t)``. Both can hold only if no write
names a seed, so sat = PROVED; the solver decides it (the formula is ground and
linear in the number of facts); Python only lists the facts.

In search mode each fact is written with its ids; in certificate mode (large
models) only the defined tensor's id, as conjunctions of 512 numbers per
assertion. Violations, both modes: an untrusted grouping proposes, per written
seed, the seed fact and a write fact of it, in the direct rule's order; each
group is refuted on its own and the exported obligation is all groups
together (unsat).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...base.witness import op_ref
from ...rules import graph_c1_sources as direct
from ...rules.graph_c1_sources import ID
from ..common import Encoding, Proof, ProofContext, ask_one, settled
from ..definitions import LOGIC, TERMS, Group, refute_groups, seeds
from ..facts import ScopeFacts
from ..smtlib import Obligation

RULE = [
    *TERMS,
    "; rule: src holds for every seeded tensor and for no written one, so no write defines a seeded tensor",
    "(declare-fun src (Int) Bool)",
]

CHUNK = 512
"""Terms per assertion in certificate mode."""


def _chunks(terms: list[str], positive: bool) -> Iterable[str]:
    for k in range(0, len(terms), CHUNK):
        part = " ".join(f"(src {x})" for x in terms[k : k + CHUNK])
        yield f"(assert (and {part}))" if positive else f"(assert (not (or {part})))"


def obligation(facts: Sequence[ScopeFacts], mode: str) -> Obligation:
    """The rule's formula; certificate mode writes bare tensor ids instead of the facts' terms."""
    search = mode == "search"
    seeded = [f"(sd {f.index} {t})" if search else str(t) for f in facts for t in seeds(f)]
    written = [f"(wr {o} {k} {t})" if search else str(t) for f in facts for o, k, t in f.writes()]
    if search:
        lines = [*RULE, *(f"(assert (src {x}))" for x in seeded), *(f"(assert (not (src {x})))" for x in written)]
    else:
        lines = [
            "; src holds for the id of every seeded tensor (graph input or initialized) and for no written one",
            "(declare-fun src (Int) Bool)",
            *_chunks(seeded, True),
            *_chunks(written, False),
        ]
    return Obligation(
        ID,
        "c1_sources.disjoint",
        LOGIC if search else "QF_UFLIA",
        lines,
        "sat",
        mode,
        "no tensor written by an operation is a graph input or an initialized tensor",
    )


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
    ob = obligation(ctx.facts, ctx.mode)
    ans = yield from ask_one(ob)
    obs = [ob]
    done = settled(ID, obs, ans, ctx.mode, proof="sat")
    if done is not None:
        return done
    return (
        yield from refute_groups(
            ID, "c1_sources", conflicts(ctx.facts), _describe, direct.LISTING, ctx.settings, ctx.mode, obs
        )
    )


ENCODING = Encoding(ID, prove)
"""GRAPH-C1-SOURCES in the table of :mod:`sonnx.smt.registry`."""
