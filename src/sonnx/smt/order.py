"""The ground comparisons of numbers along the read and write facts, as GRAPH-ACYCLIC and GRAPH-C3 both write them.

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
:func:`comparisons` (read facts in fact order, then writes in write-fact
order, each distinct instance once) under the one head :data:`HEAD`: when
the two lists are the same, the obligations' scripts are the same text, and
the SMT engine has z3 solve that text once and gives the answer to both
(:meth:`.engine._Scheduler._submit`). When they differ (a tensor written
twice, a graph input also written), each rule's text is solved on its own.
Nothing is taken from the other rule either way: each verdict rests on z3's
answer to the rule's own obligations.
"""

from __future__ import annotations

import numpy as np

from .arrays import distinct_mixed

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
