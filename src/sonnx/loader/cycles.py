"""Recursion among model-local functions: strongly connected components and elementary cycles.

ONNX function calls must be expandable by inlining, which forbids direct and
indirect recursion (SONNX graph spec, "Functions nodes"). The loader builds
the call graph among local functions and lists every elementary cycle, so a
rule can report each recursive chain. Everything here is iterative.

Listing elementary cycles can take exponential time on adversarial call
graphs; the search is bounded, and a model whose call graph exceeds the bound
is refused (:class:`~sonnx.base.errors.UnsupportedModelError`) rather than
reported with a partial list.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import TypeVar

from ..base.errors import UnsupportedModelError

K = TypeVar("K", bound=Hashable)

MAX_CYCLES = 10_000
"""Most recursive chains a model may have; more is refused as unsupported."""
MAX_STEPS = 2_000_000
"""Most search steps spent listing chains; more is refused as unsupported."""


def strongly_connected(nodes: Sequence[K], edges: Mapping[K, Sequence[K]]) -> dict[K, int]:
    """Component number of every node (Tarjan's algorithm with an explicit stack)."""
    index: dict[K, int] = {}
    low: dict[K, int] = {}
    comp: dict[K, int] = {}
    on_stack: set[K] = set()
    stack: list[K] = []
    counter = 0
    components = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[K, Iterator[K]]] = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = components
                    if w == v:
                        break
                components += 1
    return comp


def elementary_cycles(
    names: dict[K, str], edges: dict[K, set[K]], path: str
) -> tuple[tuple[tuple[str, ...], ...], set[K]]:
    """Every elementary cycle of the call graph, and the set of nodes on some cycle.

    A cycle is given as the chain of qualified names that starts and ends with
    its smallest member (``("local.f", "local.g", "local.f")``; a function
    calling itself gives ``("local.f", "local.f")``). Each cycle appears once;
    the list is sorted. ``path`` names the model file in messages.
    """
    order = sorted(names, key=lambda k: (names[k], repr(k)))
    rank = {k: i for i, k in enumerate(order)}
    succ = {k: sorted(edges.get(k, ()), key=rank.__getitem__) for k in order}
    comp = strongly_connected(order, succ)
    cycles: list[tuple[str, ...]] = []
    on_cycle: set[K] = set()
    steps = 0
    for start in order:
        r = rank[start]
        c = comp[start]
        chain: list[K] = [start]
        on_chain: set[K] = {start}
        iters: list[Iterator[K]] = [iter(succ[start])]
        while iters:
            steps += 1
            if steps > MAX_STEPS:
                raise UnsupportedModelError(
                    f"{path}: the calls among model-local functions are too entangled to list their"
                    f" recursive chains (more than {MAX_STEPS} search steps)"
                )
            nxt = next(iters[-1], None)
            if nxt is None:
                iters.pop()
                on_chain.discard(chain.pop())
                continue
            if nxt == start:
                cycles.append((*(names[k] for k in chain), names[start]))
                on_cycle.update(chain)
                if len(cycles) > MAX_CYCLES:
                    raise UnsupportedModelError(
                        f"{path}: model-local functions form more than {MAX_CYCLES} recursive call chains"
                    )
                continue
            # Only chains whose smallest member is 'start' are listed from here,
            # and only members of start's component can lead back to it.
            if rank[nxt] < r or comp[nxt] != c or nxt in on_chain:
                continue
            chain.append(nxt)
            on_chain.add(nxt)
            iters.append(iter(succ[nxt]))
    return tuple(sorted(cycles)), on_cycle
