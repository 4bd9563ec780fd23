"""GRAPH-C1 as SMT: no tensor is defined twice, across graphs.

The rule as a formula over the raw facts: every definition fact defines one
tensor id, and those ids are pairwise ``distinct``. The definition facts are
the write facts ``(o, k, t)``, one seed fact ``(s, t)`` per tensor of graph
``s`` that is a graph input or has an initial value (an input with a default
value is one definition), and the binding facts ``(t, u)`` of nested graphs
(the nested name ``t`` takes its value from ``u``, the nearest enclosing
definition). Two writes of a tensor, a write of a graph input or initializer,
or a nested graph defining a name that is bound to an enclosing definition
repeat an id. The solver decides the distinctness (no certificate is needed:
the formula is linear); Python only lists the facts.

In search mode each fact is written with its ids, ``(wr o k t)``,
``(sd s t)``, ``(bd t u)``, as a term whose value is the defined tensor; in
certificate mode (large models) only the defined tensor's id is written per
fact, the same formula in fewer bytes, cut into parts of consecutive values
above :data:`.common.PART` definition facts (see :func:`certificate_mode_obligations`).
sat = PROVED.

Violations, both modes: an untrusted grouping proposes, per tensor, the
definition facts that repeat it (as the direct rule lists them); each group
is refuted on its own (an assumption literal per group), and the exported
obligation is all groups together (unsat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.witness import op_ref
from ...rules import graph_c1 as direct
from ...rules.graph_c1 import ID
from .. import common
from ..arrays import I64, as_np
from ..common import (
    Asking,
    Encoding,
    Proof,
    ProofContext,
    RuleResult,
    ask,
    ask_one,
    facts_lines,
    listed,
    rejected,
    settled,
    unknown,
)
from ..facts import ScopeFacts, scope_of_tensor
from ..smtlib import Obligation
from ..solver import Answer, Session, SolverSettings

LOGIC = "QF_UFLIA"

RULE = [
    "; raw facts: (wr o k t) operation o writes tensor t at output k; (sd s t) tensor t of graph s is a graph input",
    ";   or has an initial value (one definition either way); (bd t u) name t of a nested graph is bound to u, the",
    ";   nearest enclosing graph's definition of the name. Each fact is a term whose value is the tensor it defines",
    "; rule: no tensor is defined twice: the defined tensors are pairwise distinct",
    "(define-fun wr ((o Int) (k Int) (t Int)) Int t)",
    "(define-fun sd ((s Int) (t Int)) Int t)",
    "(define-fun bd ((t Int) (u Int)) Int t)",
]


def _seeds(f: ScopeFacts) -> list[int]:
    return list(dict.fromkeys([t for _, t in f.inputs] + f.initialized))


def _distinct(items: list[str]) -> str:
    if len(items) < 2:
        return "(assert true)"
    return f"(assert (distinct {' '.join(items)}))"


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    items: list[str] = []
    for f in facts:
        items.extend(f"(sd {f.index} {t})" for t in _seeds(f))
        items.extend(f"(wr {o} {k} {t})" for o, k, t in f.writes())
        items.extend(f"(bd {t} {u})" for t, u in f.captures + f.shadows)
    return Obligation(
        ID,
        "c1.distinct",
        LOGIC,
        [*RULE, _distinct(items)],
        "sat",
        "search",
        "the tensors defined by the definition facts are pairwise distinct",
    )


def certificate_mode_obligations(facts: Sequence[ScopeFacts]) -> Asking[tuple[Answer, list[Obligation]]]:
    """The distinctness of the defined tensors, one number per definition fact; in parts on large models.

    Up to :data:`.common.PART` definition facts, one ``distinct``. Above, the
    numbers are sorted (untrusted) and cut into parts of consecutive values;
    each part states that its numbers, in that order, increase strictly, and
    that its first one is above the previous part's last one. A strictly
    increasing sequence has no repeated number, so the whole sorted sequence
    has none. What Python is trusted for: the sequence holds the number of
    every definition fact once (it is the facts' list, sorted), and the
    previous part's last number is written as it was. Every part is asked for
    at once; the answer is the first one, in part order, that is not ``sat``.
    """
    ids = np.concatenate(
        [as_np([*_seeds(f), *f.wr_t, *(t for t, _ in f.captures + f.shadows)]) for f in facts] or [np.zeros(0, I64)]
    )
    head = [
        "; the defined tensor of every definition fact (seeds of each graph, write facts, binding facts),",
        ";   one number per fact; rule: no tensor is defined twice, the numbers are pairwise distinct",
    ]
    size = common.PART
    if len(ids) <= size:
        ob = Obligation(
            ID,
            "c1.distinct",
            "QF_LIA",
            [*head, _distinct([str(t) for t in ids.tolist()])],
            "sat",
            "certificate",
            "the tensors defined by the definition facts are pairwise distinct",
        )
        return (yield from ask_one(ob)), [ob]
    ids.sort()
    n = -(-len(ids) // size)
    obs: list[Obligation] = []
    for k in range(n):
        part = ids[k * size : (k + 1) * size]
        lines = [*head, ";   a part of the sorted numbers: strictly increasing, and above the previous part's last"]
        lines.extend(increasing(part))
        if k:
            lines.append(f"(assert (< {ids[k * size - 1]} {part[0]}))")
        obs.append(
            Obligation(
                ID,
                f"c1.distinct.part{k}",
                "QF_LIA",
                lines,
                "sat",
                "certificate",
                f"the tensors defined by the definition facts are pairwise distinct (part {k + 1} of {n})",
            )
        )
    answers = yield from ask(obs)
    return next((a for a in answers if a.result != "sat"), answers[-1]), obs


def increasing(values: np.ndarray, size: int = 512) -> list[str]:
    """Assertions that ``values`` increase strictly: chains ``(< v0 v1 ... )`` of ``size`` steps each.

    SMT-LIB's ``<`` is chainable (``(< a b c)`` is ``a < b`` and ``b < c``);
    consecutive chains share their end value, so every consecutive pair is in one chain.
    """
    nums = values.tolist()
    return [
        f"(assert (< {' '.join(map(str, nums[k : k + size + 1]))}))" for k in range(0, max(0, len(nums) - 1), size)
    ]


Group = tuple[str, ScopeFacts, int, list[str]]
"""(kind, scope, tensor id, the raw facts that conflict)."""


def conflicts(facts: Sequence[ScopeFacts]) -> list[Group]:
    """Untrusted: per tensor, the definition facts that cannot share one P (in the direct rule's order)."""
    out: list[Group] = []
    for f in facts:
        s = f.index
        writes: dict[int, list[str]] = {}
        for o, k, t in f.writes():
            writes.setdefault(t, []).append(f"(wr {o} {k} {t})")
        inputs = {t: f"(sd {s} {t})" for _, t in f.inputs}
        inits = {t: f"(sd {s} {t})" for t in f.initialized}
        for t in sorted((t for t, w in writes.items() if len(w) > 1), key=f.name):
            out.append(("assigned more than once", f, t, writes[t]))
        for kind, seeds in (("assigns a graph input", inputs), ("assigns an initialized tensor", inits)):
            for t in sorted((t for t in seeds if t in writes), key=f.name):
                if kind == "assigns an initialized tensor" and t in inputs:
                    continue
                out.append((kind, f, t, [seeds[t], writes[t][0]]))
        for t, u in sorted(f.shadows, key=lambda p: f.name(p[0])):
            own = inputs.get(t) or inits.get(t) or writes[t][0]
            g = scope_of_tensor(facts, u)
            outer = _first_definition(g, u)
            out.append(("shadows an outer name", f, t, [own, f"(bd {t} {u})", outer]))
    return out


def _first_definition(g: ScopeFacts, u: int) -> str:
    if u in _seeds(g):
        return f"(sd {g.index} {u})"
    for o, k, t in g.writes():
        if t == u:
            return f"(wr {o} {k} {t})"
    raise AssertionError(f"tensor {u} has no definition in graph {g.path}")


def _describe(facts: Sequence[ScopeFacts], grp: Group) -> dict[str, Any]:
    kind, f, t, _ = grp
    nm = f.name(t)
    ops = f.graph.operations
    producers = [{**op_ref(f.path, o - f.op_base, ops[o - f.op_base]), "output": k} for o, k, x in f.writes() if x == t]
    out: dict[str, Any] = {"kind": kind, "scope": f.path, "tensor": nm, "producers": producers}
    for t2, u in f.shadows:
        if t2 == t:
            out["outer_scope"] = scope_of_tensor(facts, u).path
    return out


def _violation(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str, obs: list[Obligation]) -> Proof:
    groups = conflicts(facts)
    guarded = list(RULE)
    for g_i, (_, _, _, lines) in enumerate(groups):
        guarded.append(f"(declare-fun g{g_i} () Bool)")
        guarded.append(f"(assert (=> g{g_i} (distinct {' '.join(lines)})))")
    ob = Obligation(
        ID,
        "c1.conflicts",
        LOGIC,
        [
            "; counter-certificate: definition facts grouped per tensor by an untrusted search",
            *RULE,
            *facts_lines(f"(distinct {' '.join(grp[3])})" for grp in groups),
        ],
        "sat",
        "certificate",
        "each listed group of definition facts defines distinct tensors (unsat: some tensor is defined twice)",
    )
    ans = yield from ask_one(ob)
    obs.append(ob)
    if ans.result == "unknown":
        return RuleResult(unknown(ID, ans.reason, mode), obs)
    if ans.result != "unsat":
        return RuleResult(rejected(ID, ob, "conflicting definitions", mode).verdict, obs)
    session = Session("\n".join(guarded), settings)
    found: list[dict[str, Any]] = []
    for g_i, grp in enumerate(groups):
        a = session.check([f"g{g_i}"])
        if a.result == "unknown":
            return RuleResult(unknown(ID, a.reason, mode), obs)
        if a.result == "unsat":
            found.append(_describe(facts, grp))
    if not found:
        return RuleResult(unknown(ID, "no conflict group was refuted on its own (a tool defect)", mode), obs)
    return listed(ID, found, direct.LISTING, mode, obs)


def prove(ctx: ProofContext) -> Proof:
    facts, settings, mode = ctx.facts, ctx.settings, ctx.mode
    if mode == "certificate":
        ans, obs = yield from certificate_mode_obligations(facts)
    else:
        ob = search_obligation(facts)
        ans = yield from ask_one(ob)
        obs = [ob]
    done = settled(ID, obs, ans, mode, proof="sat")
    if done is not None:
        return done
    return (yield from _violation(facts, settings, mode, obs))


ENCODING = Encoding(ID, prove)
"""GRAPH-C1 in the table of :mod:`sonnx.smt.registry`."""
