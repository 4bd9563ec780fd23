"""The definition facts shared by the three encodings of constraint C1, and their counter-certificate.

Constraint C1 is three rules (spec 4.0.3 to 4.0.5): GRAPH-C1 (no tensor
written twice), GRAPH-C1-SOURCES (no graph input or initialized tensor
written) and GRAPH-C1-SHADOWING (no nested graph redefines an enclosing
name). Each states its own formula over the same raw facts, written as terms
whose value is the tensor they define:

* ``(wr o k t)``: operation ``o`` writes tensor ``t`` at output position ``k``;
* ``(sd s t)``: tensor ``t`` of graph ``s`` is a graph input or has an initial
  value (one definition either way);
* ``(bd t u)``: name ``t`` of a nested graph is bound to ``u``, the nearest
  enclosing graph's definition of that name.

A violation is shown by an untrusted grouping of those facts, per offending
tensor; ``refute_groups`` has the solver refute all groups together (the
exported counter-certificate) and then each group on its own, so only the
groups the solver refutes are listed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..base.witness import op_ref
from ..rules.base import Listing
from . import common
from .arrays import I64
from .common import (
    Asking,
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
from .facts import ScopeFacts
from .smtlib import Obligation
from .solver import Answer, Session, SolverSettings

LOGIC = "QF_UFLIA"

TERMS = [
    "; raw facts: (wr o k t) operation o writes tensor t at output k; (sd s t) tensor t of graph s is a graph input",
    ";   or has an initial value (one definition either way); (bd t u) name t of a nested graph is bound to u, the",
    ";   nearest enclosing graph's definition of the name. Each fact is a term whose value is the tensor it defines",
    "(define-fun wr ((o Int) (k Int) (t Int)) Int t)",
    "(define-fun sd ((s Int) (t Int)) Int t)",
    "(define-fun bd ((t Int) (u Int)) Int t)",
]
"""The raw definition facts as SMT-LIB terms, with their meaning."""

Group = tuple[str, ScopeFacts, int, list[str]]
"""(kind, scope, tensor id, the raw facts that define the tensor more than once)."""


def seeds(f: ScopeFacts) -> list[int]:
    """The tensors of ``f`` defined before execution: its graph inputs, then its initialized tensors, once each."""
    return list(dict.fromkeys([t for _, t in f.inputs] + f.initialized))


def distinct(items: list[str]) -> str:
    """The assertion that ``items`` are pairwise distinct (trivially true for fewer than two)."""
    if len(items) < 2:
        return "(assert true)"
    return f"(assert (distinct {' '.join(items)}))"


def role(f: ScopeFacts, t: int) -> dict[str, Any]:
    """How graph ``f`` defines tensor ``t``, worded as the direct rules word it: input, initializer or producers."""
    if t in {x for _, x in f.inputs}:
        return {"scope": f.path, "role": "graph input"}
    if t in f.initialized:
        return {"scope": f.path, "role": "initializer"}
    ops = f.graph.operations
    producers = list(dict.fromkeys(o for o, _, x in f.writes() if x == t))
    return {
        "scope": f.path,
        "role": "operation output",
        "producers": [op_ref(f.path, o - f.op_base, ops[o - f.op_base]) for o in producers],
    }


def first_definition(g: ScopeFacts, u: int) -> str:
    """The raw fact by which graph ``g`` first defines ``u`` (a seed, else its first write)."""
    if u in seeds(g):
        return f"(sd {g.index} {u})"
    for o, k, t in g.writes():
        if t == u:
            return f"(wr {o} {k} {t})"
    raise AssertionError(f"tensor {u} has no definition in graph {g.path}")


CHUNK = 512
"""Numbers per assertion in the certificate-mode scripts."""


def _chains(nums: list[int]) -> list[str]:
    """Chains ``(<= a b c ...)`` of CHUNK steps; consecutive chains share their end number."""
    return [
        f"(assert (<= {' '.join(map(str, nums[k : k + CHUNK + 1]))}))" for k in range(0, max(0, len(nums) - 1), CHUNK)
    ]


def _strict(pairs: list[tuple[int, int]]) -> list[str]:
    """``(< a b)`` for each pair, CHUNK per assertion."""
    out: list[str] = []
    for k in range(0, len(pairs), CHUNK):
        out.append(f"(assert (and {' '.join(f'(< {a} {b})' for a, b in pairs[k : k + CHUNK])} true))")
    return out


def disjoint(
    rule_id: str, name: str, held: np.ndarray, refused: np.ndarray, head: list[str], meaning: str
) -> Asking[tuple[Answer, list[Obligation]]]:
    """Certificate mode: no id is both in ``held`` and in ``refused`` (sat), stated over the ids in sorted order.

    The ids of both lists are sorted (untrusted) and written, each where the
    sort put it, as ground comparisons: the sequence does not decrease, and
    it increases strictly between neighbours of different lists. An id in
    both lists makes a run of equal ids holding both lists, so two
    neighbours of different lists are equal and their strict step is false
    (unsat); when no step fails, equal ids all come from one list, which is
    disjointness. Up to :data:`.common.PART` ids, one obligation; above, the
    sorted sequence is cut, only where the id changes, into parts, and each
    part also states that its first id is above the previous part's last. So
    every run of equal ids lies in one part. What Python is trusted for: the
    sequence holds every id of the two lists once (the lists, sorted), the
    strict steps are where the list changes, and the previous part's last id
    is written as it was. The statement is ground: z3 evaluates it without an
    uninterpreted predicate over the ids (which cost it a search over the
    ids' equalities). Every part is asked for at once; the answer is the
    first one, in part order, not ``sat``.
    """
    ids = np.concatenate([held, refused]).astype(I64)
    kind = np.concatenate([np.ones(len(held), bool), np.zeros(len(refused), bool)])
    order = np.argsort(ids, kind="stable")
    ids, kind = ids[order], kind[order]
    cuts = [0]
    while cuts[-1] < len(ids):
        cut = min(cuts[-1] + common.PART, len(ids))
        while 0 < cut < len(ids) and ids[cut] == ids[cut - 1]:
            cut += 1
        cuts.append(cut)
    n = max(1, len(cuts) - 1)
    obs: list[Obligation] = []
    for k in range(n):
        a, b = cuts[k], cuts[min(k + 1, len(cuts) - 1)]
        part, lists = ids[a:b], kind[a:b]
        change = np.flatnonzero(lists[1:] != lists[:-1])
        lines = [
            *head,
            ";   the ids sorted: not decreasing, strictly increasing where the list changes",
            *_chains(part.tolist()),
        ]
        lines += _strict(list(zip(part[change].tolist(), part[change + 1].tolist(), strict=True)))
        if k:
            lines.append(f"(assert (< {ids[a - 1]} {part[0]}))")
        tag, what = (
            (f"{name}.disjoint", meaning)
            if n == 1
            else (f"{name}.disjoint.part{k}", f"{meaning} (part {k + 1} of {n})")
        )
        obs.append(Obligation(rule_id, tag, "QF_LIA", lines, "sat", "certificate", what))
    answers = yield from ask(obs)
    return next((x for x in answers if x.result != "sat"), answers[-1]), obs


def prove_definitions(
    ctx: ProofContext,
    rule_id: str,
    prefix: str,
    certificate: Callable[[Sequence[ScopeFacts]], Asking[tuple[Answer, list[Obligation]]]],
    search: Callable[[Sequence[ScopeFacts]], Obligation],
    conflicts: Callable[[Sequence[ScopeFacts]], list[Group]],
    describe: Callable[[Group], dict[str, Any]],
    listing: Listing,
) -> Proof:
    """A rule about definitions, in either mode: PROVED when its certificate or search obligation is sat, else
    VIOLATED by the groups of facts (``conflicts``, untrusted) the solver refutes on their own, or UNKNOWN."""
    if ctx.mode == "certificate":
        ans, obs = yield from certificate(ctx.facts)
    else:
        ob = search(ctx.facts)
        ans = yield from ask_one(ob)
        obs = [ob]
    done = settled(rule_id, obs, ans, ctx.mode, proof="sat")
    if done is not None:
        return done
    groups = conflicts(ctx.facts)
    return (yield from refute_groups(rule_id, prefix, groups, describe, listing, ctx.settings, ctx.mode, obs))


def refute_groups(
    rule_id: str,
    prefix: str,
    groups: Sequence[Group],
    describe: Callable[[Group], dict[str, Any]],
    listing: Listing,
    settings: SolverSettings,
    mode: str,
    obs: list[Obligation],
) -> Proof:
    """VIOLATED listing the groups the solver refutes on their own; UNKNOWN when it refutes none or answers unknown.

    The exported obligation asserts, for every group, that its facts define
    pairwise distinct tensors; ``unsat`` confirms that some tensor is defined
    more than once; it is named ``<prefix>.conflicts``. Each group is then checked alone under an assumption
    literal, so a group the untrusted search proposed wrongly is never listed.
    """
    guarded = list(TERMS)
    for i, (_, _, _, lines) in enumerate(groups):
        guarded.append(f"(declare-fun g{i} () Bool)")
        guarded.append(f"(assert (=> g{i} (distinct {' '.join(lines)})))")
    ob = Obligation(
        rule_id,
        f"{prefix}.conflicts",
        LOGIC,
        [
            "; counter-certificate: definition facts grouped per tensor by an untrusted search",
            *TERMS,
            *facts_lines(f"(distinct {' '.join(grp[3])})" for grp in groups),
        ],
        "sat",
        "certificate",
        "each listed group of definition facts defines distinct tensors (unsat: some tensor is defined twice)",
    )
    ans = yield from ask_one(ob)
    obs.append(ob)
    if ans.result == "unknown":
        return RuleResult(unknown(rule_id, ans.reason, mode), obs)
    if ans.result != "unsat":
        return RuleResult(rejected(rule_id, ob, "conflicting definitions", mode).verdict, obs)
    session = Session("\n".join(guarded), settings)
    found: list[dict[str, Any]] = []
    for i, grp in enumerate(groups):
        a = session.check([f"g{i}"])
        if a.result == "unknown":
            return RuleResult(unknown(rule_id, a.reason, mode), obs)
        if a.result == "unsat":
            found.append(describe(grp))
    if not found:
        return RuleResult(unknown(rule_id, "no conflict group was refuted on its own (a tool defect)", mode), obs)
    return listed(rule_id, found, listing, mode, obs)
