"""GRAPH-ACYCLIC as SMT: proofs of acyclicity and the shortest-cycle witness, in both modes."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from sonnx.base.verdict import Status
from sonnx.base.witness import LIMIT
from sonnx.model.graph import Model, Operation
from sonnx.smt import cycles
from sonnx.smt.fact_index import index_of
from sonnx.smt.facts import model_facts
from tests.common.cycle_reference import reference_cycle
from tests.common.smtkit import MODES, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-ACYCLIC")


@pytest.mark.parametrize("mode", MODES)
def test_acyclic_proved_for_an_unsorted_dag(mode: str) -> None:
    m = model(g(["x"], ["z"], [op("Relu", ("y",), ("z",)), op("Neg", ("x",), ("y",))]))
    v = smt(m, mode)["GRAPH-ACYCLIC"]
    assert v.status is Status.PROVED and v.engine == f"smt/{mode}"


@pytest.mark.parametrize("mode", MODES)
def test_cycle_witness_is_the_shortest_cycle_not_the_whole_graph(mode: str) -> None:
    # a long cycle a0 -> a1 -> ... -> a9 -> a0, with a chord a5 -> a3 making a cycle of 3
    ops = [op("Add", (f"t{(i - 1) % 10}", "x"), (f"t{i}",), f"a{i}") for i in range(10)]
    ops[3] = op("Add", ("t2", "t5"), ("t3",), "a3")
    ops[0] = op("Add", ("t9", "x"), ("t0",), "a0")
    m = model(g(["x"], ["t9"], ops))
    v = smt(m, mode)["GRAPH-ACYCLIC"]
    assert v.status is Status.VIOLATED and v.witness is not None
    data = v.witness.data
    assert data["length"] == 3 and data["mode"] == mode
    assert sorted(s["operation"] for s in data["cycle"]) == ["Add:a3", "Add:a4", "Add:a5"]
    # each step's tensor is an output of that step's operation read by the next one
    steps = data["cycle"]
    for a, b in zip(steps, steps[1:] + steps[:1], strict=True):
        assert a["tensor"] in ops[a["index"]].output_mapping
        assert a["tensor"] in ops[b["index"]].input_mapping


@pytest.mark.parametrize("mode", MODES)
def test_a_cycle_fed_by_operations_that_can_be_ranked(mode: str) -> None:
    """Kahn's sort first ranks the operations before the cycle (here Relu, then Abs); the witness is the cycle
    after them. (In a graph that is all cycle the sort ranks nothing, and its loop body never runs.)"""
    ops = [
        op("Relu", ("x",), ("a",), "r"),
        op("Abs", ("a",), ("b",), "abs"),
        op("Add", ("b", "q"), ("p",), "p"),
        op("Neg", ("p",), ("q",), "n"),
    ]
    v = smt(model(g(["x"], ["q"], ops)), mode)["GRAPH-ACYCLIC"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert sorted(s["operation"] for s in v.witness.data["cycle"]) == ["Add:p", "Neg:n"]


def test_shortest_cycle_among_edges_or_none() -> None:
    """The partition verifier's cycle search over ``(a, b, tensor)`` edges: a shortest cycle, or None when
    the edges (an unsat core the solver gave) hold none, which the verifier reports as a tool defect."""
    assert cycles.shortest_cycle([(0, 1, "t"), (1, 2, "u"), (0, 2, "v")]) is None
    long_and_short = [(0, 1, "a"), (1, 2, "b"), (2, 0, "c"), (1, 3, "d"), (3, 1, "e")]
    assert cycles.shortest_cycle(long_and_short) == [(1, 3, "d"), (3, 1, "e")]


def test_self_loop_is_a_cycle_of_one() -> None:
    m = model(g(["x"], ["y"], [op("Add", ("x", "y"), ("y",), "self")]))
    v = smt(m)["GRAPH-ACYCLIC"]
    assert v.status is Status.VIOLATED and v.witness is not None and v.witness.data["length"] == 1


def test_a_self_loop_found_after_a_longer_cycle_is_the_witness() -> None:
    """The search for the shortest cycle stops early only at a cycle of one operation (none is shorter): a
    cycle of two met first does not end it while another start can still give a self-loop."""
    ops = [op("Add", ("x", "q"), ("p",), "p"), op("Neg", ("p",), ("q",), "q"), op("Relu", ("s",), ("s",), "self")]
    v = smt(model(g(["x"], ["q", "s"], ops)))["GRAPH-ACYCLIC"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["length"] == 1 and [s["operation"] for s in v.witness.data["cycle"]] == ["Relu:self"]


@pytest.mark.parametrize("long", [cycles.STARTS - 1, cycles.STARTS])
def test_the_cycle_witness_searches_from_the_first_unranked_operations(long: int) -> None:
    """GRAPH-ACYCLIC's SMT witness is a shortest cycle through one of the first ``STARTS`` operations Kahn's
    sort cannot rank: a cycle of two listed after a long cycle is shown only when it starts within them."""
    ops = [op("Neg", (f"t{(i - 1) % long}",), (f"t{i}",), f"l{i}") for i in range(long)]
    ops += [op("Add", ("x", "q"), ("p",), "p"), op("Neg", ("p",), ("q",), "q"), op("Relu", ("t0",), ("y",), "o")]
    v = smt(model(g(["x"], ["y"], ops)))["GRAPH-ACYCLIC"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["length"] == (2 if long < cycles.STARTS else long)


def _random_cyclic(seed: int) -> Model:
    """Operations reading random tensors, some written later (cycles), some twice by one reader, with tails.

    Small seeds give circles only (each operation reads the previous one's output, around one or more rings,
    with chains hanging off and feeding in), larger ones random reads: both branches of the search.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 90))
    ops: list[Operation] = []
    if seed % 2:
        rings = sorted(set(rng.integers(1, n, size=int(rng.integers(0, 3))).tolist()) | {0, n})
        for lo, hi in pairwise(rings):
            for i in range(lo, hi):
                prev = hi - 1 if i == lo else i - 1
                ops.append(op("Neg", (f"t{prev}",), (f"t{i}",), f"c{i}"))
        for k in range(int(rng.integers(0, 4))):  # a chain fed by a ring, feeding nothing
            ops.append(op("Relu", (f"t{int(rng.integers(0, n))}",), (f"u{k}",), f"u{k}"))
        if rng.random() < 0.4:  # a bridge from one ring into another: an operation of that ring reads it too
            src, dst = (int(x) for x in rng.integers(0, n, size=2))
            ops.append(op("Relu", (f"t{src}",), ("bridge",), "bridge"))
            at = next(k for k, o in enumerate(ops) if o.output_mapping == (f"t{dst}",))
            ops[at] = op("Add", (*ops[at].input_mapping, "bridge"), ops[at].output_mapping, ops[at].name)
        rng.shuffle(ops)  # type: ignore[arg-type]
    else:
        for i in range(n):
            reads = tuple(f"t{int(rng.integers(0, n))}" if rng.random() < 0.6 else "x" for _ in range(2))
            ops.append(op("Add", reads, (f"t{i}",), f"a{i}"))
    return model(g(["x"], [ops[-1].output_mapping[0]], ops))


@pytest.mark.parametrize("seed", range(120))
def test_the_witness_search_finds_what_plain_searches_over_the_unranked_part_find(seed: int) -> None:
    """The core and the walk around circles change where the search looks, never the cycle it finds."""
    m = _random_cyclic(seed)
    for f in model_facts(m):
        ix = index_of(f)
        assert cycles.cycle(f, ix) == reference_cycle(f, ix)


def test_the_core_keeps_the_cycles_and_the_paths_between_them_only() -> None:
    """Two rings, a bridge from the first into the second, a tail out of the second: the tail is peeled off."""
    ring_a = [op("Neg", ("a1",), ("a0",), "a0"), op("Add", ("x", "a0"), ("a1",), "a1")]
    ring_b = [op("Neg", ("b1",), ("b0",), "b0"), op("Add", ("b0", "br"), ("b1",), "b1")]
    rest = [op("Relu", ("a0",), ("br",), "br"), op("Relu", ("b0",), ("tail",), "tail"), op("Abs", ("tail",), ("y",))]
    m = model(g(["x"], ["y"], ring_a + ring_b + rest))
    f = model_facts(m)[0]
    ix = index_of(f)
    left = np.arange(f.n)  # nothing can be ranked: every operation depends on ring a
    a, b, _, _ = cycles.core(f, ix, left)
    names = [o.name for o in f.graph.operations]
    edges = sorted((names[i], names[j]) for i, j in zip(a.tolist(), b.tolist(), strict=True))
    assert edges == [("a0", "a1"), ("a0", "br"), ("a1", "a0"), ("b0", "b1"), ("b1", "b0"), ("br", "b1")]


def test_a_cycle_longer_than_a_witness_list_is_counted_whole() -> None:
    """The witness lists the first LIMIT operations of a long cycle; its length and summary count all of them."""
    n = LIMIT + 50
    ops = [op("Neg", (f"t{(i - 1) % n}",), (f"t{i}",), f"l{i}") for i in range(n)]
    ops.append(op("Relu", ("t0",), ("y",), "o"))
    v = smt(model(g(["x"], ["y"], ops)), "certificate")["GRAPH-ACYCLIC"]
    assert v.status is Status.VIOLATED and v.witness is not None
    data = v.witness.data
    assert data["length"] == n and len(data["cycle"]) == LIMIT
    assert [s["operation"] for s in data["cycle"][:2]] == ["Neg:l0", "Neg:l1"]
    assert v.witness.summary.endswith(f"(and {n - 5} more))"), v.witness.summary
