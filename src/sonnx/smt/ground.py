"""Ground instances that several rules' certificates write alike, so that z3 reads each text once.

**Comparisons of numbers along the read and write facts** (GRAPH-ACYCLIC,
GRAPH-C3).

GRAPH-ACYCLIC's certificate (spec/graph.rst 4.0.2) gives each operation a
rank ``R`` and each tensor a rank ``T``, and its obligation is, per read fact
``(o k t)``, ``T(t) < R(o)`` and, per write fact, ``R(o) <= T(t)``.
GRAPH-C3's certificate (4.0.7) gives firing times ``f`` and definition times
``h`` and asks, among its other checks, ``h(t) < f(o)`` per read fact of a
fired operation and ``f(o) <= h(t)`` per write that defines a tensor. On a
model that satisfies both rules, with every tensor written at most once,
the two producers compute the same numbers (the length of the longest
chain of dependencies ending at each operation) and so the same
comparisons.

Each rule builds its own comparisons from its own certificate with
``comparisons`` (read facts in fact order, then writes in write-fact
order, each distinct instance once) under the one head ``HEAD``: when
the two lists are the same, the obligations' scripts are the same text, and
the SMT engine has z3 solve that text once and gives the answer to both
(``_Scheduler._submit`` in ``sonnx.smt.engine``). When they differ (a tensor written
twice, a graph input also written), each rule's text is solved on its own.
Nothing is taken from the other rule either way: each verdict rests on z3's
answer to the rule's own obligations.

**Equalities of tensor ids** (GRAPH-R1, GRAPH-R1-TRANSITIVE, GRAPH-C3).
GRAPH-R1's certificate (spec/graph.rst 4.0.9) and GRAPH-R1-TRANSITIVE's
(4.0.12) name, per operation, one of its write facts and a read or
graph-output fact of the same tensor: the claim is the equality of the two
facts' tensor ids. GRAPH-C3's names, per tensor a write defines, that write
fact: the claim is that its tensor is the defined one. Each writes its
equalities with ``equalities`` (each distinct pair once, ascending)
under ``EQUALITY_HEAD``; on a model where every operation writes one
tensor, that tensor used, the three lists are the same.
"""

from __future__ import annotations

import numpy as np

from .arrays import I64, distinct_mixed, lines

READ, WRITE = 0, 1
"""Kinds of comparison: a read fact's (strict) and a write fact's (not strict)."""

TEMPLATES = ["(< {} {})", "(<= {} {})"]
"""The instance of each kind, the numbers of the fact's tensor and operation (or operation and tensor) in place."""

HEAD = [
    "; certificate: untrusted numbers of operations and tensors (ranks, or firing and definition times) in place",
    ";   per read fact (o k t): number(t) < number(o); per write fact (o k t): number(o) <= number(t);",
    ";   identical ground instances written once",
]
"""The comment lines both rules' comparison obligations start with (the rule and its reading are in each
obligation's meaning, which the exported file's header states)."""


def comparisons(kind: np.ndarray, left: np.ndarray, right: np.ndarray) -> list[str]:
    """The instances ``TEMPLATES[kind[i]]`` of ``(left[i], right[i])``, each distinct one once, in first order."""
    return distinct_mixed(TEMPLATES, kind, left, right)


EQUALITY_HEAD = [
    "; certificate: ground equalities of the tensor ids of two facts an untrusted search names (which facts: the",
    ";   obligation's meaning); each distinct equality once, in ascending order",
]
"""The comment lines of every equality obligation written by :func:`equalities`."""


def equalities(left: np.ndarray, right: np.ndarray) -> list[str]:
    """``(= left[i] right[i])`` for each distinct pair, in ascending order of ``(left, right)``."""
    if not len(left):
        return []
    lo = min(int(left.min()), int(right.min()))
    width = int(right.max()) - lo + 1
    if (int(left.max()) - lo + 1) * width >= 2**63:  # too wide to pack into one int64: sort the rows
        pairs = np.unique(np.stack([left, right], axis=1), axis=0)
        return lines("(= {} {})", pairs[:, 0], pairs[:, 1])
    key = np.unique((left.astype(I64) - lo) * width + (right.astype(I64) - lo))
    return lines("(= {} {})", key // width + lo, key % width + lo)
