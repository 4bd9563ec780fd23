"""STRICT-BROADCAST: implicit broadcasting is reported, judged on the shapes onnx infers for the file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.verdict import Severity, Status, Verdict
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.loader import load_model
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from sonnx.rules.strict_broadcast import BATCH, ELLIPSIS, LEGACY, MULTI, UNI, Entry, broadcasting, same
from tests.common.peers import onnxruntime, ort_refusal
from tests.common.rulekit import data, model, run

ID = "STRICT-BROADCAST"
STRICT = CheckConfig(profile=PROFILE_STRICT)


def vi(name: str, shape: list[Any] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def check(tmp_path: Path, nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto],
          outputs: list[onnx.ValueInfoProto], opset: int = 17, **kw: Any) -> Verdict:
    g = helper.make_graph(nodes, "main", inputs, outputs, **kw)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    return run(ID, load_model(path), STRICT)


def add(tmp_path: Path, a: list[Any] | None, b: list[Any] | None) -> Verdict:
    return check(tmp_path, [helper.make_node("Add", ["a", "b"], ["y"], name="add")], [vi("a", a), vi("b", b)],
                 [vi("y", None)])


@pytest.mark.rule("STRICT-BROADCAST")
def test_equal_shapes_do_not_broadcast(tmp_path: Path) -> None:
    assert add(tmp_path, [2, 3], [2, 3]).status is Status.PROVED
    # one input's symbolic dimension is one size wherever inference carries it
    nodes = [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Add", ["r", "a"], ["y"], name="add")]
    assert check(tmp_path, nodes, [vi("a", ["N", 3])], [vi("y", None)]).status is Status.PROVED


@pytest.mark.rule("STRICT-BROADCAST")
def test_one_symbolic_name_on_two_inputs_is_not_one_size(tmp_path: Path) -> None:
    # no runtime checks that two inputs declaring N are given one size (spec: "What a PROVED rests on")
    v = add(tmp_path, ["N", 3], ["N", 3])
    assert v.status is Status.UNKNOWN and "symbolic dimensions differ" in (v.reason or ""), v
    # the same holds of one name used twice in one input
    nodes = [helper.make_node("Transpose", ["a"], ["t"]), helper.make_node("Add", ["t", "a"], ["y"], name="add")]
    assert check(tmp_path, nodes, [vi("a", ["N", "N"])], [vi("y", None)]).status is Status.UNKNOWN


@pytest.mark.rule("STRICT-BROADCAST")
def test_onnxruntime_broadcasts_inputs_that_declare_one_symbolic_name() -> None:
    # the peer is asked: it runs Add on [1, 3] and [2, 3] although both inputs declare [N, 3]
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "main", [vi("a", ["N", 3]), vi("b", ["N", 3])],
                          [vi("y", None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    if (why := ort_refusal(m)) is not None:
        pytest.fail(f"onnxruntime refuses the model: {why}")
    ort = onnxruntime()
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"a": np.ones((1, 3), np.float32), "b": np.ones((2, 3), np.float32)})
    assert y.shape == (2, 3)


@pytest.mark.rule("STRICT-BROADCAST")
def test_intermediate_and_output_declarations_are_not_shapes(tmp_path: Path) -> None:
    # r is [1, 3] at run time; its value_info and the output declaration claim [2, 3]: Add broadcasts r
    nodes = [helper.make_node("ReduceSum", ["a"], ["r"], keepdims=1, axes=[0]),
             helper.make_node("Add", ["r", "a"], ["y"], name="add")]
    v = check(tmp_path, nodes, [vi("a", [2, 3])], [vi("y", [2, 3])], value_info=[vi("r", [2, 3])], opset=12)
    assert v.status is Status.VIOLATED, v
    # the same lie told by the declaration of r as a graph output
    v = check(tmp_path, nodes, [vi("a", [2, 3])], [vi("y", None), vi("r", [2, 3])], opset=12)
    assert v.status is Status.VIOLATED, v
    # an initializer of 1 row that a value_info entry claims has 2
    w = helper.make_tensor("w", TensorProto.FLOAT, [1, 3], [1.0, 2.0, 3.0])
    nodes = [helper.make_node("Add", ["w", "a"], ["y"], name="add")]
    v = check(tmp_path, nodes, [vi("a", [2, 3])], [vi("y", None)], initializer=[w], value_info=[vi("w", [2, 3])])
    assert v.status is Status.VIOLATED, v


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_nested_graph_input_declaration_is_not_a_shape(tmp_path: Path) -> None:
    # the loop-carried value is [1, 3] at run time; the body's input declares [2, 3]: Add broadcasts it to w
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3], [1.0] * 6)
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]), helper.make_node("Add", ["v", "w"], ["v_out"], name="add")],
        "body", [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                 helper.make_tensor_value_info("c", TensorProto.BOOL, []), vi("v", [2, 3])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), vi("v_out", [2, 3])],
    )
    loop = helper.make_node("Loop", ["", "", "a"], ["y"], name="loop", body=body)
    v = check(tmp_path, [loop], [vi("a", [1, 3])], [vi("y", None)], initializer=[w])
    assert v.status is not Status.PROVED, v


@pytest.mark.rule("STRICT-BROADCAST")
def test_multidirectional_broadcast_names_both_shapes(tmp_path: Path) -> None:
    v = add(tmp_path, [2, 3], [3])
    assert v.status is Status.VIOLATED
    (f,) = data(v)["operations"]
    assert f["operation"] == "Add:add" and f["scope"] == "main" and f["operator"] == "ai.onnx::Add-14"
    assert f["kind"] == MULTI
    assert f["operands"] == [
        {"position": 0, "tensor": "a", "shape": [2, 3]},
        {"position": 1, "tensor": "b", "shape": [3]},
    ]
    # a dimension of 1 stretched is broadcasting too, whatever the ranks
    assert add(tmp_path, [2, 3], [1, 3]).status is Status.VIOLATED


@pytest.mark.rule("STRICT-BROADCAST")
def test_open_shapes_are_unknown_never_proved(tmp_path: Path) -> None:
    v = add(tmp_path, ["N", 3], ["M", 3])
    assert v.status is Status.UNKNOWN and "symbolic dimensions differ" in (v.reason or "")
    v = add(tmp_path, [2, 3], None)
    assert v.status is Status.UNKNOWN and "'b'" in (v.reason or "")
    # but a certain difference is decided even beside an unknown dimension
    assert add(tmp_path, [2, None], [3]).status is Status.VIOLATED


@pytest.mark.rule("STRICT-BROADCAST")
def test_shapes_come_from_onnx_inference(tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Add", ["r", "a"], ["y"], name="add")]
    # r has no declared type: onnx's inference gives it [2, 3]
    assert check(tmp_path, nodes, [vi("a", [2, 3])], [vi("y", None)]).status is Status.PROVED
    nodes = [helper.make_node("ReduceSum", ["a"], ["r"], keepdims=1), helper.make_node("Add", ["r", "a"], ["y"])]
    assert check(tmp_path, nodes, [vi("a", [2, 3])], [vi("y", None)]).status is Status.VIOLATED


@pytest.mark.rule("STRICT-BROADCAST")
def test_gemm_bias_is_broadcast_unidirectionally(tmp_path: Path) -> None:
    def gemm(bias: list[int]) -> Verdict:
        node = helper.make_node("Gemm", ["a", "w", "c"], ["y"], name="fc", transB=1)
        return check(tmp_path, [node], [vi("a", [1, 4]), vi("w", [5, 4]), vi("c", bias)], [vi("y", [1, 5])])

    v = gemm([5])
    (f,) = data(v)["operations"]
    assert f["kind"] == UNI and f["operands"] == [{"position": 2, "tensor": "c", "shape": [5]}]
    assert f["target"] == {"output": 0, "tensor": "y", "shape": [1, 5]}
    assert gemm([1, 5]).status is Status.PROVED


@pytest.mark.rule("STRICT-BROADCAST")
def test_matmul_batch_dimensions(tmp_path: Path) -> None:
    def matmul(a: list[int], b: list[int]) -> Status:
        node = helper.make_node("MatMul", ["a", "b"], ["y"])
        return check(tmp_path, [node], [vi("a", a), vi("b", b)], [vi("y", None)]).status

    assert matmul([3, 4], [4, 5]) is Status.PROVED
    assert matmul([2, 3, 4], [2, 4, 5]) is Status.PROVED
    assert matmul([2, 3, 4], [4, 5]) is Status.VIOLATED  # the matrix is used once per batch entry


@pytest.mark.rule("STRICT-BROADCAST")
def test_legacy_broadcast_attribute(tmp_path: Path) -> None:
    def legacy(flag: int | None, b: list[int]) -> Status:
        kw = {} if flag is None else {"broadcast": flag}
        node = helper.make_node("Add", ["a", "b"], ["y"], **kw)
        return check(tmp_path, [node], [vi("a", [2, 3]), vi("b", b)], [vi("y", [2, 3])], opset=6).status

    assert legacy(1, [3]) is Status.VIOLATED
    assert legacy(1, [2, 3]) is Status.PROVED
    assert legacy(None, [2, 3]) is Status.PROVED


@pytest.mark.rule("STRICT-BROADCAST")
def test_einsum_ellipsis_is_not_analysed(tmp_path: Path) -> None:
    node = helper.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,...jk->...ik")
    v = check(tmp_path, [node], [vi("a", [2, 3, 4]), vi("b", [4, 5])], [vi("y", None)])
    assert v.status is Status.UNKNOWN and "ellipsis" in (v.reason or "")


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_model_in_memory_is_unknown() -> None:
    g = make_graph("main", ["a", "b"], ["y"], [op("Add", ["a", "b"], ["y"])])
    v = run(ID, model(g), STRICT)
    assert v.status is Status.UNKNOWN and "not read from a file" in (v.reason or "")


@pytest.mark.rule("STRICT-BROADCAST")
def test_same_decides_only_what_the_shapes_say() -> None:
    assert same((2, "N"), (2, "N")) is True
    assert same((2, 3), (2, 3, 1)) is False and same((2, "N"), (3, "N")) is False
    assert same((2, None), (2, None)) is None and same(("N",), (4,)) is None and same(None, (1,)) is None


# The operators' own texts are the source of the table: every schema version of the default domain whose
# documentation speaks of multidirectional or unidirectional broadcasting, or that has a broadcast attribute,
# is in it with that kind; nothing else is, except these (with the reason).
OTHER = {
    "MatMul": BATCH, "MatMulInteger": BATCH, "QLinearMatMul": BATCH,  # "behaves like numpy.matmul"
    "Einsum": ELLIPSIS,  # broadcasting over an ellipsis of the equation
    "StringConcat": MULTI,  # its text says "NumPy-style broadcasting", not "multidirectional"
}
NOT_IMPLICIT = {"Expand", "Tile", "SwiGLU"}
"""Texts that speak of broadcasting without implying any: Expand and Tile broadcast explicitly, SwiGLU refuses."""


@pytest.mark.rule("STRICT-BROADCAST")
@pytest.mark.parametrize("schema", [s for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""],
                         ids=lambda s: f"{s.name}-{s.since_version}")
def test_table_follows_the_operator_texts(schema: Any) -> None:
    doc = (schema.doc or "").lower()
    entry = broadcasting(schema.name, schema.since_version)
    kind = entry.kind if entry is not None else None
    if "broadcast" in schema.attributes:
        assert kind == LEGACY
    elif "multidirectional" in doc:
        assert kind == MULTI
    elif "unidirectional" in doc:
        assert kind == UNI
    elif schema.name in OTHER:
        assert kind == OTHER[schema.name]
    else:
        assert kind is None, (schema.name, "broadcast" in doc and schema.name not in NOT_IMPLICIT)


# -- what the table and the decision say in full, not just their kinds (mutation campaign) ---------------------


@pytest.mark.rule("STRICT-BROADCAST")
@pytest.mark.parametrize(
    ("operator", "since", "entry"),
    [
        ("Add", 1, Entry(LEGACY, (1,), ("input", 0))),
        ("Add", 7, Entry(MULTI)),
        ("Gemm", 6, Entry(LEGACY, (2,), ("output", 0))),
        ("Gemm", 7, Entry(UNI, (2,), ("output", 0))),
        ("PRelu", 7, Entry(UNI, (1,), ("input", 0))),
        ("PRelu", 6, None),
        ("LayerNormalization", 17, Entry(UNI, (1, 2), ("input", 0))),
        ("RMSNormalization", 23, Entry(UNI, (1,), ("input", 0))),
        ("MatMul", 13, Entry(BATCH, (0, 1))),
        ("QLinearMatMul", 10, Entry(BATCH, (0, 3))),
        ("Sum", 8, Entry(MULTI)),
        ("Sum", 6, None),
        ("Where", 9, Entry(MULTI)),
        ("Relu", 14, None),
    ],
)
def test_each_entry_names_its_operands_and_target(operator: str, since: int, entry: Entry | None) -> None:
    assert broadcasting(operator, since) == entry


@pytest.mark.rule("STRICT-BROADCAST")
def test_layer_normalization_broadcasts_scale_and_bias_to_x(tmp_path: Path) -> None:
    def ln(scale: list[int], bias: list[int]) -> Verdict:
        node = helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], name="ln")
        return check(tmp_path, [node], [vi("x", [2, 4]), vi("s", scale), vi("b", bias)], [vi("y", None)])

    assert ln([2, 4], [2, 4]).status is Status.PROVED
    v = ln([2, 4], [4])  # only the bias is stretched
    (f,) = data(v)["operations"]
    assert f["kind"] == UNI and f["target"] == {"input": 0, "tensor": "x", "shape": [2, 4]}
    assert f["operands"] == [
        {"position": 1, "tensor": "s", "shape": [2, 4]},
        {"position": 2, "tensor": "b", "shape": [4]},
    ]
    assert ln([4], [2, 4]).status is Status.VIOLATED


@pytest.mark.rule("STRICT-BROADCAST")
def test_an_open_target_names_the_tensors_without_a_shape(tmp_path: Path) -> None:
    node = helper.make_node("PRelu", ["x", "slope"], ["y"], name="p")
    v = check(tmp_path, [node], [vi("x", None), vi("slope", [3])], [vi("y", None)])
    assert v.status is Status.UNKNOWN
    assert v.reason == "whether 1 operation(s) broadcast is not established: PRelu:p in main: shapes of 'x' not known"


@pytest.mark.rule("STRICT-BROADCAST")
def test_the_batch_rule_applies_as_soon_as_one_operand_has_batch_dimensions(tmp_path: Path) -> None:
    def matmul(a: list[int], b: list[int]) -> Status:
        node = helper.make_node("MatMul", ["a", "b"], ["y"])
        return check(tmp_path, [node], [vi("a", a), vi("b", b)], [vi("y", None)]).status

    assert matmul([4], [4, 5]) is Status.PROVED  # vectors and matrices: no batch dimension at all
    assert matmul([2, 3, 4], [4]) is Status.VIOLATED
    assert matmul([1, 3, 4], [2, 4, 5]) is Status.VIOLATED  # a batch of 1 stretched to 2


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_violation_counts_the_undetermined_operations_beside_it(tmp_path: Path) -> None:
    nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="bad"), helper.make_node("Add", ["s", "c"], ["y"])]
    v = check(tmp_path, nodes, [vi("a", [2, 3]), vi("b", [3]), vi("c", ["N", 3])], [vi("y", None)])
    assert v.status is Status.VIOLATED
    assert data(v)["undetermined_count"] == 1 and data(v)["count"] == 1


@pytest.mark.rule("STRICT-BROADCAST")
def test_legacy_broadcast_zero_does_not_broadcast(tmp_path: Path) -> None:
    node = helper.make_node("Add", ["a", "b"], ["y"], broadcast=0)
    v = check(tmp_path, [node], [vi("a", [2, 3]), vi("b", [3])], [vi("y", [2, 3])], opset=6)
    assert v.status is Status.PROVED


@pytest.mark.rule("STRICT-BROADCAST")
def test_initializer_shapes_and_outer_scopes(tmp_path: Path) -> None:
    # the bias is an initializer with no value info, read by an If branch from the enclosing graph
    bias = helper.make_tensor("bias", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
    add_in_branch = helper.make_node("Add", ["a", "bias"], ["t"], name="inner")
    branch = helper.make_graph([add_in_branch], "then", [], [vi("t", None)])
    other = helper.make_graph([helper.make_node("Identity", ["a"], ["e"])], "else", [], [vi("e", None)])
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=other)
    inputs = [vi("a", [2, 3]), helper.make_tensor_value_info("c", TensorProto.BOOL, [])]
    v = check(tmp_path, [node], inputs, [vi("y", None)], initializer=[bias])
    assert v.status is Status.VIOLATED
    (f,) = data(v)["operations"]
    assert f["operation"] == "Add:inner" and f["operands"][1] == {"position": 1, "tensor": "bias", "shape": [3]}


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_file_onnx_cannot_read_is_unknown(tmp_path: Path) -> None:
    g = make_graph("main", ["a", "b"], ["y"], [op("Add", ["a", "b"], ["y"])])
    m = model(g)
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x08")  # a truncated protobuf
    v = run(ID, dataclasses.replace(m, source=str(path)), STRICT)
    assert v.status is Status.UNKNOWN and (v.reason or "").startswith("no inferred types: ")
    assert str(path) not in (v.reason or "")  # the same reason wherever the file lies (evidence replays)


# -- survivors of the targeted mutation run over this module (docs/mutation.rst) -------------------------------


@pytest.mark.rule("STRICT-BROADCAST")
def test_open_shapes_give_exact_reasons_and_the_rules_severity(tmp_path: Path) -> None:
    lead = "whether 1 operation(s) broadcast is not established: Add:add in main: "
    v = add(tmp_path, ["N", 3], ["M", 3])
    assert v.reason == lead + "symbolic dimensions differ"
    assert v.severity is Severity.ERROR
    v = add(tmp_path, None, [2, None])
    assert v.reason == lead + "shapes of 'a', 'b' not known"
    assert v.severity is Severity.ERROR


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_witness_shows_unknown_dimensions_and_ranks(tmp_path: Path) -> None:
    v = add(tmp_path, [2, None], [3])
    (f,) = data(v)["operations"]
    assert f["index"] == 0 and f["operands"][0]["shape"] == [2, "?"]
    node = helper.make_node("Gemm", ["a", "w", "c"], ["y"], name="fc")
    v = check(tmp_path, [node], [vi("a", [1, 4]), vi("w", [4, 5]), vi("c", [2, 5])], [vi("y", None)])
    (f,) = data(v)["operations"]
    assert f["operands"] == [{"position": 2, "tensor": "c", "shape": [2, 5]}]
    assert f["target"]["shape"] == [1, 5]


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_unidirectional_entry_with_an_omitted_operand(tmp_path: Path) -> None:
    # LayerNormalization with no B: only Scale is compared with X
    node = helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln")
    assert check(tmp_path, [node], [vi("x", [2, 4]), vi("s", [2, 4])], [vi("y", None)]).status is Status.PROVED
    node = helper.make_node("LayerNormalization", ["x", "s", ""], ["y"], name="ln")
    assert check(tmp_path, [node], [vi("x", [2, 4]), vi("s", [4])], [vi("y", None)]).status is Status.VIOLATED


@pytest.mark.rule("STRICT-BROADCAST")
def test_matmul_with_an_operand_of_unknown_rank_is_unknown(tmp_path: Path) -> None:
    node = helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")
    for a, b, name in (([4, 5], None, "b"), (None, [4, 5], "a")):
        v = check(tmp_path, [node], [vi("a", a), vi("b", b)], [vi("y", None)])
        assert v.status is Status.UNKNOWN
        assert v.reason is not None and v.reason.endswith(f"shapes of '{name}' not known")


@pytest.mark.rule("STRICT-BROADCAST")
def test_einsum_without_an_equation_does_not_broadcast(tmp_path: Path) -> None:
    node = helper.make_node("Einsum", ["a", "b"], ["y"])
    assert check(tmp_path, [node], [vi("a", [2, 3]), vi("b", [3, 4])], [vi("y", None)]).status is Status.PROVED


@pytest.mark.rule("STRICT-BROADCAST")
@pytest.mark.parametrize("first", [helper.make_node("NotAnOp", ["a"], ["t"]),
                                   helper.make_node("Fancy", ["a"], ["t"], domain="com.vendor")])
def test_operations_after_an_unexamined_one_are_still_checked(tmp_path: Path, first: onnx.NodeProto) -> None:
    nodes = [first, helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    g = helper.make_graph(nodes, "main", [vi("a", [2, 3]), vi("b", [3])], [vi("y", None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.vendor", 1)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "m.onnx"))
    v = run(ID, load_model(tmp_path / "m.onnx"), STRICT)
    assert v.status is Status.VIOLATED and data(v)["operations"][0]["index"] == 1


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_source_path_that_is_no_file_is_unknown(tmp_path: Path) -> None:
    g = make_graph("main", ["a", "b"], ["y"], [op("Add", ["a", "b"], ["y"])])
    v = run(ID, dataclasses.replace(model(g), source=str(tmp_path / "gone.onnx")), STRICT)
    assert v.reason == "the model was not read from a file (STRICT-BROADCAST reads the shapes onnx infers for it)"
    assert v.severity is Severity.ERROR


@pytest.mark.rule("STRICT-BROADCAST")
def test_the_rule_reads_no_weight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sonnx.loader.derived as derived  # a model in memory is read again there
    import sonnx.loader.load as load  # the check of a file reads the derived types with the model there

    seen: list[object] = []
    real = derived.load_model

    def spy(path: str, **kw: object) -> object:
        seen.append(kw.get("read_weights", "not given"))
        return real(path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(derived, "load_model", spy)
    assert add(tmp_path, [2, 3], [2, 3]).status is Status.PROVED
    assert seen == [False]
    # the check of the file: the model with its weights, the inferred one (from the same bytes) without
    loads: list[tuple[bool, bool]] = []
    real_load = load._load

    def spy_load(path: str, display: str, read_weights: bool, *args: Any, **kw: Any) -> Any:
        loads.append((read_weights, len(args) > 1 and args[1] is not None))  # args[1]: the inferred bytes
        return real_load(path, display, read_weights, *args, **kw)

    monkeypatch.setattr(load, "_load", spy_load)
    report = check_file(str(tmp_path / "m.onnx"), CheckOptions(profile=PROFILE_STRICT, engine="direct"))
    assert report.error is None, report.error
    v = report.verdict(ID)
    assert v is not None and v.status is Status.PROVED, v
    assert loads == [(True, False), (False, True)]


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_single_operand_with_an_unknown_dimension_broadcasts_nothing(tmp_path: Path) -> None:
    node = helper.make_node("Sum", ["a"], ["y"])
    assert check(tmp_path, [node], [vi("a", [None, 3])], [vi("y", None)]).status is Status.PROVED


@pytest.mark.rule("STRICT-BROADCAST")
def test_an_operand_of_unknown_rank_is_shown_as_such(tmp_path: Path) -> None:
    node = helper.make_node("Sum", ["a", "b", "c"], ["y"])
    v = check(tmp_path, [node], [vi("a", [2, 3]), vi("b", [3]), vi("c", None)], [vi("y", None)])
    (f,) = data(v)["operations"]
    assert f["operands"][2] == {"position": 2, "tensor": "c", "shape": "unknown rank"}


@pytest.mark.rule("STRICT-BROADCAST")
def test_the_ellipsis_reason_and_an_unreadable_files_severity(tmp_path: Path) -> None:
    node = helper.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,...jk->...ik")
    v = check(tmp_path, [node], [vi("a", [2, 3, 4]), vi("b", [4, 5])], [vi("y", None)])
    assert v.reason == ("whether 1 operation(s) broadcast is not established: Einsum:y in main: its equation has an "
                        "ellipsis, whose broadcasting is not analysed")
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x08")
    g = make_graph("main", ["a", "b"], ["y"], [op("Add", ["a", "b"], ["y"])])
    v = run(ID, dataclasses.replace(model(g), source=str(path)), STRICT)
    assert v.status is Status.UNKNOWN and v.severity is Severity.ERROR


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING", "STRICT-BROADCAST")
def test_a_call_of_a_local_function_of_the_default_domain_is_not_the_standard_operator(tmp_path: Path) -> None:
    # the model defines its own ai.onnx "Add" (GRAPH-FUNCTION-SHADOWING's business): its body is checked, the
    # call is not read as the standard Add broadcasting [3] to [2, 3]
    body = [helper.make_node("Sub", ["p", "q"], ["r"])]
    fn = helper.make_function("", "Add", ["p", "q"], ["r"], body, [helper.make_opsetid("", 17)])
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "main", [vi("a", [2, 3]), vi("b", [3])],
                          [vi("y", None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], functions=[fn])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "m.onnx"))
    v = run(ID, load_model(tmp_path / "m.onnx"), STRICT)
    assert v.status is Status.UNKNOWN and "Sub:r in function Add" in (v.reason or "")


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_function_value_info_is_not_a_shape(tmp_path: Path) -> None:
    # the body declares p and q as [2, 3]; a call may give them any shapes, and no runtime checks the declaration
    body = [helper.make_node("Sub", ["p", "q"], ["r"])]
    fn = helper.make_function("local", "F", ["p", "q"], ["r"], body, [helper.make_opsetid("", 17)])
    fn.value_info.extend([vi("p", [2, 3]), vi("q", [2, 3])])
    g = helper.make_graph([helper.make_node("F", ["a", "b"], ["y"], domain="local")], "main",
                          [vi("a", [2, 3]), vi("b", [3])], [vi("y", None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[fn])
    m.ir_version = 10
    onnx.save(m, str(tmp_path / "m.onnx"))
    v = run(ID, load_model(tmp_path / "m.onnx"), STRICT)
    assert v.status is Status.UNKNOWN, v
    assert "Sub:r in function local.F: shapes of 'p', 'q' not known" in (v.reason or "")

