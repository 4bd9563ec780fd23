"""GRAPH-ARITY as SMT: operator positions left out, told apart per operation, in both engines' words."""

from __future__ import annotations

from typing import Any

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Operation
from tests.common.smtkit import MODES, direct, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-ARITY")


def _left_out(v: object) -> list[tuple[str, list[int], list[int]]]:
    from sonnx.base.verdict import Verdict

    assert isinstance(v, Verdict) and v.witness is not None, v
    return [
        (x["operation"], [p["position"] for p in x["inputs_left_out"]], [p["position"] for p in x["outputs_left_out"]])
        for x in v.witness.data["operations"]
    ]


@pytest.mark.parametrize("mode", MODES)
def test_arity_positions_left_out(mode: str) -> None:
    ops = [
        op("MaxPool", ("x",), ("p",), "pool"),  # Indices left out
        op("Clip", ("p", "", "hi"), ("c",), "clip"),  # min written as ""
        op("Concat", ("c", "", "x"), ("y",), "cat"),  # a variadic position written empty
        op("MaxPool", ("x",), ("q",), "pool2"),  # the same facts as "pool": one instance, two operations
        op("Relu", ("x",), ("r",), "ok"),
    ]
    m = model(g(["x", "hi"], ["y", "q", "r"], ops))
    v = smt(m, mode)["GRAPH-ARITY"]
    assert v.status is Status.VIOLATED and v.witness is not None and v.witness.data["mode"] == mode
    want = [("MaxPool:pool", [], [1]), ("Clip:clip", [1], []), ("Concat:cat", [1], []), ("MaxPool:pool2", [], [1])]
    assert sorted(_left_out(v)) == sorted(want)
    d = direct(m)["GRAPH-ARITY"]
    assert sorted(_left_out(d)) == sorted(want)
    # both engines word the summary with the rule's listing: the first three shown, with their positions
    assert v.witness.summary == d.witness.summary
    assert v.witness.summary.startswith("4 operation(s) leave operator positions unbound: MaxPool:pool in g (output 1")
    assert v.witness.summary.endswith("(and 1 more)")


@pytest.mark.parametrize("mode", MODES)
def test_arity_proved_and_unknown(mode: str) -> None:
    bound = model(g(["x"], ["y", "i"], [op("MaxPool", ("x",), ("y", "i"))]))
    assert smt(bound, mode)["GRAPH-ARITY"].status is Status.PROVED
    mystery = Operation("Mystery", "com.acme", "", ("x",), ("y",))
    v = smt(model(g(["x"], ["y"], [mystery])), mode)["GRAPH-ARITY"]
    assert v.status is Status.UNKNOWN and "com.acme" in (v.reason or "")
    # the same operator in another domain, in the same graph, is looked up on its own
    twins = [Operation("Relu", "", "", ("x",), ("a",)), Operation("Relu", "com.acme", "", ("a",), ("y",))]
    v = smt(model(g(["x"], ["y"], twins)), mode)["GRAPH-ARITY"]
    assert v.status is Status.UNKNOWN and "com.acme::Relu" in (v.reason or "")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bound_first", [True, False])
def test_arity_tells_an_empty_name_from_a_bound_one_with_the_same_counts(mode: str, bound_first: bool) -> None:
    """Two Clips with three inputs each, one writing its ``min`` as "": only that one leaves a position out,
    whichever comes first (operations binding every position share an instance by their counts alone)."""
    bound, empty = op("Clip", ("x", "lo", "hi"), ("a",), "bound"), op("Clip", ("x", "", "hi"), ("b",), "empty")
    m = model(g(["x", "lo", "hi"], ["a", "b"], [bound, empty] if bound_first else [empty, bound]))
    v = smt(m, mode)["GRAPH-ARITY"]
    assert v.status is Status.VIOLATED and _left_out(v) == [("Clip:empty", [1], [])]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize(
    ("kind", "first", "second"),
    [
        ("Clip", (("x", "", "hi"), ("a",)), (("x", "lo", ""), ("b",))),  # min left out, then max
        ("MaxPool", (("x",), ("a", "")), (("x",), ("", "i"))),  # Indices left out, then Y
    ],
)
def test_arity_tells_apart_two_operations_leaving_out_different_positions(
    mode: str, flip: bool, kind: str, first: Any, second: Any
) -> None:
    """Two operations of one operator with the same entry counts, each writing a different position as "":
    neither shares the other's instance, in either order (only operations binding every position share one
    by their counts alone)."""
    a, b = op(kind, *first, name="first"), op(kind, *second, name="second")
    m = model(g(["x", "lo", "hi"], ["a", "b", "i"], [b, a] if flip else [a, b]))
    want = {
        "Clip": [(f"{kind}:first", [1], []), (f"{kind}:second", [2], [])],
        "MaxPool": [(f"{kind}:first", [], [1]), (f"{kind}:second", [], [0])],
    }[kind]
    for v in (smt(m, mode)["GRAPH-ARITY"], direct(m)["GRAPH-ARITY"]):
        assert v.status is Status.VIOLATED and sorted(_left_out(v)) == want


@pytest.mark.parametrize("mode", MODES)
def test_arity_checks_the_operations_after_one_of_unknown_schema(mode: str) -> None:
    """An operation whose schema is unknown is counted and skipped, not the end of its graph: the MaxPool
    after it still leaves ``Indices`` out, in both engines, and both unknown operations are counted."""
    mystery = [Operation("Mystery", "com.acme", "", ("x",), (f"m{i}",)) for i in range(2)]
    ops = [mystery[0], op("MaxPool", ("x",), ("p",), "pool"), mystery[1], op("Relu", ("x",), ("q",), "ok")]
    m = model(g(["x"], ["m0", "m1", "p", "q"], ops))
    for v in (smt(m, mode)["GRAPH-ARITY"], direct(m)["GRAPH-ARITY"]):
        assert v.status is Status.VIOLATED and v.witness is not None
        assert _left_out(v) == [("MaxPool:pool", [], [1])] and v.witness.data["unknown_count"] == 2
