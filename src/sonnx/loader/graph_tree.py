"""Walks over a graph and the graphs nested in it, each shared graph visited once (no recursion).

The inliner (:mod:`.inline`) rebuilds graphs bottom-up; these helpers give
it the post-order, the operations that hold nested graphs, and the names in
use. Graphs shared between several attributes are entered once, so the walk
is linear in the number of distinct graphs.
"""

from __future__ import annotations

from ..model.graph import Attribute, Graph, names_used


def tree(root: Graph) -> list[tuple[Graph, list[int]]]:
    """``root`` and the graphs nested in it, each after all graphs nested in it (shared ones once),
    with the indices of the operations that hold nested graphs (only those need looking into)."""
    out: list[tuple[Graph, list[int]]] = []
    entered: set[int] = set()
    stack: list[tuple[Graph, list[int] | None]] = [(root, None)]
    while stack:
        g, holders = stack.pop()
        if holders is not None:
            out.append((g, holders))
            continue
        if id(g) in entered:
            continue
        entered.add(id(g))
        ops = g.operations
        holders = [i for i, op in enumerate(ops) if op[5] and ops[i].subgraphs]
        stack.append((g, holders))
        for i in holders:
            for _, sub in ops[i].subgraphs:
                if id(sub) not in entered:
                    stack.append((sub, None))
    return out


def post_order(root: Graph) -> list[Graph]:
    """``root`` and the graphs nested in it, each after all graphs nested in it (shared ones once)."""
    return [g for g, _ in tree(root)]


def names_in(root: Graph) -> set[str]:
    """Every tensor name used anywhere in ``root`` or below (each shared graph read once)."""
    return names_used(post_order(root))


def with_new_subgraphs(attrs: tuple[Attribute, ...], new: dict[int, Graph]) -> tuple[Attribute, ...]:
    """``attrs`` with nested graphs replaced by their rebuilt versions (the same tuple if none changed)."""
    out: list[Attribute] = []
    changed = False
    for a in attrs:
        if a.type == "GRAPH" and isinstance(a.value, Graph):
            g = new.get(id(a.value), a.value)
            if g is not a.value:
                a, changed = Attribute(a.name, a.type, g), True
        elif a.type == "GRAPHS":
            gs = tuple(new.get(id(x), x) for x in a.value)
            if any(x is not y for x, y in zip(gs, a.value, strict=True)):
                a, changed = Attribute(a.name, a.type, gs), True
        out.append(a)
    return tuple(out) if changed else attrs
