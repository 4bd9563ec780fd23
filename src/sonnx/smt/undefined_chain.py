"""GRAPH-C3's witness: an undefined graph output followed back to where its values stop (spec/graph.rst 4.0.7).

From the output, each step goes to the tensor's first writer and that
writer's first read whose tensor is undefined (by the solver's model in
search mode, by the confirmed never-defined set in certificate mode), until
a tensor has no writer, a writer reads nothing undefined (the values read
are inconsistent), or a tensor repeats (a cycle). The steps are kept as
numbers; only those a witness lists are worded (:func:`step_record`), since
a chain can be as long as the graph.
"""

from __future__ import annotations

from typing import Any

from .facts import ScopeFacts

Step = tuple[int, int | None, int | None, bool]
"""One step of :func:`chain`: (tensor, local producer or None, its undefined read or None, the tensor repeats)."""


def chain(f: ScopeFacts, undefined: Any, name_t: int) -> tuple[list[Step], str]:
    """Follow undefined tensors back through their first writer's first undefined read."""
    steps: list[Step] = []
    seen: set[int] = set()
    cur = name_t
    writers: dict[int, int] = {}
    for o, _, t in f.writes():
        writers.setdefault(t, o - f.op_base)
    while cur not in seen:
        seen.add(cur)
        p = writers.get(cur)
        if p is None:
            steps.append((cur, None, None, False))
            return steps, "no producer"
        missing = next((t for _, _, t in f.reads_of(p) if undefined(t)), None)
        steps.append((cur, p, missing, False))
        if missing is None:
            return steps, "inconsistent model"
        cur = missing
    steps.append((cur, None, None, True))
    return steps, "cycle"


def step_record(f: ScopeFacts, step: Step) -> dict[str, Any]:
    """A step of :func:`chain` as the witness lists it (only the listed steps are worded: a chain may be long)."""
    cur, p, missing, repeats = step
    if p is None:
        return {"tensor": f.name(cur), "producer": None, **({"repeats": True} if repeats else {})}
    prod = {"index": p, "operation": f.graph.operations[p].label}
    return {"tensor": f.name(cur), "producer": prod, "missing_input": None if missing is None else f.name(missing)}
