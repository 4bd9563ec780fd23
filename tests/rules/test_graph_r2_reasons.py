"""GRAPH-R2's verdict texts and the less travelled paths of its direct rule (targeted mutation campaign).

Guards :mod:`sonnx.rules.graph_r2` against mutants that changed a reason, a
witness summary or a rarely taken branch (omitted inputs, names defined twice
or nowhere, a ``Constant`` whose value is not a tensor, weights not loaded)
without changing any status the older tests checked. Where the SMT engine
words the same text (the lister's reason for an operation without a schema,
the witness summary), it is checked too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto

from sonnx.base.verdict import Status, Verdict
from sonnx.model.graph import Attribute, Model, Operation, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import determinism_table as table
from sonnx.rules import schemas
from sonnx.smt.engine import run_smt
from tests.common.rulekit import data, init, model, run, tensors, value

ID = "GRAPH-R2"
UNDETERMINED = "determinism of {} operation(s) not established: "


def entry(operator: str, condition: str | None = None) -> str:
    return next(e.reason for e in table.TABLE if e.operator == operator and condition in (None, e.condition))


def smt(m: Model) -> Verdict:
    v = {v.rule_id: v for v in run_smt(m).verdicts}[ID]
    assert v.status is not Status.UNKNOWN or (v.reason or "").startswith("determinism of "), v
    return v


def unknown(m: Model, reason: str, n: int = 1) -> None:
    v = run(ID, m)
    assert v.status is Status.UNKNOWN, v
    assert v.reason == UNDETERMINED.format(n) + reason


def nondet(m: Model) -> list[str]:
    v = run(ID, m)
    assert v.status is Status.VIOLATED, v
    return [f["reason"] for f in data(v)["nondeterministic"]]


# -- operations without a schema --------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2")
def test_unknown_domain_reason_in_both_engines() -> None:
    m = model(make_graph("g", ["x"], ["y"], [op("Fancy", ["x"], ["y"], domain="com.vendor")]))
    why = "com.vendor::Fancy: domain 'com.vendor' is not one whose operators sonnx knows"
    unknown(m, why)
    assert (smt(m).reason or "").startswith(UNDETERMINED.format(1) + why)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("domain", "shown"), [("", "ai.onnx"), ("ai.onnx", "ai.onnx"), ("ai.onnx.ml", "ai.onnx.ml")]
)
def test_operator_onnx_does_not_define_without_an_opset_import(domain: str, shown: str) -> None:
    m = model(make_graph("g", ["x"], ["y"], [op("NoSuchOp", ["x"], ["y"], domain=domain)]), opset_imports={})
    why = f"{shown}::NoSuchOp: not an operator onnx defines"
    unknown(m, why)
    assert (smt(m).reason or "").startswith(UNDETERMINED.format(1) + why)


@pytest.mark.rule("GRAPH-R2")
def test_versions_that_disagree_without_an_opset_import() -> None:
    # Dropout: is_test decides versions 1 and 6, the run time 7 and 10, training_mode from 12 on (omitted here)
    m = model(make_graph("g", ["x"], ["y"], [op("Dropout", ["x"], ["y"], is_test=1)]), opset_imports={})
    v = run(ID, m)
    assert v.status is Status.UNKNOWN
    reasons = "; ".join(dict.fromkeys(e.reason for e in table.TABLE if e.operator == "Dropout"
                                      and e.condition == table.ALWAYS))
    assert v.reason == (
        UNDETERMINED.format(1) + f"the model imports no opset for this domain and the versions disagree ({reasons})"
    )
    assert "versions disagree" in (smt(m).reason or "")


@pytest.mark.rule("GRAPH-R2")
def test_two_operations_with_one_reason_give_it_once() -> None:
    ops = [op("Fancy", ["x"], ["a"], domain="com.vendor"), op("Fancy", ["a"], ["y"], domain="com.vendor")]
    unknown(model(make_graph("g", ["x"], ["y"], ops)),
            "com.vendor::Fancy: domain 'com.vendor' is not one whose operators sonnx knows", n=2)


# -- the witness of a violation ------------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2")
def test_violation_summary_and_counts_in_both_engines() -> None:
    ops = [
        op("RandomUniformLike", ["x"], ["a"], name="r1"),
        op("Fancy", ["a"], ["b"], name="f", domain="com.vendor"),
        op("RandomNormalLike", ["b"], ["y"], name="r2"),
    ]
    m = model(make_graph("g", ["x"], ["y"], ops))
    for v in (run(ID, m), smt(m)):
        assert v.status is Status.VIOLATED
        assert v.witness is not None
        d = data(v)
        assert (d["count"], d["unknown_count"]) == (2, 1)
        assert [f["operation"] for f in d["nondeterministic"]] == ["RandomUniformLike:r1", "RandomNormalLike:r2"]
        assert v.witness.summary == (
            "2 nondeterministic operation(s): RandomUniformLike:r1 in g, RandomNormalLike:r2 in g; "
            + entry("RandomUniformLike")
        )


# -- Dropout ------------------------------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(("attrs", "shown"), [({}, "absent"), ({"is_test": 0}, "0"), ({"is_test": 1.0}, "1.0")])
def test_is_test_reason(attrs: dict[str, Any], shown: str) -> None:
    m = model(make_graph("g", ["x"], ["y"], [op("Dropout", ["x"], ["y"], **attrs)]), 6)
    assert nondet(m) == [f"is_test is {shown}: {entry('Dropout', table.IS_TEST_UNSET)}"]
    assert smt(m).status is Status.VIOLATED


def drop(*ops: Operation, inputs: tuple[str, ...] = ("x",), ts: dict[str, Tensor] | None = None) -> Model:
    d = op("Dropout", ["x", "", "t"], ["y"], name="d")
    return model(make_graph("g", list(inputs), ["y"], [*ops, d], ts), 13)


def smt_reasons(m: Model) -> list[str]:
    v = smt(m)
    assert v.status is Status.VIOLATED, v
    return [f["reason"] for f in data(v)["nondeterministic"]]


@pytest.mark.rule("GRAPH-R2")
def test_training_mode_reasons() -> None:
    where = "training_mode 't' (defined in g)"
    tm = entry("Dropout", table.TRAINING_MODE_NOT_FALSE)
    m = drop(ts=tensors(init("t", True, 9)))
    assert nondet(m) == [f"{where}, an initializer, is true"]
    assert smt_reasons(m) == [f"{where}, an initializer,: {tm}"]
    m = drop(ts=tensors(init("t", [False, False], 9)))
    assert nondet(m) == [f"{where}, an initializer, holds 2 values, not a single false"]
    assert smt_reasons(m) == [f"{where}, an initializer,: {tm}"]
    # a graph input, a computed value, an undefined name and a name written twice are run-time values
    twice = [op("Not", ["x"], ["t"]), op("Not", ["x"], ["t"])]
    for m, why in [
        (drop(inputs=("x", "t")), f"{where} is a graph input, given at run time"),
        (drop(op("Not", ["x"], ["t"], name="n")), f"{where} is computed by Not:n"),
        (drop(), "training_mode 't' is not defined in any enclosing graph"),
        (drop(*twice), f"{where} is assigned more than once"),
    ]:
        assert nondet(m) == [why]
        assert smt_reasons(m) == [f"{why}: {tm}"]


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(("v", "expected"), [(False, Status.PROVED), (True, Status.VIOLATED)])
def test_training_mode_captured_from_two_graphs_up(v: bool, expected: Status) -> None:
    inner = make_graph("inner", [], ["z"], [op("Dropout", ["x", "", "t"], ["z"], name="d")])
    relu = make_graph("other", [], ["w"], [op("Relu", ["x"], ["w"])])
    mid = make_graph("mid", [], ["m"], [op("If", ["c"], ["m"], then_branch=inner, else_branch=relu)])
    mid2 = make_graph("mid2", [], ["n"], [op("Relu", ["x"], ["n"])])
    c = Operation("Constant", "", "k", (), ("t",), (Attribute("value", "TENSOR", value(v, 9)),))
    g = make_graph("main", ["c", "x"], ["y"], [c, op("If", ["c"], ["y"], then_branch=mid, else_branch=mid2)])
    m = model(g, 13)
    assert run(ID, m).status is expected
    assert smt(m).status is expected
    if expected is Status.VIOLATED:
        where = "training_mode 't' (defined in main), a Constant,"
        assert nondet(m) == [f"{where} is true"]
        assert smt_reasons(m) == [f"{where}: {entry('Dropout', table.TRAINING_MODE_NOT_FALSE)}"]


@pytest.mark.rule("GRAPH-R2")
def test_a_name_the_nested_graph_defines_itself_is_its_own() -> None:
    # the branch computes its own 't', hiding the outer constant false
    inner = make_graph("inner", [], ["z"], [op("Not", ["x"], ["t"], name="n"), op("Dropout", ["x", "", "t"], ["z"])])
    relu = make_graph("other", [], ["w"], [op("Relu", ["x"], ["w"])])
    c = Operation("Constant", "", "k", (), ("t",), (Attribute("value", "TENSOR", value(False, 9)),))
    g = make_graph("main", ["c", "x"], ["y"], [c, op("If", ["c"], ["y"], then_branch=inner, else_branch=relu)])
    m = model(g, 13)
    assert nondet(m) == ["training_mode 't' (defined in main/If:y.then_branch) is computed by Not:n"]
    assert smt(m).status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    "producer",
    [
        Operation("Constant", "", "c", (), ("t",), (Attribute("value_int", "INT", 0),)),
        Operation("Constant", "", "c", (), ("t",), ()),
        Operation("Constant", "com.vendor", "c", (), ("t",), (Attribute("value", "TENSOR", value(False, 9)),)),
        Operation("Identity", "", "c", ("x",), ("t",), (Attribute("value", "TENSOR", value(False, 9)),)),
    ],
)
def test_only_a_constant_of_the_default_domain_with_a_tensor_value_is_a_constant(producer: Operation) -> None:
    m = drop(producer)
    assert nondet(m) == [f"training_mode 't' (defined in g) is computed by {producer.label}"]
    assert smt(m).status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2")
def test_a_constant_is_read_even_without_the_weights() -> None:
    c = Operation("Constant", "", "c", (), ("t",), (Attribute("value", "TENSOR", value(False, 9)),))
    m = dataclasses.replace(drop(c), weights_loaded=False)
    assert run(ID, m).status is Status.PROVED
    assert smt(m).status is Status.PROVED
    external = value(False, 9)._replace(external=(("location", "w.bin"),))
    c = Operation("Constant", "", "c", (), ("t",), (Attribute("value", "TENSOR", external),))
    m = dataclasses.replace(drop(c), weights_loaded=False)
    unknown(m, "training_mode 't' (defined in g), a Constant,: the model was loaded without its weights, so the "
            "value was not read")
    assert smt(m).status is Status.UNKNOWN


@pytest.mark.rule("GRAPH-R2")
def test_an_unreadable_value_names_the_error() -> None:
    def broken() -> object:
        raise OSError("disk gone")

    iv = value(False, 9)._replace(reader=broken)
    m = drop(ts={"t": Tensor("t", None, iv)})
    unknown(m, "training_mode 't' (defined in g), an initializer,: its value could not be read (OSError: disk gone)")
    assert "OSError: disk gone" in (smt(m).reason or "")


# -- scatters --------------------------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("inputs", [["data"], ["data", "", "upd"]])
def test_scatter_without_indices_is_proved(inputs: list[str]) -> None:
    m = model(make_graph("g", ["data", "upd"], ["y"], [op("ScatterND", inputs, ["y"])]), 18)
    assert run(ID, m).status is Status.PROVED
    assert smt(m).status is Status.PROVED


@pytest.mark.rule("GRAPH-R2")
def test_scatter_indices_at_run_time_reason() -> None:
    m = model(make_graph("g", ["data", "idx", "upd"], ["y"], [op("ScatterND", ["data", "idx", "upd"], ["y"])]), 18)
    unknown(m, f"indices 'idx' (defined in g) is a graph input, given at run time: {entry('ScatterND')}")


@pytest.mark.rule("GRAPH-R2")
def test_a_declared_dimension_of_zero_is_a_dimension() -> None:
    # -1 on a dimension of size 0 stays -1 in both rows: they coincide (a dimension 0 is declared, not unknown)
    s = op("ScatterND", ["data", "idx", "upd"], ["y"])
    data_t = Tensor("data", TensorType("tensor", 1, (0,)), None)
    ts = tensors(init("idx", np.asarray([[-1], [-1]], dtype=np.int64), 7), data_t)
    m = model(make_graph("g", ["data", "upd"], ["y"], [s], ts), 18)
    assert run(ID, m).status is Status.VIOLATED
    assert smt(m).status is Status.VIOLATED


# -- Mod, Scan, casts ---------------------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2")
def test_mod_reasons() -> None:
    m = model(make_graph("g", ["x"], ["y"], [op("Mod", ["x", "d"], ["y"])], tensors(init("d", [3, 4, 0, 0], 7))))
    assert nondet(m) == [f"divisor 'd' (defined in g), an initializer, holds a zero at flat position 2; {entry('Mod')}"]
    unknown(model(make_graph("g", ["x"], ["y"], [op("Mod", ["x"], ["y"])])), f"the divisor: {entry('Mod')}")
    unknown(
        model(make_graph("g", ["x", "d"], ["y"], [op("Mod", ["x", "d"], ["y"])])),
        f"divisor 'd' (defined in g) is a graph input, given at run time: {entry('Mod')}",
    )


@pytest.mark.rule("GRAPH-R2")
def test_scan_8_reason() -> None:
    body = make_graph("body", ["s", "x"], ["s2"], [op("Add", ["s", "x"], ["s2"])])
    scan = op("Scan", ["lens", "init", "xs"], ["final"], body=body, num_scan_inputs=1)
    m = model(make_graph("g", ["lens", "init", "xs"], ["final"], [scan]), 8)
    unknown(m, entry("Scan", table.SEQUENCE_LENS_GIVEN))
    assert smt(m).status is Status.UNKNOWN


@pytest.mark.rule("GRAPH-R2")
def test_cast_reasons() -> None:
    cast = op("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0)
    m = model(make_graph("g", [], ["y"], [cast], tensors(init("x", [1.0, 2.0, -3.0], 1))), 24)
    e8m0 = entry("Cast", table.UNREPRESENTABLE_CAST)
    assert nondet(m) == [f"input 'x' (defined in g), an initializer, holds -3.0 at flat position 2; {e8m0}"]
    no_to = op("Cast", ["x"], ["y"])
    unknown(model(make_graph("g", [], ["y"], [no_to], tensors(init("x", [1.0], 1))), 24),
            f"Cast's attribute 'to' is absent, so the target type is not known; {e8m0}")
    str_to = op("Cast", ["x"], ["y"], to="FLOAT8E8M0")
    unknown(model(make_graph("g", [], ["y"], [str_to], tensors(init("x", [1.0], 1))), 24),
            f"Cast's attribute 'to' is of type STRING, not INT, so the target type is not known; {e8m0}")


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("inputs", "why"),
    [(["x"], "the input is omitted"), (["x", "t"], "graph input 't' declares no tensor type"),
     (["x", ""], "the input is omitted")],
)
def test_castlike_reason(inputs: list[str], why: str) -> None:
    m = model(make_graph("g", ["x", "t"], ["y"], [op("CastLike", inputs, ["y"])]), 24)
    unknown(m, f"CastLike's target type is not established ({why}); {entry('CastLike')}")


@pytest.mark.rule("GRAPH-R2")
def test_castlike_to_e8m0_reason() -> None:
    t = Tensor("t", TensorType("tensor", TensorProto.FLOAT8E8M0, (1,)), None)
    c = op("CastLike", ["x", "t"], ["y"])
    m = model(make_graph("g", ["t"], ["y"], [c], tensors(init("x", [-0.0], 1), t)), 24)
    assert nondet(m) == [
        f"input 'x' (defined in g), an initializer, holds -0.0 at flat position 0; {entry('CastLike')}"
    ]


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
def test_topk_sorted_of_another_type_is_unknown_in_both() -> None:
    # the table would read a STRING sorted as sorted; GRAPH-ATTRIBUTES finds no meaning for it, so neither engine
    # rests a verdict on it
    t = op("TopK", ["x", "k"], ["v", "i"], sorted="0")
    m = model(make_graph("g", ["x", "k"], ["v"], [t]))
    for v in (run(ID, m), smt(m)):
        assert v.status is Status.UNKNOWN and "attribute 'sorted' = '0'" in (v.reason or ""), v


@pytest.mark.rule("GRAPH-R2")
def test_disagreeing_versions_list_the_reasons_of_the_versions_that_are_not_deterministic() -> None:
    # Dropout without an opset import: versions 1 and 6 (is_test absent) and 7 and 10 (the run time decides) are
    # nondeterministic, 12 and later deterministic (training_mode false): only the first two reasons are listed
    m = drop(ts=tensors(init("t", False, 9)))
    m = dataclasses.replace(m, opset_imports={})
    reasons = f"is_test is absent: {entry('Dropout', table.IS_TEST_UNSET)}; {entry('Dropout', table.ALWAYS)}"
    unknown(m, f"the model imports no opset for this domain and the versions disagree ({reasons})")
    assert smt(m).status is Status.UNKNOWN


def _scatter_nd_without_updates() -> tuple[Model, str]:
    s = op("ScatterND", ["data", "idx"], ["y"], name="s")
    m = model(make_graph("g", ["data"], ["y"], [s], tensors(init("idx", np.asarray([[1], [1]]), 7))), 18)
    why = "indices 'idx' (defined in g), an initializer,: entries 0 and 1 address the same element [1]; "
    return m, why + entry("ScatterND")


def _cast_of_a_matrix() -> tuple[Model, str]:
    cast = op("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0)
    m = model(make_graph("g", [], ["y"], [cast], tensors(init("x", [[1.0, 2.0], [3.0, -4.0]], 1))), 24)
    why = "input 'x' (defined in g), an initializer, holds -4.0 at flat position 3; "
    return m, why + entry("Cast", table.UNREPRESENTABLE_CAST)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    "case",
    [
        _scatter_nd_without_updates,  # the indices are checked even with the updates omitted
        _cast_of_a_matrix,  # the reason names the flat position in a matrix
    ],
)
def test_violation_reasons(case: Callable[[], tuple[Model, str]]) -> None:
    m, why = case()
    assert nondet(m) == [why]
    assert smt(m).status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2")
def test_disagreeing_versions_where_older_versions_have_no_entry() -> None:
    # TopK without an opset import: versions 1 and 10 have no conditional entry, 11 and later are unsorted
    topk = op("TopK", ["x", "k"], ["v", "i"], sorted=0)
    m = model(make_graph("g", ["x", "k"], ["v"], [topk]), opset_imports={})
    why = entry("TopK", table.TOPK_UNSORTED)
    unknown(m, f"the model imports no opset for this domain and the versions disagree ({why})")
    assert smt(m).status is Status.UNKNOWN


def test_the_newest_opset_of_each_domain_is_onnx_registry_and_no_schema_is_newer() -> None:
    # read from onnx's registry of versions by domain without making every schema a Python object; a schema
    # newer than its domain's newest version would let an opset through that onnx does not define
    newest = schemas._newest()
    assert newest == {domain: last for domain, (_, last) in onnx.defs.C.schema_version_map().items()}
    for s in onnx.defs.get_all_schemas_with_history():
        assert s.since_version <= newest[s.domain], s.name
    top = newest[""]
    assert schemas.schema_at("", "Relu", top)[0] is not None
    assert schemas.schema_at("", "Relu", top + 1) == (
        None, f"ai.onnx::Relu: opset {top + 1} is newer than the schemas sonnx knows (up to {top})"
    )
