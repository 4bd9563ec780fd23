"""GRAPH-C1 as SMT: no tensor is written at two output positions.

The rule as a formula over the write facts ``(o, k, t)`` of every graph (see
:mod:`sonnx.smt.definitions`): each write fact defines one tensor id, and those ids
are pairwise ``distinct``. Tensor ids are global (a nested graph's tensors
have ids of their own), so two writes repeat an id exactly when one graph
writes one name twice, by two operations or by one operation at two output
positions. The solver decides the distinctness (no certificate is needed: the
formula is linear); Python only lists the facts. Writes to graph inputs and
initialized tensors are GRAPH-C1-SOURCES, nested names GRAPH-C1-SHADOWING.

In search mode each fact is written with its ids, ``(wr o k t)``, as a term
whose value is the written tensor; in certificate mode (large models) only the
written tensor's id is written per fact, the same formula in fewer bytes, cut
into parts of consecutive values above :data:`.common.PART` write facts (see
:func:`certificate_mode_obligations`). sat = PROVED.

Violations, both modes: an untrusted grouping proposes, per tensor, the write
facts that repeat it (as the direct rule lists them); each group is refuted on
its own (an assumption literal per group), and the exported obligation is all
groups together (unsat).
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
from ..common import Asking, Encoding, Proof, ProofContext, ask, ask_one
from ..definitions import LOGIC, TERMS, Group, distinct, prove_definitions
from ..facts import ScopeFacts
from ..smtlib import Obligation
from ..solver import Answer

RULE = [*TERMS, "; rule: no tensor is written twice: the tensors of the write facts are pairwise distinct"]


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    items = [f"(wr {o} {k} {t})" for f in facts for o, k, t in f.writes()]
    return Obligation(
        ID,
        "c1.distinct",
        LOGIC,
        [*RULE, distinct(items)],
        "sat",
        "search",
        "the tensors written by the write facts are pairwise distinct",
    )


def certificate_mode_obligations(facts: Sequence[ScopeFacts]) -> Asking[tuple[Answer, list[Obligation]]]:
    """The distinctness of the defined tensors, one number per definition fact; in parts on large models.

    Up to :data:`.common.PART` write facts, one ``distinct``. Above, the
    numbers are sorted (untrusted) and cut into parts of consecutive values;
    each part states that its numbers, in that order, increase strictly, and
    that its first one is above the previous part's last one. A strictly
    increasing sequence has no repeated number, so the whole sorted sequence
    has none. What Python is trusted for: the sequence holds the number of
    every write fact once (it is the facts' list, sorted), and the
    previous part's last number is written as it was. Every part is asked for
    at once; the answer is the first one, in part order, that is not ``sat``.
    """
    ids = np.concatenate([as_np(f.wr_t) for f in facts] or [np.zeros(0, I64)])
    head = [
        "; the written tensor of every write fact, one number per fact;",
        ";   rule: no tensor is written twice, the numbers are pairwise distinct",
    ]
    size = common.PART
    if len(ids) <= size:
        ob = Obligation(
            ID,
            "c1.distinct",
            "QF_LIA",
            [*head, distinct([str(t) for t in ids.tolist()])],
            "sat",
            "certificate",
            "the tensors written by the write facts are pairwise distinct",
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
                f"the tensors written by the write facts are pairwise distinct (part {k + 1} of {n})",
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
    return [f"(assert (< {' '.join(map(str, nums[k : k + size + 1]))}))" for k in range(0, max(0, len(nums) - 1), size)]


def conflicts(facts: Sequence[ScopeFacts]) -> list[Group]:
    """Untrusted: per tensor written more than once, its write facts (in the direct rule's order)."""
    out: list[Group] = []
    for f in facts:
        writes: dict[int, list[str]] = {}
        for o, k, t in f.writes():
            writes.setdefault(t, []).append(f"(wr {o} {k} {t})")
        for t in sorted((t for t, w in writes.items() if len(w) > 1), key=f.name):
            out.append((direct.KIND, f, t, writes[t]))
    return out


def _describe(grp: Group) -> dict[str, Any]:
    kind, f, t, _ = grp
    ops = f.graph.operations
    producers = [{**op_ref(f.path, o - f.op_base, ops[o - f.op_base]), "output": k} for o, k, x in f.writes() if x == t]
    return {"kind": kind, "scope": f.path, "tensor": f.name(t), "producers": producers}


def prove(ctx: ProofContext) -> Proof:
    return (
        yield from prove_definitions(
            ctx, ID, "c1", certificate_mode_obligations, search_obligation, conflicts, _describe,
            direct.LISTING,
        )
    )


ENCODING = Encoding(ID, prove)
"""GRAPH-C1 in the table of :mod:`sonnx.smt.registry`."""
