"""The main graph seen as the partitioner and the checker see it.

* A node is named by its first output, as seed 003 does (the first
  non-empty entry of its output list, since an omitted optional output is
  written as an empty name). A model whose nodes cannot all be named that way
  (an operation without outputs, two operations with the same first output)
  cannot carry a partition in this format and is refused (exit 2).
* An edge ``a -> b`` labelled with tensor ``t`` means operation ``b``
  requires ``t`` (as an input, or as a name one of its nested graphs
  captures) and operation ``a`` produces it.
* The *true boundary* of a set of operations follows from the edges alone:
  its inputs are the names its members require and no member produces; its
  outputs are the names a member produces that a non-member requires or that
  are graph outputs.
* The canonical topological order is Kahn's algorithm with the ready nodes
  taken smallest name first: it depends on the graph's structure and names,
  never on the order of the nodes in the file.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from ..base.errors import InputError
from ..model.graph import Graph, Model, Operation

Edge = tuple[int, int, str]


class PartitionModelError(InputError):
    """The model cannot carry a partition in seed 003's format (nodes cannot be named uniquely)."""


def node_key(op: Operation) -> str:
    """The seed-003 name of an operation: its first non-empty output, or "" when it has none."""
    return next((o for o in op.output_mapping if o), "")


class NodeIndex:
    """Names, producers, consumers and dependency edges of a model's main graph."""

    def __init__(self, model: Model) -> None:
        g: Graph = model.graph
        self.model = model
        self.graph = g
        ops = g.operations
        self.keys: list[str] = []
        self.by_key: dict[str, int] = {}
        self.producer: dict[str, int] = {}
        for j, op in enumerate(ops):
            key = node_key(op)
            if not key:
                raise PartitionModelError(f"operation {j} ({op.label}) has no output, so seed 003 cannot name it")
            if key in self.by_key:
                raise PartitionModelError(
                    f"two operations have the first output {key!r}, so seed 003 cannot tell them apart"
                )
            self.keys.append(key)
            self.by_key[key] = j
            for o in op.output_mapping:
                if not o:
                    continue
                if o in self.producer:
                    raise PartitionModelError(
                        f"tensor {o!r} is produced twice (GRAPH-C1): the boundary of a subgraph is not defined"
                    )
                self.producer[o] = j
        self.required: list[tuple[str, ...]] = [op.required_inputs for op in ops]
        self.edges: list[Edge] = []
        self.succ: list[set[int]] = [set() for _ in ops]
        self.pred: list[set[int]] = [set() for _ in ops]
        self.consumers: dict[str, list[int]] = {}
        for b, names in enumerate(self.required):
            for t in names:
                self.consumers.setdefault(t, []).append(b)
                a = self.producer.get(t)
                if a is not None:
                    self.edges.append((a, b, t))
                    self.succ[a].add(b)
                    self.pred[b].add(a)
        self.graph_outputs = frozenset(g.outputs)
        graph_inputs = set(g.inputs)
        self.constant_initializers = frozenset(n for n in g.initialized if n not in graph_inputs)

    def __len__(self) -> int:
        return len(self.keys)

    def canonical_order(self) -> list[int]:
        """Operation indices in canonical topological order; a cyclic graph is refused."""
        nodes = range(len(self.keys))
        order = least_key_order(nodes, self.keys.__getitem__, {j: len(self.pred[j]) for j in nodes}, self.succ)
        if len(order) != len(self.keys):
            raise PartitionModelError("the main graph has a cycle (GRAPH-ACYCLIC): it has no topological order")
        return order

    def true_inputs(self, members: Collection[int]) -> list[str]:
        """Names required by a member and produced by none, in member order then input position."""
        inside = set(members)
        seen: dict[str, None] = {}
        for j in members:
            for t in self.required[j]:
                if t not in seen and self.producer.get(t, -1) not in inside:
                    seen[t] = None
        return list(seen)

    def true_outputs(self, members: Collection[int]) -> list[str]:
        """Names produced by a member and required outside or listed as graph outputs, in member order."""
        inside = set(members)
        out: list[str] = []
        for j in members:
            for o in self.graph.operations[j].output_mapping:
                if not o or o in out:
                    continue
                if o in self.graph_outputs or any(c not in inside for c in self.consumers.get(o, ())):
                    out.append(o)
        return out

    def split_inputs(self, names: list[str]) -> tuple[list[str], list[str]]:
        """(inputs, constant initializers): seed 003 lists the constant initializers apart."""
        consts = [n for n in names if n in self.constant_initializers]
        return [n for n in names if n not in self.constant_initializers], consts


def least_key_order(
    nodes: Iterable[int],
    key: Callable[[int], Any],
    indegree: dict[int, int],
    succ: Mapping[int, Iterable[int]] | Sequence[Iterable[int]],
) -> list[int]:
    """Kahn's topological order that always takes the ready node of least ``(key, node)``.

    ``indegree`` (changed in place) counts each node's predecessors. A node on
    or behind a cycle is never ready, so the result is shorter than ``nodes``
    exactly when the graph has a cycle; the caller decides what that means.
    """
    ready = [(key(j), j) for j in nodes if indegree[j] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, a = heapq.heappop(ready)
        order.append(a)
        for b in succ[a]:
            indegree[b] -= 1
            if indegree[b] == 0:
                heapq.heappush(ready, (key(b), b))
    return order
