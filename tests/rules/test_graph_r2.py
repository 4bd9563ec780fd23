"""GRAPH-R2 and its table: decisions per operation, and the comparison with onnx's own flag."""

from __future__ import annotations

import dataclasses

import numpy as np
import onnx.defs
import pytest
from onnx import TensorProto

from sonnx.base.verdict import Status, Verdict
from sonnx.model.graph import Attribute, Model, Operation, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import determinism_review as review
from sonnx.rules import determinism_table as table
from sonnx.rules import schemas
from sonnx.smt.engine import run_smt
from tests.common.rulekit import data, init, model, run, tensors, value

pytestmark = pytest.mark.rule("GRAPH-R2")

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
    undocumented = sorted(set(differences) - set(review.ONNX_FLAG_DIFFERENCES))
    assert not undocumented, {k: differences[k] for k in undocumented}
    stale = sorted(set(review.ONNX_FLAG_DIFFERENCES) - set(differences))
    assert not stale, f"documented differences that no longer occur: {stale}"
    # the random generators agree with onnx
    for name in ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"):
        assert ("", name) not in differences


def test_every_table_entry_names_an_onnx_operator() -> None:
    for e in table.TABLE:
        assert schemas.schema_versions(e.domain, e.operator), e
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


# -- conditions added after an audit of the operator texts: every open point of the ONNX text decided ---------


def both(m: Model) -> tuple[Verdict, Verdict]:
    """GRAPH-R2 by the direct rule and by the SMT engine (which shares the classification, not the decision)."""
    return run(ID, m), smt_engine(m)[ID]


def test_dropout_versions_7_and_10_may_run_in_training_mode() -> None:
    for opset in (7, 10, 11):
        g = make_graph("g", ["x"], ["y"], [op("Dropout", ["x"], ["y"], name="d")])
        for v in both(model(g, opset)):
            assert v.status is Status.VIOLATED
            (f,) = data(v)["nondeterministic"]
            assert "runtime decides" in f["reason"]


def scatter_nd(indices: object, reduction: str | None = None, declared: tuple[int, ...] | None = None) -> Model:
    attrs = {} if reduction is None else {"reduction": reduction}
    s = op("ScatterND", ["data", "idx", "upd"], ["y"], name="s", **attrs)
    ty = None if declared is None else TensorType("tensor", 1, declared)
    data_t = Tensor("data", ty, None)
    return model(make_graph("g", ["data", "upd"], ["y"], [s], tensors(init("idx", indices, 7), data_t)), 18)


def test_scatter_nd_with_constant_duplicate_indices_is_violated_with_the_pair() -> None:
    for v in both(scatter_nd([[1], [1]])):
        assert v.status is Status.VIOLATED
        (f,) = data(v)["nondeterministic"]
        assert "entries 0 and 1 address the same element [1]" in f["reason"]


def test_scatter_nd_without_duplicates_or_with_a_reduction_is_proved() -> None:
    assert {v.status for v in both(scatter_nd([[0], [1]]))} == {Status.PROVED}
    assert {v.status for v in both(scatter_nd([[1], [1]], reduction="add"))} == {Status.PROVED}
    assert {v.status for v in both(scatter_nd([[1], [1]], reduction="none"))} == {Status.VIOLATED}


def test_scatter_nd_negative_indices_need_the_declared_dimension() -> None:
    # -1 and 2 address the same row of a 3-row tensor
    v = run(ID, scatter_nd([[-1], [2]]))
    assert v.status is Status.UNKNOWN and "negative indices" in (v.reason or "")
    assert run(ID, scatter_nd([[-1], [2]], declared=(3, 4))).status is Status.VIOLATED
    assert run(ID, scatter_nd([[-1], [1]], declared=(3, 4))).status is Status.PROVED


def test_scatter_indices_computed_at_run_time_are_unknown_never_proved() -> None:
    s = op("ScatterND", ["data", "idx", "upd"], ["y"], name="s")
    g = make_graph("g", ["data", "idx", "upd"], ["y"], [s])
    for v in both(model(g, 18)):
        assert v.status is Status.UNKNOWN and "graph input, given at run time" in (v.reason or "")


def test_scatter_elements_duplicates_are_positions_with_the_axis_replaced() -> None:
    def m(indices: object, axis: int) -> Model:
        s = op("ScatterElements", ["data", "idx", "upd"], ["y"], axis=axis)
        ts = tensors(init("idx", indices, 7), Tensor("data", TensorType("tensor", 1, (2, 2))))
        return model(make_graph("g", ["data", "upd"], ["y"], [s], ts), 18)  # data's rank decides the axis's range

    # along axis 1 both entries of row 0 write column 1; row 1 is not involved
    assert run(ID, m([[1, 1], [0, 1]], 1)).status is Status.VIOLATED
    assert run(ID, m([[1, 0], [0, 1]], 1)).status is Status.PROVED
    # along axis 0 the two rows write different rows of each column
    assert run(ID, m([[1, 1], [0, 0]], 0)).status is Status.PROVED


def test_mod_with_a_zero_divisor() -> None:
    def m(divisor: object | None) -> Model:
        inits = () if divisor is None else (init("d", divisor, 7),)
        ins = ["x"] if divisor is not None else ["x", "d"]
        return model(make_graph("g", ins, ["y"], [op("Mod", ["x", "d"], ["y"])], tensors(*inits)))

    assert run(ID, m([3, 0])).status is Status.VIOLATED
    assert run(ID, m([3, 4])).status is Status.PROVED
    assert run(ID, m(None)).status is Status.UNKNOWN


def test_scan_8_with_sequence_lengths_is_unknown() -> None:
    body = make_graph("body", ["s", "x"], ["s2", "o"], [op("Add", ["s", "x"], ["s2"]), op("Identity", ["x"], ["o"])])
    with_lens = op("Scan", ["lens", "init", "xs"], ["final", "ys"], body=body, num_scan_inputs=1)
    without = op("Scan", ["", "init", "xs"], ["final", "ys"], body=body, num_scan_inputs=1)
    assert one(with_lens, opset=8, inputs=("lens", "init", "xs")) is Status.UNKNOWN
    assert one(without, opset=8, inputs=("init", "xs")) is Status.PROVED


def test_cast_to_float8e8m0_of_negative_values() -> None:
    def m(values: object | None) -> Model:
        cast = op("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0)
        inits = () if values is None else (init("x", values, 1),)
        return model(make_graph("g", [] if values is not None else ["x"], ["y"], [cast], tensors(*inits)), 24)

    assert run(ID, m([1.0, -0.0])).status is Status.VIOLATED
    assert run(ID, m([1.0, 2.0])).status is Status.PROVED
    assert run(ID, m(None)).status is Status.UNKNOWN
    to_float = op("Cast", ["x"], ["y"], to=TensorProto.FLOAT)
    assert one(to_float, opset=24) is Status.PROVED


def test_every_reviewed_entry_names_an_onnx_operator_with_a_reason() -> None:
    for e in table.REVIEWED:
        assert schemas.schema_versions(e.domain, e.operator), e
        assert e.condition == table.NEVER and e.reason


def smt_engine(m: Model) -> dict[str, Verdict]:
    return {v.rule_id: v for v in run_smt(m).verdicts}


# -- index and attribute shapes the mutation campaign reached (both engines) ----------------------------------


def test_scatter_nd_with_empty_index_tuples_addresses_the_whole_tensor() -> None:
    # indices of shape [n, 0]: every row replaces all of ``data``, so two rows coincide and one row does not
    (direct, smt) = both(scatter_nd(np.zeros((2, 0), dtype=np.int64)))
    assert direct.status is Status.VIOLATED and smt.status is Status.VIOLATED
    for v in (direct, smt):
        (f,) = data(v)["nondeterministic"]
        assert "entries 0 and 1 address the same element []" in f["reason"]
    for rows in (0, 1):
        assert {v.status for v in both(scatter_nd(np.zeros((rows, 0), dtype=np.int64)))} == {Status.PROVED}


def test_scatter_elements_with_a_single_scalar_index_is_proved() -> None:
    s = op("ScatterElements", ["data", "idx", "upd"], ["y"], axis=0)
    ts = tensors(init("idx", np.int64(3), 7), Tensor("data", TensorType("tensor", 1, (4,))))
    m = model(make_graph("g", ["data", "upd"], ["y"], [s], ts), 18)
    assert {v.status for v in both(m)} == {Status.PROVED}


@pytest.mark.parametrize("to", [float(TensorProto.FLOAT8E8M0), "FLOAT8E8M0", None])
def test_cast_whose_to_is_absent_or_not_an_int_is_unknown(to: object) -> None:
    attrs = {} if to is None else {"to": to}
    cast = op("Cast", ["x"], ["y"], **attrs)
    m = model(make_graph("g", [], ["y"], [cast], tensors(init("x", [-1.0], 1))), 24)
    for v in both(m):
        assert v.status is Status.UNKNOWN, v
        assert "'to' is" in (v.reason or "")
