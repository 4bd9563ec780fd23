"""Producing a partition from provider capabilities, the way seed 004 describes.

Providers are taken in priority order; each claims maximal subgraphs of the
nodes it supports that no earlier provider took; a default provider, which
supports every operator, comes last and takes the rest, so every node is
covered.

The growing step keeps one invariant: the *fused graph* (every subgraph
formed so far contracted to one node, every other operation a node of its
own) stays acyclic. Contracting two nodes ``X`` and ``Y`` of an acyclic graph
gives an acyclic graph exactly when no path of two or more edges leads from
``X`` to ``Y`` or from ``Y`` to ``X`` (a path that leaves the merged set and
comes back). That is the test before every merge. It is stronger than asking
each subgraph to be convex on its own: two convex subgraphs may still depend
on each other both ways, which is the cycle between partitions that fused
execution providers run into.

For one provider:

1. the nodes are visited in canonical topological order (Kahn, smallest
   name first; see :mod:`.structure`);
2. a supported, unclaimed node starts a new subgraph, which then absorbs its
   supported, unclaimed neighbours (producers and consumers), nearest in the
   canonical order first, as long as the merge test allows, until a full
   pass adds nothing (a neighbour refused early may become acceptable once
   the nodes of the offending path have joined);
3. finally two subgraphs of the provider that touch are merged whenever the
   test allows, until nothing changes.

So a subgraph is connected, and maximal: no supported neighbour and no
touching subgraph of the same provider can join it without a cycle. Every
choice is made by canonical position or name, so the result depends on the
graph's structure and names only, never on the node order in the file.
The merge test searches only the part of the fused graph placed between the
two nodes in a topological order that is maintained across merges (see
:class:`_Fusion`), so growing stays close to linear on graphs whose edges are
local (each node's inputs produced shortly before it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..base.errors import ToolError, UsageError
from ..model.graph import Model
from .schema import Partition, Subgraph
from .structure import NodeIndex, least_key_order

DEFAULT_DEVICE = "CPU"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Provider:
    """An execution provider: a device name and the (domain, operator) pairs it can run.

    ``operators`` None means every operator (the default provider). The
    default domain is written ``""``.
    """

    name: str
    operators: frozenset[tuple[str, str]] | None

    def supports(self, domain: str, operator: str) -> bool:
        return self.operators is None or (domain, operator) in self.operators


def check_providers(providers: Sequence[Provider]) -> None:
    """Device names are identifiers (they become operator names) and distinct."""
    seen: set[str] = set()
    for p in providers:
        if not _NAME.match(p.name):
            raise UsageError(f"provider name {p.name!r}: use letters, digits and '_' (it names fused operators)")
        if p.name in seen:
            raise UsageError(f"provider {p.name!r} is given twice")
        seen.add(p.name)


def _walk(
    start: int, edges: Mapping[int, Iterable[int]], inside: Callable[[int], bool], stop: int | None = None
) -> list[int] | None:
    """The nodes reached from ``start`` along ``edges`` through nodes ``inside`` admits, in the order found.

    ``start`` itself is not listed. With ``stop``, a path of two or more edges
    from ``start`` to ``stop`` makes the answer None (``stop`` is never entered;
    a direct edge to it is allowed).
    """
    seen = {start}
    stack = [start]
    found: list[int] = []
    while stack:
        u = stack.pop()
        for v in edges[u]:
            if v == stop:
                if u != start:
                    return None
            elif v not in seen and inside(v):
                seen.add(v)
                stack.append(v)
                found.append(v)
    return found


class _Fusion:
    """The fused graph under construction: groups of operations, their edges, and the merge test.

    Each node of the fused graph (a group, or an unclaimed operation) has an
    id (the index of its first operation) and a place ``ord`` in a
    topological order of the fused graph, kept valid across merges the way
    Pearce and Kelly keep a dynamic topological order: the searches of the
    merge test only visit nodes placed between the two nodes being merged,
    and a merge only renumbers those.
    """

    def __init__(self, ix: NodeIndex, order: list[int]) -> None:
        self.ix = ix
        self.pos = {j: k for k, j in enumerate(order)}
        self.ord = dict(self.pos)
        n = len(ix)
        self.group = list(range(n))
        self.members: dict[int, list[int]] = {j: [j] for j in range(n)}
        self.succ: dict[int, set[int]] = {j: set(ix.succ[j]) for j in range(n)}
        self.pred: dict[int, set[int]] = {j: set(ix.pred[j]) for j in range(n)}
        self.claimed = [False] * n

    def _forward(self, x: int, y: int) -> list[int] | None:
        """Nodes reachable from ``x`` and placed before ``y``; None when one of them has an edge to ``y``."""
        limit = self.ord[y]
        return _walk(x, self.succ, lambda v: self.ord[v] < limit, stop=y)

    def _backward(self, y: int, x: int) -> list[int]:
        """Nodes that reach ``y`` and are placed after ``x`` (``y`` excluded)."""
        limit = self.ord[x]
        found = _walk(y, self.pred, lambda v: self.ord[v] > limit)
        assert found is not None  # no stop node: the walk never gives up
        return found


    def try_merge(self, keep: int, other: int) -> bool:
        """Contract ``other`` into ``keep`` unless that closes a cycle; True when merged.

        With ``x`` placed before ``y``, no path can lead from ``y`` to ``x``;
        the contraction is acyclic iff no path of two or more edges leads
        from ``x`` to ``y``, i.e. no node found by the forward search from
        ``x`` (bounded by ``y``'s place) has an edge to ``y``.
        """
        x, y = (keep, other) if self.ord[keep] < self.ord[other] else (other, keep)
        ahead = self._forward(x, y)
        if ahead is None:
            return False
        behind = self._backward(y, x)
        by_ord = self.ord.__getitem__
        sequence = [*sorted(behind, key=by_ord), y, x, *sorted(ahead, key=by_ord)]
        slots = sorted(by_ord(v) for v in sequence)
        for v, place in zip(sequence, slots, strict=True):
            self.ord[v] = place
        self.ord[keep] = self.ord[x]  # y and x are now adjacent: the merged node takes x's place
        del self.ord[other]
        succ = (self.succ.pop(other) | self.succ[keep]) - {keep, other}
        pred = (self.pred.pop(other) | self.pred[keep]) - {keep, other}
        for v in succ:
            self.pred[v].discard(other)
            self.pred[v].discard(keep)
            self.pred[v].add(keep)
        for v in pred:
            self.succ[v].discard(other)
            self.succ[v].discard(keep)
            self.succ[v].add(keep)
        self.succ[keep], self.pred[keep] = succ, pred
        for j in self.members[other]:
            self.group[j] = keep
        self.members[keep].extend(self.members.pop(other))
        return True

    def first_pos(self, g: int) -> int:
        return min(self.pos[j] for j in self.members[g])

    def grow(self, g: int, ok: list[bool]) -> None:
        """Absorb supported unclaimed neighbours of group ``g`` until a full pass adds nothing."""
        changed = True
        while changed:
            changed = False
            near = sorted(
                (u for u in self.succ[g] | self.pred[g] if ok[u] and not self.claimed[u]), key=self.pos.__getitem__
            )
            for u in near:
                if self.try_merge(g, u):
                    self.claimed[u] = True
                    changed = True

    def join_touching(self, groups: list[int]) -> list[int]:
        """Merge touching groups of one provider while the test allows; the surviving groups, in order."""
        alive = list(groups)
        changed = True
        while changed:
            changed = False
            for g in list(alive):
                if g not in self.members:
                    continue
                mine = set(alive)
                for h in sorted((self.succ[g] | self.pred[g]) & mine, key=self.first_pos):
                    if h in self.members and self.try_merge(g, h):
                        alive.remove(h)
                        changed = True
        return alive


def make_partition(model: Model, providers: Sequence[Provider], default: str = DEFAULT_DEVICE) -> Partition:
    """Partition ``model``'s main graph: providers in priority order, then ``default`` for the rest."""
    every = [*providers, Provider(default, None)]
    check_providers(every)
    ix = NodeIndex(model)
    order = ix.canonical_order()
    fusion = _Fusion(ix, order)
    ops = model.graph.operations
    device_of: dict[int, str] = {}
    for p in every:
        ok = [p.supports(op.domain, op.operator) for op in ops]
        groups: list[int] = []
        for j in order:
            if ok[j] and not fusion.claimed[j]:
                fusion.claimed[j] = True
                fusion.grow(j, ok)
                groups.append(j)
        for g in fusion.join_touching(groups):
            device_of[g] = p.name
    return _listing(ix, fusion, device_of, order)


def _listing(ix: NodeIndex, fusion: _Fusion, device_of: dict[int, str], order: list[int]) -> Partition:
    """The subgraphs in canonical topological order of the fused graph (Kahn, earliest first node first)."""
    first = {g: fusion.first_pos(g) for g in device_of}
    listed = least_key_order(device_of, first.__getitem__, {g: len(fusion.pred[g]) for g in device_of}, fusion.succ)
    if len(listed) != len(device_of):  # the merge test forbids this; never emit a cyclic partition
        raise ToolError("the fused graph became cyclic while partitioning (a tool defect)")
    count: dict[str, int] = {}
    out: list[Subgraph] = []
    for g in listed:
        dev = device_of[g]
        k = count.get(dev, 0)
        count[dev] = k + 1
        members = sorted(fusion.members[g], key=fusion.pos.__getitem__)
        inputs, consts = ix.split_inputs(ix.true_inputs(members))
        out.append(
            Subgraph(
                id=f"{dev}_{k}",
                inputs=tuple(inputs),
                outputs=tuple(ix.true_outputs(members)),
                nodes=tuple(ix.keys[j] for j in members),
                constant_initializers=tuple(consts),
                device=dev,
            )
        )
    return Partition(tuple(out), ix.model.source)
