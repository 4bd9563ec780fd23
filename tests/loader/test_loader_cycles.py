"""The recursive-chain finder against networkx, and the loader's error boundary."""

from __future__ import annotations

import gc
from collections.abc import Callable

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import helper

from sonnx.base.errors import ToolError, UnsupportedModelError
from sonnx.loader import cycles, load_model
from sonnx.loader import load as load_module
from tests.common.builders import fvi, make_model

Save = Callable[..., str]

edges_strategy = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=18)


def _normalise(cycle: list[str]) -> tuple[str, ...]:
    """networkx gives a cycle as a node list in any rotation; rotate to its smallest member and close it."""
    k = cycle.index(min(cycle))
    rotated = cycle[k:] + cycle[:k]
    return (*rotated, rotated[0])


@given(edges_strategy)
def test_cycles_match_networkx(edges: list[tuple[int, int]]) -> None:
    names = {n: f"d.f{n}" for n in range(7)}
    adjacency: dict[int, set[int]] = {n: set() for n in names}
    for a, b in edges:
        adjacency[a].add(b)
    found, on_cycle = cycles.elementary_cycles(names, adjacency, "m.onnx")
    g = nx.DiGraph()
    g.add_nodes_from(names.values())
    g.add_edges_from((names[a], names[b]) for a, b in edges)
    expected = sorted(_normalise(c) for c in nx.simple_cycles(g))
    assert list(found) == expected
    assert {names[n] for n in on_cycle} == {n for c in expected for n in c}


def test_strongly_connected_components() -> None:
    comp = cycles.strongly_connected([1, 2, 3, 4], {1: [2], 2: [1, 3], 3: [4], 4: [3]})
    assert comp[1] == comp[2] and comp[3] == comp[4] and comp[1] != comp[3]


def test_too_many_cycles_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    names = {n: f"f{n}" for n in range(6)}
    complete = {a: {b for b in names} for a in names}
    monkeypatch.setattr(cycles, "MAX_CYCLES", 50)
    with pytest.raises(UnsupportedModelError, match="more than 50 recursive"):
        cycles.elementary_cycles(names, complete, "m.onnx")


def test_internal_failure_becomes_a_tool_error(save: Save, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save(make_model([helper.make_node("Relu", ["x"], ["y"])], [fvi("x")], [fvi("y")]))

    def broken(*args: object, **kwargs: object) -> None:
        raise TypeError("boom\nsecond line")

    monkeypatch.setattr(load_module, "_header", broken)
    with pytest.raises(ToolError, match="internal error while loading: TypeError: boom second line") as info:
        load_model(path)
    assert "\n" not in str(info.value)


def test_garbage_collection_is_restored(save: Save) -> None:
    path = save(make_model([helper.make_node("Relu", ["x"], ["y"])], [fvi("x")], [fvi("y")]))
    assert gc.isenabled()
    load_model(path)
    assert gc.isenabled()
    gc.disable()
    try:
        load_model(path)
        assert not gc.isenabled()
    finally:
        gc.enable()
