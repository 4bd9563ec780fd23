"""GRAPH-DETERMINISM: two runs of the model on equal inputs give equal outputs.

This is the semantic property behind restriction R2 (spec anchor
``GRAPH-DETERMINISM``). R2 is syntactic: no nondeterministic operator may
appear at all. Graph determinism asks only whether a nondeterministic value
can *reach* a graph output: a random operator that feeds nothing but a dead
node breaks R2 and leaves the graph deterministic. The two are reported
separately.

Direct check (the SMT engine proves the same property by two-run congruence,
:mod:`sonnx.smt.encodings.graph_r2`): the operations that GRAPH-R2 classifies as
nondeterministic are *sources*; a control-flow operation whose nested graph
is not deterministic is a source of its own graph (nested graphs are decided
first, bottom up). The graph is deterministic when no source reaches an
operation assigning a graph output along dependency edges (implicit inputs
of nested graphs included). Operations whose determinism is unknown are
sources of a second search; reaching an output that way gives UNKNOWN. A call
of a function that shadows a standard operator, of a class other than
deterministic as that operator (GRAPH-R2), makes the operations writing its
outputs sources of that class: the runtimes run the operator, whose outputs
are the call's.

The property is stated for graphs that satisfy GRAPH-ACYCLIC, GRAPH-C1,
GRAPH-C1-SOURCES and GRAPH-C1-SHADOWING (without them, "the value of an
output" is not a function of the schedule, or a name denotes two tensors);
when one fails, the verdict is UNKNOWN with that reason (the first in that
order).

Witness: the output that can differ, the source operation with its reason,
and the path of (operation, tensor) steps from the source to the output.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from ..base.verdict import Severity, Status, Verdict, Witness
from ..base.witness import op_ref
from ..model.index import index
from ..model.structure import scopes
from . import graph_acyclic, graph_c1, graph_c1_shadowing, graph_c1_sources
from .base import CheckContext
from .function_calls import writers
from .graph_r2 import NONDET, UNKNOWN, call_classes, operation_classes

ID = "GRAPH-DETERMINISM"
SEVERITY = Severity.ERROR


def _reach(ctx: CheckContext, scope: int, sources: dict[int, str]) -> dict[str, Any] | None:
    """The path from some source to a graph output of ``scope`` (None when no source reaches one)."""
    sc = scopes(ctx)[scope]
    ix = index(ctx, sc.graph)
    ptr, dst, occ = ix.succ()
    targets = set(ix.output_producers().tolist())
    parent: dict[int, tuple[int, int]] = {}
    queue = deque(sorted(sources))
    seen = set(queue)
    hit = -1
    while queue:
        j = queue.popleft()
        if j in targets:
            hit = j
            break
        for k in range(int(ptr[j]), int(ptr[j + 1])):
            c = int(dst[k])
            if c not in seen:
                seen.add(c)
                parent[c] = (j, int(occ[k]))
                queue.append(c)
    if hit < 0:
        return None
    ops = sc.graph.operations
    output = next(o for o in sc.graph.outputs if hit in ix.producers(o))
    steps: list[dict[str, Any]] = [{"tensor": output, **op_ref(sc.path, hit, ops[hit])}]
    cur = hit
    while cur in parent:
        prev, k = parent[cur]
        (tensor,) = ix.names_of(np.array([k], np.intp))
        steps.append({"tensor": tensor, **op_ref(sc.path, prev, ops[prev])})
        cur = prev
    steps.reverse()
    src = steps[0]
    return {
        "scope": sc.path,
        "output": output,
        "source": {k: src[k] for k in ("scope", "index", "operation")},
        "source_reason": sources[cur],
        "path": steps,
    }


def check(ctx: CheckContext) -> Verdict:
    for rule in (graph_acyclic, graph_c1, graph_c1_sources, graph_c1_shadowing):
        if rule.check(ctx).status is not Status.PROVED:
            return Verdict.unknown(
                ID, f"graph determinism is stated for graphs where {rule.ID} holds, and it does not", SEVERITY
            )
    all_scopes = scopes(ctx)
    classes = operation_classes(ctx)
    calls: dict[tuple[int, int], tuple[str, str]] = {}
    for c, (status, reason) in call_classes(ctx):
        for j in writers(ctx, c):
            prev = calls.get((c.scope, j))
            if prev is None or prev[0] != NONDET:
                calls[(c.scope, j)] = (status, f"it writes an output of {c.label}, {reason}")
    holder: dict[int, tuple[int, int]] = {}
    for i, sc in enumerate(all_scopes):
        if sc.parent >= 0:
            parent_graph = all_scopes[sc.parent].graph
            j = next(j for j, op in enumerate(parent_graph.operations) for _, g in op.subgraphs if g is sc.graph)
            holder[i] = (sc.parent, j)
    body: dict[tuple[int, int], tuple[str, str]] = {}
    result: dict[int, tuple[str, dict[str, Any] | None]] = {}
    for i in reversed(range(len(all_scopes))):  # pre-order reversed: nested graphs first
        certain: dict[int, str] = {}
        maybe: dict[int, str] = {}
        for (s, j), (status, reason) in [*classes.items(), *calls.items(), *body.items()]:
            if s == i:
                (certain if status == NONDET else maybe).setdefault(j, reason)
        for j in certain:
            maybe.pop(j, None)
        path = _reach(ctx, i, certain) if certain else None
        if path is not None:
            result[i] = (NONDET, path)
        elif maybe and (path := _reach(ctx, i, {**certain, **maybe})) is not None:
            result[i] = (UNKNOWN, path)
        else:
            continue
        if i in holder:
            kind = result[i][0]
            what = "is not deterministic" if kind == NONDET else "has operations of unknown determinism"
            prev = body.get(holder[i])
            if prev is None or prev[0] != NONDET:
                body[holder[i]] = (kind, f"nested graph {all_scopes[i].path} {what}")
    main = result.get(0)
    if main is None:
        return Verdict.proved(ID, SEVERITY)
    kind, path = main
    assert path is not None
    if kind == UNKNOWN:
        return Verdict.unknown(
            ID,
            f"{path['source']['operation']}, of unknown determinism ({path['source_reason']}), "
            f"reaches graph output {path['output']!r}",
            SEVERITY,
        )
    src = path["source"]
    return Verdict.violated(
        ID,
        Witness(
            f"graph output {path['output']!r} can differ between two runs on equal inputs: {src['operation']} "
            f"(#{src['index']} in {src['scope']}) reaches it through {len(path['path'])} step(s)",
            path,
        ),
        SEVERITY,
    )
