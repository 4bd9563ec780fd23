"""Scale cases: a 100,000-operation cycle and a 2,000-deep nesting of If bodies."""

from __future__ import annotations

import sys

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Graph, Operation, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import RULES, run_rules
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from tests.common.rulekit import data, model


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-C2", "GRAPH-C3", "GRAPH-R1")
@pytest.mark.slow
def test_hundred_thousand_operation_cycle() -> None:
    n = 100_000
    ops = [Operation("Relu", "", "", (f"t{i - 1 if i else n - 1}",), (f"t{i}",)) for i in range(n)]
    ops.append(Operation("Neg", "", "", ("t0",), ("y",)))
    m = model(make_graph("ring", ["x"], ["y"], ops))
    verdicts = {v.rule_id: v for v in run_rules(m)}  # its time is in benchmarks/, never asserted here
    acyclic = verdicts["GRAPH-ACYCLIC"]
    assert acyclic.status is Status.VIOLATED
    d = data(acyclic)
    assert d["length"] == n and len(d["cycle"]) == 100
    for k, step in enumerate(d["cycle"][:-1]):  # consecutive steps are linked by the named tensor
        assert step["tensor"] == f"t{step['index']}"
        assert d["cycle"][k + 1]["index"] == (step["index"] + 1) % n
    c3 = data(verdicts["GRAPH-C3"])
    assert c3["ends"] == "cycle" and c3["chain_length"] == n + 2
    assert verdicts["GRAPH-C2"].status is Status.VIOLATED  # x is never read
    assert verdicts["GRAPH-R1"].status is Status.PROVED


def deep_model(depth: int) -> Graph:
    inner = make_graph(f"l{depth}", [], [f"o{depth}"], [op("Relu", ["x"], [f"o{depth}"], name=f"leaf{depth}")])
    for k in range(depth - 1, 0, -1):
        other = make_graph(f"e{k}", [], [f"e{k}"], [op("Neg", ["x"], [f"e{k}"], name=f"neg{k}")])
        branch = op("If", ["c"], [f"o{k}"], name=f"if{k}", then_branch=inner, else_branch=other)
        inner = make_graph(f"l{k}", [], [f"o{k}"], [branch])
    return make_graph("main", ["c", "x"], ["o1"], inner.operations)


@pytest.mark.rule(
    "FORMAT-ONNX", "GRAPH-IF-BRANCHES", "STRICT-OPERATORS", "STRICT-SHAPES",
    "STRICT-BROADCAST", "STRICT-METADATA", "OP-VALUE-SHAPES", "OP-ERROR-INT-OVERFLOW", "OP-RANGE-FLOAT",
)
@pytest.mark.slow
def test_two_thousand_deep_nesting_without_recursion() -> None:
    m = model(deep_model(2000))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    try:
        verdicts = run_rules(m, CheckConfig(profile=PROFILE_STRICT))
    finally:
        sys.setrecursionlimit(limit)
    got = {v.rule_id: v for v in verdicts}
    assert len(got) == len(RULES)
    assert got["STRICT-SHAPES"].status is Status.VIOLATED  # no declared types at all
    # nor for the branch outputs, whose agreement therefore is not established (found 2,000 levels down)
    assert got["GRAPH-IF-BRANCHES"].status is Status.UNKNOWN and "1996 more" in (got["GRAPH-IF-BRANCHES"].reason or "")
    # an in-memory model has no file for FORMAT-ONNX nor for STRICT-BROADCAST's shape inference; no metadata; If
    # is outside the default strict operator set
    assert got["FORMAT-ONNX"].status is Status.UNKNOWN and got["STRICT-BROADCAST"].status is Status.UNKNOWN
    assert got["STRICT-METADATA"].status is Status.VIOLATED
    assert got["STRICT-OPERATORS"].status is Status.VIOLATED
    # the inputs declare no rank and the analysis does not enter nested graphs
    assert got["OP-SHAPES"].status is Status.UNKNOWN and "declares no tensor rank" in (got["OP-SHAPES"].reason or "")
    # every If's condition is an input, and an in-memory model has no derived branch shapes: all 1,999 are open
    assert got["OP-VALUE-SHAPES"].status is Status.UNKNOWN and "(1999 operation(s))" in (got["OP-VALUE-SHAPES"].reason
                                                                                          or "")
    # the error-condition rules do not analyse nested graphs: those whose operators occur there are not established
    nested = ("OP-ERROR-INT-OVERFLOW", "OP-RANGE-FLOAT")
    for rule_id in nested:
        reason = got[rule_id].reason or ""
        assert got[rule_id].status is Status.UNKNOWN and "nested graph(s) are not analysed" in reason
    file_rules = ("FORMAT-ONNX", "STRICT-BROADCAST", "OP-VALUE-SHAPES")
    for rule_id, v in got.items():
        if rule_id not in ("STRICT-SHAPES", "GRAPH-IF-BRANCHES", "STRICT-METADATA", "STRICT-OPERATORS", "OP-SHAPES",
                           *file_rules, *nested):
            assert v.status is Status.PROVED, (rule_id, v.reason)


@pytest.mark.rule("GRAPH-C3")
@pytest.mark.slow
def test_deep_nesting_violation_is_found_at_the_bottom() -> None:
    g = deep_model(2000)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    try:
        # the leaf reads "ghost" instead of x: undefined at every level
        ghosted = make_graph("main", ["c", "x"], ["o1"], _replace_leaf(g).operations)
        v = {x.rule_id: x for x in run_rules(model(ghosted))}["GRAPH-C3"]
    finally:
        sys.setrecursionlimit(limit)
    d = data(v)
    assert v.status is Status.VIOLATED and d["count"] == 2000 and d["root"] == "ghost"
    assert d["undefined"][0] == {"scope": "main", "output": "o1"}


def _replace_leaf(g: Graph) -> Graph:
    """Rebuild ``g`` with the innermost Relu reading ``ghost`` (iteratively, bottom-up)."""
    chain = []
    cur = g
    while cur.operations and cur.operations[0].operator == "If":
        chain.append(cur)
        cur = cur.operations[0].attribute("then_branch").value  # type: ignore[union-attr]
    leaf = cur.operations[0]
    new = make_graph(cur.name, [], cur.outputs, [leaf._replace(input_mapping=("ghost",))])
    for outer in reversed(chain):
        branch = outer.operations[0]
        attrs = tuple(a._replace(value=new) if a.name == "then_branch" else a for a in branch.attributes)
        new = make_graph(outer.name, outer.inputs, outer.outputs, [branch._replace(attributes=attrs)])
    return new
