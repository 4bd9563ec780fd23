"""Helpers for the partition tests: random models and capabilities, corruptions, an independent oracle.

The oracle recomputes boundaries and the fused graph with plain sets and
networkx, without :mod:`sonnx.partition`, so the tests compare the
partitioner and the checker with a straightforward implementation.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import networkx as nx
import numpy as np
from hypothesis import strategies as st

from sonnx.model.graph import InitialValue, Model, Operation, Tensor, TensorType, make_graph
from sonnx.partition import Partition, Provider, Subgraph

UNARY = ("Relu", "Neg", "Abs", "Identity")
BINARY = ("Add", "Mul", "Sub")
FLOAT23 = TensorType("tensor", 1, (2, 3))


def const(v: Any) -> InitialValue:
    arr = np.asarray(v, dtype=np.float32)
    return InitialValue(1, tuple(arr.shape), False, None, lambda: arr)


@st.composite
def models(draw: st.DrawFn, max_nodes: int = 12) -> Model:
    """A chain backbone with random skip connections: node k reads node k-1 (so no node is dead)."""
    n = draw(st.integers(3, max_nodes))
    names = draw(st.lists(st.text("abcdefgh", min_size=1, max_size=3), min_size=n, max_size=n, unique=True))
    outs = [f"t_{s}" for s in names]
    use_const = draw(st.booleans())
    pool = ["x0", "x1"] + (["c0"] if use_const else [])
    ops: list[Operation] = []
    for k in range(n):
        prev = outs[k - 1] if k else "x0"
        avail = pool + outs[:k]
        if draw(st.booleans()):
            other = draw(st.sampled_from(avail))
            op = draw(st.sampled_from(BINARY))
            ops.append(Operation(op, "", "", (prev, other), (outs[k],)))
        else:
            ops.append(Operation(draw(st.sampled_from(UNARY)), "", "", (prev,), (outs[k],)))
    used = {t for op in ops for t in op.input_mapping}
    inputs = [x for x in ("x0", "x1") if x in used]
    extra = draw(st.lists(st.sampled_from(outs[:-1]), max_size=2, unique=True)) if n > 1 else []
    outputs = [outs[-1], *extra]
    tensors: dict[str, Tensor] = {x: Tensor(x, FLOAT23) for x in inputs + outputs}
    if "c0" in used:
        tensors["c0"] = Tensor("c0", FLOAT23, const(np.linspace(-1, 1, 6).reshape(2, 3)))
    perm = draw(st.permutations(range(n)))
    g = make_graph("g", inputs, outputs, [ops[j] for j in perm], tensors)
    return Model(g, 8, {"": 17})


@st.composite
def providers(draw: st.DrawFn) -> list[Provider]:
    """One to three providers, each supporting a random non-empty subset of the operators used."""
    count = draw(st.integers(1, 3))
    ops = sorted(UNARY + BINARY)
    out = []
    for k in range(count):
        chosen = draw(st.lists(st.sampled_from(ops), min_size=1, max_size=len(ops), unique=True))
        out.append(Provider(f"P{k}", frozenset(("", o) for o in chosen)))
    return out


def with_ops(model: Model, order: list[int]) -> Model:
    """The same model with its operations in another file order."""
    g = model.graph
    return replace(
        model, graph=make_graph(g.name, g.inputs, g.outputs, [g.operations[j] for j in order], dict(g.tensors))
    )


# ---------------------------------------------------------------- oracle


def producers(model: Model) -> dict[str, int]:
    return {o: j for j, op in enumerate(model.graph.operations) for o in op.output_mapping if o}


def key_of(model: Model) -> dict[str, int]:
    return {next(o for o in op.output_mapping if o): j for j, op in enumerate(model.graph.operations)}


def oracle_boundary(model: Model, keys: list[str]) -> tuple[set[str], set[str]]:
    """(true inputs incl. constant initializers, true outputs) of the nodes named ``keys``."""
    ops = model.graph.operations
    idx = key_of(model)
    inside = {idx[k] for k in keys}
    made = {o for j in inside for o in ops[j].output_mapping if o}
    ins = {t for j in inside for t in ops[j].input_mapping if t and t not in made}
    outside_reads = {t for j, op in enumerate(ops) if j not in inside for t in op.input_mapping}
    outs = {t for t in made if t in outside_reads or t in model.graph.outputs}
    return ins, outs


def fused_graph(model: Model, partition: Partition) -> nx.DiGraph:
    """The fused graph: one vertex per subgraph id, an edge per tensor passed between two subgraphs."""
    idx = key_of(model)
    part = {idx[k]: s.id for s in partition.subgraphs for k in s.nodes}
    prod = producers(model)
    fg = nx.DiGraph()
    fg.add_nodes_from(s.id for s in partition.subgraphs)
    for j, op in enumerate(model.graph.operations):
        for t in op.input_mapping:
            if t in prod and part[prod[t]] != part[j]:
                fg.add_edge(part[prod[t]], part[j])
    return fg


def exact(model: Model, sub: Subgraph, keys: list[str], sid: str | None = None) -> Subgraph:
    """A subgraph over ``keys`` with its boundary recomputed by the oracle (for building corruptions)."""
    ins, outs = oracle_boundary(model, keys)
    consts = {n for n in ins if n in model.graph.initialized and n not in model.graph.inputs}
    return Subgraph(
        sid or sub.id, tuple(sorted(ins - consts)), tuple(sorted(outs)), tuple(keys), tuple(sorted(consts)), sub.device
    )


def singletons(model: Model) -> Partition:
    """Every operation its own subgraph (a valid partition, as a default-only runtime would make)."""
    subs = []
    for k, j in enumerate(sorted(key_of(model).items())):
        key = j[0]
        subs.append(exact(model, Subgraph(f"n{k}", (), (), (), (), "CPU"), [key]))
    return Partition(tuple(subs))
