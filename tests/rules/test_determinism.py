"""GRAPH-R2 and its table: decisions per operation, and the comparison with onnx's own flag."""

from __future__ import annotations

import dataclasses

import onnx.defs
import pytest
from rulekit import data, init, model, run, tensors, value

from sonnx.model.graph import Attribute, Operation, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import determinism as table
from sonnx.verdict import Status

ID = "GRAPH-R2"
FLAG = {
    onnx.defs.OpSchema.NodeDeterminism.Deterministic: "deterministic",
    onnx.defs.OpSchema.NodeDeterminism.NonDeterministic: "nondeterministic",
    onnx.defs.OpSchema.NodeDeterminism.Unknown: "unknown",
}


def one(o: Operation, opset: int = 17, inputs: tuple[str, ...] = ("x",), **kw: object) -> Status:
    g = make_graph("g", list(inputs), list(o.output_mapping[:1]), [o], kw.pop("tensors", None))  # type: ignore[arg-type]
    return run(ID, model(g, opset, **kw)).status


def constant(name: str, v: object) -> Operation:
    return Operation("Constant", "", "", (), (name,), (Attribute("value", "TENSOR", value(v, 9)),))


def test_table_against_onnx_node_determinism_flag() -> None:
    differences: dict[tuple[str, str], set[tuple[int, str, str]]] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        mine = table.schema_class(s.domain, s.name, s.since_version)
        theirs = FLAG[s.node_determinism]
        if mine != theirs:
            differences.setdefault((s.domain, s.name), set()).add((s.since_version, mine, theirs))
    undocumented = sorted(set(differences) - set(table.ONNX_FLAG_DIFFERENCES))
    assert not undocumented, {k: differences[k] for k in undocumented}
    stale = sorted(set(table.ONNX_FLAG_DIFFERENCES) - set(differences))
    assert not stale, f"documented differences that no longer occur: {stale}"
    # the random generators agree with onnx
    for name in ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"):
        assert ("", name) not in differences


def test_every_table_entry_names_an_onnx_operator() -> None:
    for e in table.TABLE:
        assert table.schema_versions(e.domain, e.operator), e
        assert e.condition in (table.ALWAYS, table.NEVER, *table.CONDITIONS)
        assert e.reason


def test_deterministic_graph_is_proved() -> None:
    assert one(op("Relu", ["x"], ["y"])) is Status.PROVED


@pytest.mark.parametrize("name", ["RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial"])
def test_random_generators_are_violations(name: str) -> None:
    g = make_graph("g", ["x"], ["y"], [op(name, ["x"], ["y"], name="rng", seed=1.0)])
    v = run(ID, model(g))
    assert v.status is Status.VIOLATED
    (f,) = data(v)["nondeterministic"]
    assert f["operation"] == f"{name}:rng" and "pseudo-random" in f["reason"]


def test_dropout_versions_1_and_6_follow_is_test() -> None:
    assert one(op("Dropout", ["x"], ["y"]), opset=6) is Status.VIOLATED
    assert one(op("Dropout", ["x"], ["y"], is_test=0), opset=6) is Status.VIOLATED
    assert one(op("Dropout", ["x"], ["y"], is_test=1), opset=6) is Status.PROVED
    assert one(op("Dropout", ["x"], ["y"], is_test=1), opset=1) is Status.PROVED


def test_dropout_versions_7_and_10_are_inference() -> None:
    assert one(op("Dropout", ["x"], ["y"]), opset=7) is Status.PROVED
    assert one(op("Dropout", ["x"], ["y"], ratio=0.5), opset=11) is Status.PROVED


def test_dropout_training_mode_input() -> None:
    drop = op("Dropout", ["x", "", "t"], ["y"])
    assert one(op("Dropout", ["x"], ["y"]), opset=13) is Status.PROVED
    assert one(op("Dropout", ["x", "r", ""], ["y"]), opset=13, inputs=("x", "r")) is Status.PROVED
    assert one(drop, opset=13, tensors=tensors(init("t", False, 9))) is Status.PROVED
    assert one(drop, opset=13, tensors=tensors(init("t", True, 9))) is Status.VIOLATED
    assert one(drop, opset=13, tensors=tensors(init("t", [False, False], 9))) is Status.VIOLATED
    assert one(drop, opset=13, inputs=("x", "t")) is Status.VIOLATED  # a graph input
    # an initializer that is also an input only gives a default
    assert one(drop, opset=13, inputs=("x", "t"), tensors=tensors(init("t", False, 9))) is Status.VIOLATED


def test_dropout_training_mode_from_constants_and_computations() -> None:
    drop = op("Dropout", ["x", "", "t"], ["y"], name="d")
    for v, expected in ((False, Status.PROVED), (True, Status.VIOLATED)):
        g = make_graph("g", ["x"], ["y"], [constant("t", v), drop])
        assert run(ID, model(g, 13)).status is expected
    g = make_graph("g", ["x", "flag"], ["y"], [op("Not", ["flag"], ["t"]), drop])
    v = run(ID, model(g, 13))
    (f,) = data(v)["nondeterministic"]
    assert f["operation"] == "Dropout:d" and "computed by Not:t" in f["reason"]


def test_training_mode_captured_from_an_enclosing_graph() -> None:
    body = make_graph("then", [], ["y1"], [op("Dropout", ["x", "", "t"], ["y1"])])
    other = make_graph("else", [], ["y2"], [op("Relu", ["x"], ["y2"])])
    for v, expected in ((False, Status.PROVED), (True, Status.VIOLATED)):
        ops = [constant("t", v), op("If", ["c"], ["y"], then_branch=body, else_branch=other)]
        assert run(ID, model(make_graph("main", ["c", "x"], ["y"], ops), 13)).status is expected


def test_training_mode_initializer_without_weights_is_unknown() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Dropout", ["x", "", "t"], ["y"])], tensors(init("t", False, 9)))
    m = dataclasses.replace(model(g, 13), weights_loaded=False)
    v = run(ID, m)
    assert v.status is Status.UNKNOWN and "without its weights" in (v.reason or "")
    assert "versions disagree" not in (v.reason or "")


def test_unreadable_value_is_unknown() -> None:
    def broken() -> object:
        raise OSError("disk gone")

    iv = value(False, 9)._replace(reader=broken)
    g = make_graph(
        "g", ["x"], ["y"], [op("Dropout", ["x", "", "t"], ["y"])], {"t": init("t")._replace(initial_value=iv)}
    )
    v = run(ID, model(g, 13))
    assert v.status is Status.UNKNOWN and "disk gone" in (v.reason or "")


def test_topk_unsorted_is_nondeterministic() -> None:
    assert one(op("TopK", ["x", "k"], ["v", "i"], sorted=0), inputs=("x", "k")) is Status.VIOLATED
    assert one(op("TopK", ["x", "k"], ["v", "i"], sorted=1), inputs=("x", "k")) is Status.PROVED
    assert one(op("TopK", ["x", "k"], ["v", "i"]), inputs=("x", "k")) is Status.PROVED


def test_unknown_domain_or_operator_is_unknown() -> None:
    v = run(ID, model(make_graph("g", ["x"], ["y"], [op("Fancy", ["x"], ["y"], domain="com.vendor")])))
    assert v.status is Status.UNKNOWN and "com.vendor" in (v.reason or "")
    v = run(ID, model(make_graph("g", ["x"], ["y"], [op("NoSuchOp", ["x"], ["y"])])))
    assert v.status is Status.UNKNOWN and "NoSuchOp" in (v.reason or "")
    v = run(ID, model(make_graph("g", ["x"], ["y"], [op("Gelu", ["x"], ["y"])]), 17))  # Gelu appears in opset 20
    assert v.status is Status.UNKNOWN and "no such operator at opset 17" in (v.reason or "")


def test_violation_wins_over_unknown() -> None:
    ops = [op("Fancy", ["x"], ["a"], domain="com.vendor"), op("RandomUniformLike", ["a"], ["y"])]
    v = run(ID, model(make_graph("g", ["x"], ["y"], ops)))
    assert v.status is Status.VIOLATED and data(v)["unknown_count"] == 1


def test_missing_opset_import() -> None:
    relu = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])])
    assert run(ID, model(relu, opset_imports={})).status is Status.PROVED  # deterministic in every version
    drop = make_graph("g", ["x"], ["y"], [op("Dropout", ["x"], ["y"])])
    v = run(ID, model(drop, opset_imports={}))
    assert v.status is Status.UNKNOWN and "no opset" in (v.reason or "")
    rnd = make_graph("g", ["x"], ["y"], [op("RandomUniformLike", ["x"], ["y"])])
    assert run(ID, model(rnd, opset_imports={})).status is Status.VIOLATED
    assert run(ID, model(relu, opset_imports={"ai.onnx": 13})).status is Status.PROVED


def test_opset_newer_than_known_is_unknown() -> None:
    v = run(ID, model(make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])]), 999))
    assert v.status is Status.UNKNOWN and "newer" in (v.reason or "")


def test_random_operation_in_a_nested_graph() -> None:
    body = make_graph("then", [], ["t"], [op("RandomNormalLike", ["x"], ["t"], name="noise")])
    other = make_graph("else", [], ["e"], [op("Relu", ["x"], ["e"])])
    g = make_graph("main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=body, else_branch=other)])
    (f,) = data(run(ID, model(g)))["nondeterministic"]
    assert f["scope"] == "main/If:s.then_branch" and f["operation"] == "RandomNormalLike:noise"
