"""GRAPH-R1-TRANSITIVE as SMT: every operation contributes to a graph output.

The rule as Horn clauses over the raw facts, with Booleans ``C`` (operation
contributes) and ``L`` (tensor is live): a graph-output fact makes its tensor
live; a write fact ``(o, k, t)`` makes ``o`` contribute when ``t`` is live;
a read fact ``(o, k, t)`` makes ``t`` live when ``o`` contributes (spec 2.1,
"contributes"). The clauses force ``C`` true exactly on the least fixpoint,
so "some operation fact has ``C`` false" is satisfiable exactly when some
operation contributes to no output (an operation only feeding a cycle cut off
from the outputs included). Python only lists the facts.

* search mode: unsat = PROVED; sat = VIOLATED.
* certificate mode: an untrusted backward search gives, per operation, a
  distance ``d``, one of its write facts and either a graph-output fact of the
  same tensor or a read fact of it by an operation with a smaller distance;
  in place: the two tensor ids are equal, ``0 <= d`` and the reader's ``d``
  is smaller. Distances decrease to a graph output along every claim, so
  every operation contributes; sat = PROVED. The equalities are an
  obligation of their own, written as GRAPH-R1 writes its named uses: when
  the two rules name uses of the same tensors, z3 solves that text once.
* the witness list, both modes (no fallback to search): the untrusted search
  lists the non-contributing operations ``N`` and the tensors ``Z`` they
  write, as units for every id; checks: every write of an operation in ``N``
  is in ``Z``, every reader of a tensor in ``Z`` is in ``N``, no graph output
  is in ``Z``. Then no operation of ``N`` contributes (induction on the
  fixpoint). Written as a refutation: unsat = every check holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.witness import op_ref
from ...rules import graph_r1_transitive as direct
from ...rules.graph_r1_transitive import ID
from .. import ground
from ..arrays import I64, as_np, distinct_mixed
from ..certify import READ, Distances, distances, index_of
from ..common import (
    Encoding,
    Group,
    Proof,
    ProofContext,
    ask_one,
    certificate_groups,
    facts_lines,
    listed,
    or_all,
    settled,
)
from ..counter import Checks, closed_set, refute
from ..facts import ScopeFacts
from ..smtlib import Obligation
from .graph_r1 import NOTE, op_facts, use_facts, uses_body


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    body = [
        NOTE,
        "; rule: Horn clauses of contribution; C o: o contributes, L t: t is a graph output or read by a contributor",
        "(declare-fun C (Int) Bool)",
        "(declare-fun L (Int) Bool)",
        "(define-fun go ((s Int) (k Int) (t Int)) Bool (L t))",
        "(define-fun wr ((o Int) (k Int) (t Int)) Bool (=> (L t) (C o)))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (=> (C o) (L t)))",
        "(define-fun op ((o Int)) Bool (not (C o)))",
        *facts_lines(use_facts(facts)),
        "; violation: some operation does not contribute",
        f"(assert {or_all(op_facts(facts))})",
    ]
    return Obligation(
        ID,
        "r1t.non_contributing",
        "QF_UFLIA",
        body,
        "unsat",
        "search",
        "in the least fixpoint of the contribution clauses, some operation does not contribute",
    )


Dist = dict[int, Distances]


def certificate_body(facts: Sequence[ScopeFacts], cert: Dist) -> list[Group]:
    """The equalities of each named use (as GRAPH-R1 writes its own: :func:`.graph_r1.uses_body`), then per
    operation ``(<= 0 d)`` and, for a read, ``(< d(reader) d)``."""
    order: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    uses = uses_body(facts, cert)
    for f in facts:
        c = cert[f.index]
        kind, other, dist = (as_np(x) for x in (c.kind, c.other, c.dist))
        read = kind == READ
        # every reader has a record: named_uses has refused any record that is neither a read nor an output
        reader = np.where(read, index_of(f).rd_j[np.where(read, other, 0)], 0)
        # per operation: (<= 0 d), then (< d(reader) d) when the use is a read
        step = np.stack([np.full(f.n, LE, I64), np.where(read, LT, -1)], axis=1).reshape(-1)
        a = np.stack([np.zeros(f.n, I64), dist[reader]], axis=1).reshape(-1)
        b = np.repeat(dist, 2)
        keep = step >= 0
        order.append((step[keep], a[keep], b[keep]))
    step, a, b = (np.concatenate(c) if c else np.zeros(0, I64) for c in zip(*order, strict=True))
    return [
        (
            "r1t.certificate.uses",
            list(ground.EQUALITY_HEAD),
            uses,
            "every operation has a write fact whose tensor is that of the read or graph-output fact named on its"
            " way to a graph output",
        ),
        (
            "r1t.certificate",
            [
                "; certificate: per operation o, a distance d(o) and the graph-output fact or the read fact (by an",
                ";   operation of smaller distance) of one of its written tensors, named by an untrusted backward",
                ";   search; checked in place: 0 <= d, and the reader's distance is smaller",
            ],
            distinct_mixed(["(<= {} {})", "(< {} {})"], step, a, b),
            "the given distances decrease along the named uses down to 0 at a graph output",
        ),
    ]


LE, LT = 0, 1


def idle_body(facts: Sequence[ScopeFacts], idle: dict[int, list[int]]) -> Checks:
    checks = closed_set(facts, idle, "N", "Z")
    checks.head = [
        NOTE,
        "; counter-certificate from an untrusted search: N (operations claimed not to contribute) and Z (tensors they",
        ";   write), units for every id; checks: writes of N are in Z, readers of Z are in N, no graph output is in Z.",
        ";   Refutation: unsat = every check holds",
        "(declare-fun N (Int) Bool)",
        "(declare-fun Z (Int) Bool)",
        "(define-fun wr ((o Int) (k Int) (t Int)) Bool (=> (N o) (Z t)))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (=> (Z t) (N o)))",
        "(define-fun go ((s Int) (k Int) (t Int)) Bool (not (Z t)))",
    ]
    return checks


def _idle(facts: Sequence[ScopeFacts], mode: str, obs: list[Obligation]) -> Proof:
    idle: dict[int, list[int]] = {}
    for f in facts:
        _, rest = distances(f, index_of(f))
        if rest:
            idle[f.index] = rest
    return (yield from check_idle(facts, idle, mode, obs))


def check_idle(facts: Sequence[ScopeFacts], idle: dict[int, list[int]], mode: str, obs: list[Obligation]) -> Proof:
    failed = yield from refute(
        ID,
        "r1t.idle",
        idle_body(facts, idle),
        "the listed operations fail a closure check (unsat: none of them contributes)",
        "list of non-contributing operations",
        mode,
        obs,
        accept=bool(idle),
    )
    if failed is not None:
        return failed
    found: list[dict[str, Any]] = []
    for f in facts:
        ops = f.graph.operations
        found.extend(op_ref(f.path, j, ops[j]) for j in idle.get(f.index, []))
    return listed(ID, found, direct.LISTING, mode, obs)


def prove(ctx: ProofContext) -> Proof:
    facts, mode = ctx.facts, ctx.mode
    if mode == "certificate":
        cert: Dist = {}
        for f in facts:
            d, rest = distances(f, index_of(f))
            if rest:
                return (yield from _idle(facts, mode, []))
            cert[f.index] = d
        return (yield from check_certificate(facts, cert))
    ob = search_obligation(facts)
    ans = yield from ask_one(ob)
    done = settled(ID, ob, ans, mode)
    if done is not None:
        return done
    return (yield from _idle(facts, mode, [ob]))


def check_certificate(facts: Sequence[ScopeFacts], cert: Dist) -> Proof:
    return certificate_groups(
        ID,
        lambda: certificate_body(facts, cert),
        "distance certificate",
        missing="the distance certificate has no record for",
    )


ENCODING = Encoding(ID, prove)
"""GRAPH-R1-TRANSITIVE in the table of :mod:`sonnx.smt.registry`."""
