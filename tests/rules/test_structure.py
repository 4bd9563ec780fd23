"""The shared analyses of sonnx.model.index and sonnx.model.structure, and the witness helpers, against plain
reimplementations."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sonnx.base import witness as W
from sonnx.model import index as X
from sonnx.model import propagate as P
from sonnx.model import structure as S
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import run_rules
from sonnx.rules.base import CheckContext
from tests.common.rulekit import model, seed_example


def nested_model() -> CheckContext:
    inner = make_graph("inner", [], ["i"], [op("Relu", ["x"], ["i"])])
    other = make_graph("other", [], ["o"], [op("Relu", ["x"], ["o"])])
    loop_body = make_graph(
        "body", ["k", "c"], ["c"], [op("If", ["c"], ["u"], name="deep", then_branch=inner, else_branch=other)]
    )
    ops = [
        op("Loop", ["", "c"], ["l"], name="L", body=loop_body),
        op("Scan", ["x"], ["s"], name="S", body=make_graph("sb", ["a"], ["b"], [op("Neg", ["a"], ["b"])])),
    ]
    return CheckContext(model(make_graph("main", ["c", "x"], ["l", "s"], ops)))


def test_scopes_follow_graph_nested() -> None:
    ctx = nested_model()
    mine = [(s.path, s.graph) for s in S.scopes(ctx)]
    theirs = list(ctx.graphs())
    assert [p for p, _ in mine] == [p for p, _ in theirs]
    assert all(a is b for (_, a), (_, b) in zip(mine, theirs, strict=True))
    parents = [s.parent for s in S.scopes(ctx)]
    assert parents == [-1, 0, 1, 1, 0]


def test_outer_definers_point_at_the_nearest_scope() -> None:
    ctx = nested_model()
    outer = S.outer_definers(ctx)
    assert outer[0] == {}
    assert outer[2] == {"x": 0}  # inner reads main's x
    assert outer[1] == {"c": 0, "x": 0}  # the loop body input c shadows main's c; x is captured


def test_index_codes() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Add", ["x", "w"], ["a"]), op("Mul", ["a", "", "ghost"], ["y"])], None)
    from tests.common.rulekit import init, tensors

    g = make_graph("g", ["x"], ["y"], g.operations, tensors(init("w")))
    ix = X.index(CheckContext(model(g)), g)
    assert ix.code.tolist() == [X.GRAPH_INPUT, X.INITIALIZED, 0, X.EMPTY, X.NO_PRODUCER]
    assert ix.names_of(np.arange(5)) == ["x", "w", "a", "", "ghost"]
    assert (ix.e_src.tolist(), ix.e_dst.tolist()) == ([0], [1])


edges_st = st.integers(2, 30).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
)


def csr(n: int, edges: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    src = np.array([a for a, _ in edges], np.intp)
    dst = np.array([b for _, b in edges], np.intp)
    order = np.argsort(src, kind="stable")
    ptr = np.zeros(n + 1, np.intp)
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    return ptr, dst[order]


@given(edges_st, st.sampled_from([1, 2, 64]))
def test_property_peel_and_reach_agree_with_networkx(case: tuple[int, list[tuple[int, int]]], batch: int) -> None:
    n, edges = case
    old = P._BATCH
    P._BATCH = batch  # exercise both the NumPy and the loop path
    try:
        ptr, vals = csr(n, edges)
        indeg = np.bincount(np.array([b for _, b in edges], np.intp), minlength=n)
        done = P.peel(n, ptr, vals, indeg)
        dg: nx.MultiDiGraph[int] = nx.MultiDiGraph()
        dg.add_nodes_from(range(n))
        dg.add_edges_from(edges)
        on_cycle = {v for c in nx.simple_cycles(nx.DiGraph(dg)) for v in c}
        after = set(on_cycle)
        for v in on_cycle:
            after |= nx.descendants(dg, v)
        assert {v for v in range(n) if not done[v]} == after
        start = np.array([0, n - 1], np.intp)
        seen = P.reach(n, ptr, vals, start)
        expected = {0, n - 1} | nx.descendants(dg, 0) | nx.descendants(dg, n - 1)
        assert set(np.flatnonzero(seen).tolist()) == expected
    finally:
        P._BATCH = old


@given(st.lists(st.integers(-(2**40), 2**40), max_size=40))
def test_property_sorted_distinct_is_numpys_unique(values: list[int]) -> None:
    got = P.sorted_distinct(np.array(values, np.intp))
    expected = np.unique(np.array(values, np.intp))
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


def test_brief_and_offenders() -> None:
    assert W.brief(["a", "b"]) == "a, b"
    assert W.brief(["a", "b", "c"], 2) == "a, b (and 1 more)"
    assert W.brief(["a"], 5, total=10) == "a (and 9 more)"
    o = W.Offenders()
    o.add(150, ({"k": i} for i in range(150)))
    o.add(3, ({"k": i} for i in range(3)))
    assert o.count == 153 and len(o.listed) == W.LIMIT


names_st = st.sampled_from(["", "a", "b", "c", "d", "x"])
ops_st = st.lists(st.tuples(st.lists(names_st, max_size=3), st.lists(names_st, min_size=1, max_size=3)), max_size=8)


@given(ops_st, st.lists(names_st, max_size=6))
def test_property_output_producers_are_the_operations_assigning_an_output(
    ops: list[tuple[list[str], list[str]]], outputs: list[str]
) -> None:
    """Single and multiple assignment, omitted outputs, outputs nothing assigns, graph outputs named twice."""
    g = make_graph("g", ["x"], outputs, [op("Relu", ins, outs) for ins, outs in ops])
    ix = X.index(CheckContext(model(g)), g)
    wanted = {nm for nm in outputs if nm}
    expected = [j for j, (_, outs) in enumerate(ops) if wanted & set(outs)]
    assert ix.output_producers().tolist() == expected


@given(ops_st, st.lists(names_st, max_size=6), st.lists(names_st, max_size=2))
def test_property_undefined_is_what_defined_rejects(
    ops: list[tuple[list[str], list[str]]], outputs: list[str], inputs: list[str]
) -> None:
    """Both fixpoints (single assignment, and names assigned twice), graph inputs, names nothing assigns."""
    g = make_graph("g", inputs, outputs, [op("Relu", ins, outs) for ins, outs in ops])
    d = S.definedness(CheckContext(model(g)), 0)
    names = list(dict.fromkeys([*outputs, "x", "a", "zz", ""]))
    assert d.undefined(names) == [nm for nm in names if not d.defined(nm)]


def test_the_index_arrays_are_32_bit_while_the_numbers_fit() -> None:
    g = seed_example()
    ix = X.index(CheckContext(model(g)), g)
    assert ix.ids is np.int32
    for name in ("in_op", "code", "e_occ", "e_src", "e_dst"):
        assert getattr(ix, name).dtype == np.int32, name
    assert all(a.dtype == np.int32 for a in ix.succ()[1:])
    assert X.id_dtype(2**31 - 1) is np.int32
    assert X.id_dtype(2**31) is np.intp


@settings(max_examples=60)
@given(ops_st, st.lists(names_st, max_size=6), st.lists(names_st, max_size=2))
def test_property_the_graph_rules_say_the_same_with_the_wide_index(
    ops: list[tuple[list[str], list[str]]], outputs: list[str], inputs: list[str]
) -> None:
    """Cycles, names assigned twice, omitted inputs and outputs: every graph rule's verdict and witness is the
    same whether the index holds 32-bit or pointer-sized numbers."""
    g = make_graph("g", inputs, outputs, [op("Relu", ins, outs) for ins, outs in ops])
    narrow = run_rules(model(g), graph_only=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(X, "_NARROW_LIMIT", -1)
        wide = run_rules(model(g), graph_only=True)
        assert X.index(CheckContext(model(g)), g).ids is np.intp
    assert wide == narrow


def test_the_index_of_a_large_graph_gives_its_temporaries_back(monkeypatch: pytest.MonkeyPatch) -> None:
    trims: list[int] = []
    monkeypatch.setattr(X, "release_freed_heap", lambda: trims.append(1) or True)
    g = seed_example()
    monkeypatch.setattr(X, "TRIM_FROM", len(g.operations) + 1)
    X.index(CheckContext(model(g)), g)
    assert trims == []
    monkeypatch.setattr(X, "TRIM_FROM", len(g.operations))
    X.index(CheckContext(model(g)), g)
    assert trims == [1]
