"""GRAPH-ACYCLIC as SMT: ranks that increase along every read and write fact exist.

The rule as a formula over the raw facts (:mod:`.facts`): there are integer
functions ``R`` (operations) and ``T`` (tensors) with, for every read fact
``(o, k, t)``, ``T(t) < R(o)`` and, for every write fact ``(o, k, t)``,
``R(o) <= T(t)``. A dependency A -> B through tensor t gives
``R(A) <= T(t) < R(B)``, so such ranks exist exactly when the dependency
graph has no cycle. The writer-reader join is the solver's: ``T`` is an
uninterpreted function of the tensor id, shared by the facts that mention it.
Python only lists the facts.

* search mode: one obligation, every read and write fact of every graph;
  the solver finds ``R`` and ``T`` (sat = PROVED) or shows that none exist
  (unsat = VIOLATED).
* certificate mode: an untrusted Kahn sort (:mod:`.certify`) proposes ``R``
  and ``T``; their values are written in place of ``R(o)`` and ``T(t)`` in
  each fact's instance (each value looked up by the fact's own ids), and z3
  evaluates every instance (identical ground instances are written once,
  in the form GRAPH-C3 writes its comparisons of times,
  :mod:`sonnx.smt.ground`). sat = PROVED.
* violations, both modes: an untrusted search proposes a cycle as a list of
  (write fact, read fact) pairs; the obligation is the search formula over
  exactly those facts, and unsat (these facts of the model admit no ranking)
  confirms the cycle (a long cycle in segments: ``cycle_obligations``). The
  decision never falls back to an unbounded search: a rejected certificate or
  cycle is UNKNOWN (a tool defect).

:func:`rank_body` is the edge-based rank encoding that partition
verification (:mod:`sonnx.partition.verify`) uses on fused graphs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.witness import LIMIT, brief, first
from ...rules.graph_acyclic import ID
from .. import common, ground
from ..arrays import I64, as_np
from ..certify import Ranks, index_of, ranks_of
from ..common import (
    Encoding,
    Proof,
    ProofContext,
    RuleResult,
    ask,
    ask_one,
    certificate_verdict,
    conj,
    distinct,
    facts_lines,
    rejected,
    settled,
    unknown,
    violated,
)
from ..cycles import Edge, Step, cycle
from ..facts import ScopeFacts
from ..smtlib import Obligation

LOGIC = "QF_UFLIA"

RULE = [
    "; raw facts: (rd o k t) operation o reads tensor t at input position k; (wr o k t) it writes t at output k",
    "; rule: ranks R (operations) and T (tensors) with T(t) < R(o) for each read, R(o) <= T(t) for each write",
    "(declare-fun R (Int) Int)",
    "(declare-fun T (Int) Int)",
    "(define-fun rd ((o Int) (k Int) (t Int)) Bool (< (T t) (R o)))",
    "(define-fun wr ((o Int) (k Int) (t Int)) Bool (<= (R o) (T t)))",
]


def rank_body(per_scope: Sequence[tuple[int, list[Edge]]], values: dict[int, list[int]] | None) -> list[str]:
    """SMT-LIB lines of a rank obligation over operation edges ``(a, b, tensor)`` (fused partition graphs).

    With ``values`` None one rank ``r<scope>_<node>`` is declared per node on an
    edge and ``rank(a) < rank(b)`` asserted per edge; with ``values`` the given
    ranks are written in place, each distinct pair once.
    """
    body: list[str] = []
    for s, edges in per_scope:
        if values is None:
            used = sorted({e[0] for e in edges} | {e[1] for e in edges})
            body.extend(f"(declare-fun r{s}_{j} () Int)" for j in used)
            body.extend(f"(assert (< r{s}_{a} r{s}_{b}))" for a, b, _ in reversed(edges))
        else:
            r = values[s]
            pairs = dict.fromkeys((r[a], r[b]) for a, b, _ in reversed(edges))
            body.extend(f"(assert (< {ra} {rb}))" for ra, rb in pairs)
    return body if values is None else distinct(body)


def _facts(facts: Sequence[ScopeFacts]) -> list[str]:
    out: list[str] = []
    for f in facts:
        out.extend(f"(rd {o} {k} {t})" for o, k, t in f.reads())
        out.extend(f"(wr {o} {k} {t})" for o, k, t in f.writes())
    return out


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    return Obligation(
        ID,
        "graph_acyclic.search",
        LOGIC,
        RULE + facts_lines(_facts(facts)),
        "sat",
        "search",
        "ranks R, T exist with T(t) < R(o) for every read fact and R(o) <= T(t) for every write fact",
    )


def _cycle_lines(f: ScopeFacts, steps: Sequence[Step]) -> list[str]:
    """The raw facts of ``steps``, last step first.

    The order is for z3's difference-logic engine, which refutes the facts
    written against the cycle's direction in time linear in its length, and
    quadratic in the other direction (figures: benchmarks/README.md, "Figures
    behind choices in the code").
    """
    lines: list[str] = []
    for i, r in reversed(steps):
        lines.append(f"(rd {f.rd_o[r]} {f.rd_k[r]} {f.rd_t[r]})")
        lines.append(f"(wr {f.wr_o[i]} {f.wr_k[i]} {f.wr_t[i]})")
    return facts_lines(lines)


COUNTER = "; counter-certificate: the raw facts of a cycle claimed by an untrusted search"


def cycle_obligations(f: ScopeFacts, steps: list[Step]) -> list[Obligation]:
    """The obligations whose ``unsat`` confirms the claimed cycle of graph ``f``: one, or parts and their chain.

    Up to :data:`.common.PART` facts, one obligation: the cycle's facts
    alone admit no ranks. A longer cycle is cut into segments of at most
    ``PART // 2`` steps (a write and a read fact each); segment ``k`` runs
    from the writer ``a_k`` of its first step to the reader ``a_(k+1)`` of
    its last one, the writer of the next segment's first step (the last
    segment ends at ``a_0``). Part ``k`` asserts the segment's facts and
    ``R(a_(k+1)) <= R(a_k)``: ``unsat`` means the facts force
    ``R(a_k) < R(a_(k+1))`` whatever ``R`` and ``T`` are. The last
    obligation asserts those strict steps around the cycle, ``unsat`` by
    itself. All ``unsat`` is the single obligation's ``unsat``: ranks that
    satisfied every fact of the cycle would satisfy every part's facts, so
    would increase strictly from each ``a_k`` to the next, around the cycle
    back to ``a_0``. The ends are named by the untrusted search; wrong ends
    make a part ``sat`` (rejected), never a false cycle. z3's memory is that
    of one part.
    """
    span = max(1, common.PART // 2)
    where = f"graph {f.path}"
    if 2 * len(steps) <= common.PART:
        return [
            Obligation(
                ID,
                f"graph_acyclic.cycle{f.index}",
                LOGIC,
                [COUNTER, *RULE, *_cycle_lines(f, steps)],
                "sat",
                "certificate",
                f"the listed read and write facts of {where} alone admit ranks (unsat: they form a cycle)",
            )
        ]
    cuts = list(range(0, len(steps), span))
    ends = [f.wr_o[steps[c][0]] for c in cuts]
    n = len(cuts) + 1
    obs: list[Obligation] = []
    for k, c in enumerate(cuts):
        a, b = ends[k], ends[(k + 1) % len(ends)]
        obs.append(
            Obligation(
                ID,
                f"graph_acyclic.cycle{f.index}.part{k}",
                LOGIC,
                [COUNTER, *RULE, *_cycle_lines(f, steps[c : c + span]), f"(assert (<= (R {b}) (R {a})))"],
                "sat",
                "certificate",
                f"the listed facts of segment {k + 1} of a cycle of {where} admit R({b}) <= R({a})"
                f" (unsat: they force R({a}) < R({b}); part {k + 1} of {n})",
            )
        )
    chain = [f"(< (R {a}) (R {b}))" for a, b in zip(ends, [*ends[1:], ends[0]], strict=True)]
    obs.append(
        Obligation(
            ID,
            f"graph_acyclic.cycle{f.index}.part{len(cuts)}",
            LOGIC,
            [COUNTER, "(declare-fun R (Int) Int)", *conj(chain)],
            "sat",
            "certificate",
            f"ranks increase strictly from each segment's end to the next around the cycle of {where}"
            f" (unsat: no ranks do; part {n} of {n})",
        )
    )
    return obs


def certificate_body(facts: Sequence[ScopeFacts], certs: dict[int, Ranks]) -> tuple[list[str], list[str]]:
    """Comment lines, and each read and write fact's instance with the certificate's ranks in place (once each).

    Every read fact (o k t) gives ``(< T(t) R(o))`` and every write fact ``(<= R(o) T(t))``, scope by scope,
    reads then writes, each in fact order; each rank is looked up by the fact's own ids. Written by
    :func:`.ground.comparisons`, as GRAPH-C3 writes its comparisons of times.
    """
    kinds, left, right = [], [], []
    for f in facts:
        rank, trank = (as_np(x) for x in certs[f.index])
        ix = index_of(f)
        kinds += [np.full(len(ix.rd_j), ground.READ, I64), np.full(len(ix.wr_j), ground.WRITE, I64)]
        left += [trank[ix.rd_x], rank[ix.wr_j]]
        right += [rank[ix.rd_j], trank[ix.wr_x]]
    items = ground.comparisons(*(np.concatenate(c) for c in (kinds, left, right)))
    return list(ground.HEAD), items


def _witness(cyclic: list[tuple[ScopeFacts, list[Step]]]) -> tuple[str, dict[str, Any]]:
    f, steps = cyclic[0]
    ops = f.graph.operations
    listed: list[dict[str, Any]] = []
    for i, _ in steps[:LIMIT]:  # the witness lists the first LIMIT steps and counts them all
        j = f.wr_o[i] - f.op_base
        listed.append({"index": j, "operation": ops[j].label, "tensor": f.name(f.wr_t[i])})
    labels = [s["operation"] for s in listed]
    if len(steps) == 1:
        what = f"operation {labels[0]} reads its own output {listed[0]['tensor']!r}"
    else:
        what = f"a cycle of {len(steps)} operations ({brief([str(x) for x in labels], total=len(steps))})"
    extra = f"; {len(cyclic) - 1} more graph(s) have cycles" if len(cyclic) > 1 else ""
    paths = [c[0].path for c in cyclic]
    return f"in graph {f.path}: {what}{extra}", {
        "scope": f.path,
        "length": len(steps),
        "cycle": listed[:LIMIT],
        "cyclic_graphs": first(paths),
        "cyclic_graph_count": len(paths),
    }


def _violation(facts: Sequence[ScopeFacts], mode: str, obs: list[Obligation]) -> Proof:
    """Cycles from the untrusted search, each confirmed by the solver on its own facts (all asked for at once)."""
    found: list[tuple[ScopeFacts, list[Step], list[Obligation]]] = []
    for f in facts:
        steps = cycle(f, index_of(f))
        if steps is not None:
            found.append((f, steps, cycle_obligations(f, steps)))
    answers = yield from ask([ob for _, _, parts in found for ob in parts], difference_logic=True)
    cyclic: list[tuple[ScopeFacts, list[Step]]] = []
    at = 0
    for f, steps, parts in found:
        for ob in parts:
            ans = answers[at]
            at += 1
            if ans.result == "unknown":
                # z3's difference logic refutes a cycle but calls a consistent set of facts "incomplete" (the
                # rank functions' arguments are outside its fragment); the general arithmetic decides that case.
                ans = yield from ask_one(ob)
            obs.append(ob)
            if ans.result == "unknown":
                return RuleResult(unknown(ID, ans.reason, mode), obs)
            if ans.result != "unsat":
                return RuleResult(rejected(ID, ob, "claimed cycle", mode).verdict, obs)
        cyclic.append((f, steps))
    if not cyclic:
        return RuleResult(unknown(ID, "no cycle was found where the solver found no ranks (a tool defect)", mode), obs)
    summary, data = _witness(cyclic)
    return RuleResult(violated(ID, summary, data, mode), obs)


def prove(ctx: ProofContext) -> Proof:
    facts, mode = ctx.facts, ctx.mode
    if mode == "certificate":
        certs: dict[int, Ranks] = {}
        for f in facts:
            r = ranks_of(f)
            if r is None:
                return (yield from _violation(facts, mode, []))
            certs[f.index] = r
        return (yield from check_certificate(facts, certs))
    ob = search_obligation(facts)
    ans = yield from ask_one(ob)
    done = settled(ID, ob, ans, "search", proof="sat")
    if done is not None:
        return done
    return (yield from _violation(facts, "search", [ob]))


def check_certificate(facts: Sequence[ScopeFacts], certs: dict[int, Ranks]) -> Proof:
    """Have the solver check rank certificates (scope index -> (R per operation, T per tensor))."""
    return certificate_verdict(
        ID,
        "graph_acyclic.certificate",
        lambda: certificate_body(facts, certs),
        "the given ranks (R per operation, T per tensor, the numbers of the comparisons) satisfy T(t) < R(o) for"
        " every read fact and R(o) <= T(t) for every write fact",
        "rank certificate",
    )


ENCODING = Encoding(ID, prove)
"""GRAPH-ACYCLIC in the table of :mod:`sonnx.smt.registry`."""
