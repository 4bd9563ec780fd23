"""FORMAT-ONNX (REQ-FO-000): onnx.checker's full check on the model file, its findings, its limits and crashes."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.verdict import Severity, Status
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.loader import load_model, sandbox
from sonnx.rules import format_onnx
from sonnx.rules.base import CheckConfig
from tests.common.rulekit import model, run, seed_example

ID = "FORMAT-ONNX"
vi = helper.make_tensor_value_info


def save(m: onnx.ModelProto, path: Path, **kw: object) -> Path:
    m.ir_version = 8
    onnx.save(m, str(path), **kw)  # type: ignore[arg-type]
    return path


def reshape_model(shape_name: str = "shape") -> onnx.ModelProto:
    """y = reshape(x + w, shape): shape inference needs the value of the initializer ``shape``."""
    w = numpy_helper.from_array(np.ones((2, 2), np.float32), "w")
    shape = numpy_helper.from_array(np.array([4, 1], np.int64), shape_name)
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["s"], name="add"),
         helper.make_node("Reshape", ["s", shape_name], ["y"], name="reshape")],
        "g", [vi("x", TensorProto.FLOAT, [2, 2])], [vi("y", TensorProto.FLOAT, [4, 1])], [w, shape],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def verdict(path: Path, structure_only: bool = False) -> object:
    m = load_model(str(path), read_weights=not structure_only)
    return run(ID, m, CheckConfig(read_weights=not structure_only))


@pytest.mark.rule("FORMAT-ONNX")
def test_a_valid_model_is_proved(tmp_path: Path) -> None:
    v = verdict(save(reshape_model(), tmp_path / "m.onnx"))
    assert v.status is Status.PROVED  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_checker_findings_are_a_witness(tmp_path: Path) -> None:
    # nodes stored out of topological order: valid for the SONNX graph rules, not for the ONNX format
    g = helper.make_graph(
        [helper.make_node("Relu", ["a"], ["y"], name="second"), helper.make_node("Abs", ["x"], ["a"], name="first")],
        "g", [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])],
    )
    path = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "u.onnx")
    v = verdict(path)
    assert v.status is Status.VIOLATED  # type: ignore[attr-defined]
    w = v.witness  # type: ignore[attr-defined]
    assert "topologically sorted" in w.summary and "\n" not in w.summary
    assert w.data["stage"] == "structure"
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(str(path), full_check=True)  # the same answer as the checker's own


@pytest.mark.rule("FORMAT-ONNX")
def test_strict_shape_inference_findings_are_a_witness(tmp_path: Path) -> None:
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "n"], ["y"], name="add")],
        "g", [vi("x", TensorProto.FLOAT, [2]), vi("n", TensorProto.INT64, [2])], [vi("y", TensorProto.FLOAT, [2])],
    )
    path = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "t.onnx")
    onnx.checker.check_model(str(path))  # the structural check alone accepts it: only full_check refuses it
    v = verdict(path)
    assert v.status is Status.VIOLATED  # type: ignore[attr-defined]
    assert v.witness.data["stage"] == "shape inference"  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_operands_of_different_types_are_refused_so_nothing_converts_implicitly(tmp_path: Path) -> None:
    # the working group's GR3 (no implicit type conversion): an Add of FLOAT and INT64 breaks the operator's type
    # constraint, which onnx's strict shape inference refuses; a conversion must be a Cast of its own
    g = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"], name="add")],
        "g", [vi("a", TensorProto.FLOAT, [2]), vi("b", TensorProto.INT64, [2])], [vi("c", TensorProto.FLOAT, [2])],
    )
    v = verdict(save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "t.onnx"))
    assert v.status is Status.VIOLATED  # type: ignore[attr-defined]
    assert "inconsistent type" in v.witness.summary and v.witness.data["stage"] == "shape inference"  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_external_data_is_checked_through_the_path(tmp_path: Path) -> None:
    path = save(reshape_model(), tmp_path / "e.onnx", save_as_external_data=True, location="e.data",
                size_threshold=0)
    # onnx's own full check on the path stops at the external shape tensor: a limit of the checker
    with pytest.raises(onnx.shape_inference.InferenceError, match="external"):
        onnx.checker.check_model(str(path), full_check=True)
    assert verdict(path).status is Status.PROVED  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_structure_only_is_unknown_when_shape_inference_needs_external_data(tmp_path: Path) -> None:
    path = save(reshape_model(), tmp_path / "e.onnx", save_as_external_data=True, location="e.data",
                size_threshold=0)
    v = verdict(path, structure_only=True)
    assert v.status is Status.UNKNOWN and "--structure-only" in v.reason  # type: ignore[attr-defined]


PROC_IO = Path("/proc/self/io")


@pytest.mark.rule("FORMAT-ONNX")
@pytest.mark.xfail(
    not PROC_IO.is_file(),
    reason="deviation: the bytes a process reads are counted from Linux's /proc/self/io (onnx.checker reads files "
    "from C++, which no Python audit hook sees); without it the count cannot be taken",
    strict=True,
)
def test_structure_only_reads_no_byte_of_external_data(tmp_path: Path) -> None:
    # a 64 MiB external weight: the check under --structure-only reads far less than that
    big = numpy_helper.from_array(np.zeros((4096, 4096), np.float32), "big")
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "big"], ["y"], name="add")],
        "g", [vi("x", TensorProto.FLOAT, [4096, 4096])], [vi("y", TensorProto.FLOAT, [4096, 4096])], [big],
    )
    path = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "b.onnx",
                save_as_external_data=True, location="b.data", size_threshold=0)
    def rchar() -> int:
        return int(next(line for line in PROC_IO.read_text().splitlines() if line.startswith("rchar")).split()[1])

    before = rchar()
    report = check_file(str(path), CheckOptions(engine="direct", structure_only=True))
    read = rchar() - before
    assert {v.rule_id: v.status for v in report.verdicts}[ID] is Status.PROVED
    assert os.path.getsize(tmp_path / "b.data") == 64 * 2**20
    assert read < 8 * 2**20, f"{read} bytes read"


@pytest.mark.rule("FORMAT-ONNX")
def test_a_file_the_checkers_parser_cannot_read_is_unknown(tmp_path: Path) -> None:
    from sonnx.loader import wire

    path = tmp_path / "deep.onnx"
    path.write_bytes(wire.encode_nested_if_model(150))  # 150 nested If: sonnx's loader reads it, protobuf's stops
    with pytest.raises(onnx.checker.ValidationError, match="Unable to parse"):
        onnx.checker.check_model(str(path), full_check=True)
    v = verdict(path)
    assert v.status is Status.UNKNOWN and v.severity is Severity.ERROR  # type: ignore[attr-defined]
    assert v.reason == (  # type: ignore[attr-defined]
        "onnx.checker's protobuf parser could not read the file, which sonnx's loader decoded (protobuf "
        "stops at 100 levels of nesting, for one); the checker could not run"
    )


@pytest.mark.rule("FORMAT-ONNX")
def test_a_model_not_read_from_a_file_is_unknown() -> None:
    v = run(ID, model(seed_example()))
    assert v.status is Status.UNKNOWN and "not read from a file" in (v.reason or "")


@pytest.mark.rule("FORMAT-ONNX")
def test_a_crash_of_the_checker_is_unknown_never_a_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save(reshape_model(), tmp_path / "m.onnx")

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("checker\nexploded")

    monkeypatch.setattr(onnx.checker, "check_model", boom)
    v = verdict(path)
    assert v.status is Status.UNKNOWN  # type: ignore[attr-defined]
    assert v.reason == "onnx.checker failed: RuntimeError: checker exploded"  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_the_rule_is_in_the_base_profile_and_left_out_for_graphs_only() -> None:
    from sonnx.rules import rule_by_id, rules_for

    rule = rule_by_id(format_onnx.ID)
    assert rule in rules_for("sonnx") and rule.module == format_onnx.__name__
    assert rule not in rules_for("sonnx", graph_only=True)


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-C3")
def test_an_input_or_initializer_passed_through_as_an_output_is_valid_onnx(tmp_path: Path) -> None:
    # the reading D3 of the spec: ONNX accepts such outputs, and so do FORMAT-ONNX and GRAPH-C3
    w = numpy_helper.from_array(np.ones(2, np.float32), "w")
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, [2]), vi("x", TensorProto.FLOAT, [2]), vi("w", TensorProto.FLOAT, [2])], [w],
    )
    path = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "p.onnx")
    report = check_file(str(path), CheckOptions(engine="direct"))
    got = {v.rule_id: v.status for v in report.verdicts}
    assert got["FORMAT-ONNX"] is Status.PROVED and got["GRAPH-C3"] is Status.PROVED


# -- the two-step check of a model with external data, and the witness's bounds (mutation campaign) ------------


def external(path: Path, m: onnx.ModelProto | None = None) -> Path:
    """``m`` (default: the Reshape model) with every tensor in external data; the shape tensor is 16 bytes."""
    return save(m if m is not None else reshape_model(), path, save_as_external_data=True, location="e.data",
                size_threshold=0)


@pytest.mark.rule("FORMAT-ONNX")
@pytest.mark.parametrize(("limit", "status"), [(16, Status.PROVED), (15, Status.UNKNOWN)])
def test_external_tensors_up_to_the_limit_are_loaded_for_shape_inference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int, status: Status
) -> None:
    monkeypatch.setattr(format_onnx, "SMALL_EXTERNAL", limit)
    v = verdict(external(tmp_path / "e.onnx"))
    assert v.status is status  # type: ignore[attr-defined]
    if status is Status.UNKNOWN:
        assert "larger than 64 KiB" in v.reason  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_the_size_comes_from_the_dims_when_the_length_entry_is_missing(tmp_path: Path) -> None:
    path = external(tmp_path / "e.onnx")
    m = onnx.load_model(str(path), load_external_data=False)
    for t in m.graph.initializer:
        kept = [e for e in t.external_data if e.key != "length"]
        del t.external_data[:]
        t.external_data.extend(kept)
    onnx.save_model(m, str(path))
    assert verdict(path).status is Status.PROVED  # type: ignore[attr-defined]
    shape = next(t for t in m.graph.initializer if t.name == "shape")
    assert format_onnx._nbytes(shape) == 16
    shape.external_data.add(key="length", value="12")
    assert format_onnx._nbytes(shape) == 12  # the entry wins over the dims
    shape.external_data[-1].value = "sixteen"  # (sonnx's loader refuses such a file before the rule runs)
    assert format_onnx._nbytes(shape) is None


@pytest.mark.rule("FORMAT-ONNX")
def test_a_shape_inference_finding_in_the_two_step_check_is_a_witness(tmp_path: Path) -> None:
    # the declared output shape contradicts the Reshape only once the external shape tensor is read
    m = reshape_model()
    del m.graph.output[:]
    m.graph.output.append(vi("y", TensorProto.FLOAT, [2, 2]))
    v = verdict(external(tmp_path / "e.onnx", m))
    assert v.status is Status.VIOLATED  # type: ignore[attr-defined]
    data = v.witness.data  # type: ignore[attr-defined]
    assert data["stage"] == "shape inference" and data["how"].startswith("check_model(path) then")


@pytest.mark.rule("FORMAT-ONNX")
def test_a_long_message_is_cut_in_the_summary_and_whole_in_the_data() -> None:
    message = "x" * 400 + "\n  end"
    w = format_onnx._finding("structure", message, "how").witness
    assert w is not None
    assert w.data["message"] == "x" * 400 + " end"
    shown = w.summary.split(": ", 1)[1]
    assert len(shown) == format_onnx.MESSAGE_SHOWN and shown.endswith("...")
    short = format_onnx._finding("structure", "y" * format_onnx.MESSAGE_SHOWN, "how").witness
    assert short is not None and short.summary.endswith("y" * format_onnx.MESSAGE_SHOWN)


@pytest.mark.rule("FORMAT-ONNX")
def test_running_out_of_memory_in_the_checker_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save(reshape_model(), tmp_path / "m.onnx")

    def full(*_a: object, **_k: object) -> None:
        raise MemoryError

    monkeypatch.setattr(onnx.checker, "check_model", full)
    v = verdict(path)
    assert v.status is Status.UNKNOWN  # type: ignore[attr-defined]
    assert v.reason.startswith("onnx.checker ran out of memory (its limit: 8 GiB")  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_a_checker_past_its_time_limit_is_stopped_and_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save(reshape_model(), tmp_path / "m.onnx")

    def hangs(*_a: object, **_k: object) -> None:
        time.sleep(60)

    monkeypatch.setattr(onnx.checker, "check_model", hangs)
    monkeypatch.setattr(sandbox, "TIME_LIMIT", 0.5)
    start = time.monotonic()
    v = verdict(path)
    assert time.monotonic() - start < 30
    assert v.status is Status.UNKNOWN  # type: ignore[attr-defined]
    assert v.reason.startswith("onnx.checker exceeded its time limit of 0.5 s")  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_a_checker_past_its_memory_limit_is_unknown_and_this_process_keeps_its_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save(reshape_model(), tmp_path / "m.onnx")
    grabbed: list[bytearray] = []

    def greedy(*_a: object, **_k: object) -> None:
        grabbed.append(bytearray(4 * 1024**3))

    monkeypatch.setattr(onnx.checker, "check_model", greedy)
    monkeypatch.setattr(sandbox, "MEMORY_BUDGET", 1024**3)
    v = verdict(path)
    assert v.status is Status.UNKNOWN  # type: ignore[attr-defined]
    assert v.reason.startswith("onnx.checker ran out of memory (its limit: 1 GiB")  # type: ignore[attr-defined]
    assert grabbed == []  # the allocation, had it succeeded, was the child's


@pytest.mark.rule("FORMAT-ONNX")
def test_every_tensor_of_the_proto_is_visited() -> None:
    t = helper.make_tensor
    init = t("i", TensorProto.FLOAT, [1], [1.0])
    sparse = helper.make_sparse_tensor(t("sv", TensorProto.FLOAT, [1], [1.0]), t("si", TensorProto.INT64, [1], [0]),
                                       [2])
    inner = helper.make_graph([helper.make_node("Constant", [], ["c"], value=t("deep", TensorProto.FLOAT, [1], [2.0]))],
                              "inner", [], [vi("c", TensorProto.FLOAT, [1])], [t("gi", TensorProto.FLOAT, [1], [3.0])])
    node = helper.make_node("If", ["b"], ["y"], then_branch=inner, else_branch=inner)
    g = helper.make_graph([node], "g", [], [], [init], sparse_initializer=[sparse])
    f = helper.make_function("local", "f", [], ["o"], [
        helper.make_node("Constant", [], ["o"], value=t("in_f", TensorProto.FLOAT, [1], [4.0])),
        helper.make_node("Foo", [], [], tensors=[t("listed", TensorProto.FLOAT, [1], [5.0])]),
    ], [helper.make_opsetid("", 17)])
    m = helper.make_model(g, functions=[f])
    names = sorted(x.name for x in format_onnx._tensors(m))
    assert names == sorted(["i", "sv", "si", "deep", "deep", "gi", "gi", "in_f", "listed"])


@pytest.mark.rule("FORMAT-ONNX")
def test_each_verdict_says_how_the_check_ran_and_keeps_the_checkers_message(tmp_path: Path) -> None:
    full = "check_model(path, full_check=True)"
    two = "check_model(path) then strict shape inference with the external tensors of at most 64 KiB loaded"
    g = helper.make_graph(
        [helper.make_node("Relu", ["a"], ["y"], name="second"), helper.make_node("Abs", ["x"], ["a"], name="first")],
        "g", [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])],
    )
    v = verdict(save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "u.onnx"))
    w = v.witness  # type: ignore[attr-defined]
    assert w.data["how"] == full and "topologically sorted" in w.data["message"]
    assert v.severity is Severity.ERROR  # type: ignore[attr-defined]
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "n"], ["y"], name="add")],
        "g", [vi("x", TensorProto.FLOAT, [2]), vi("n", TensorProto.INT64, [2])], [vi("y", TensorProto.FLOAT, [2])],
    )
    v = verdict(save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "t.onnx"))
    w = v.witness  # type: ignore[attr-defined]
    assert w.data["how"] == full and "Add" in w.data["message"]
    m = reshape_model()
    del m.graph.output[:]
    m.graph.output.append(vi("y", TensorProto.FLOAT, [2, 2]))
    v = verdict(external(tmp_path / "e.onnx", m))
    w = v.witness  # type: ignore[attr-defined]
    assert w.data["how"] == two and "Inferred shape and existing shape differ" in w.data["message"]
    assert verdict(external(tmp_path / "p.onnx")).severity is Severity.ERROR  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_the_unknown_verdicts_give_their_exact_reasons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    v = verdict(external(tmp_path / "e.onnx"), structure_only=True)
    assert v.reason == (  # type: ignore[attr-defined]
        "onnx's shape inference needs the value of a tensor kept in external data, and --structure-only "
        "reads no weight; check without --structure-only to complete FORMAT-ONNX"
    )
    assert v.severity is Severity.ERROR  # type: ignore[attr-defined]
    monkeypatch.setattr(format_onnx, "SMALL_EXTERNAL", 0)
    v = verdict(external(tmp_path / "f.onnx"))
    assert v.reason.startswith(  # type: ignore[attr-defined]
        "onnx's shape inference needs the value of an external tensor larger than 64 KiB, which sonnx does not "
        "load for it: "
    )
    assert format_onnx.EXTERNAL_LIMIT in v.reason  # type: ignore[attr-defined]
    assert v.severity is Severity.ERROR  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_a_source_path_that_is_no_file_is_unknown(tmp_path: Path) -> None:
    m = dataclasses.replace(model(seed_example()), source=str(tmp_path / "gone.onnx"))
    v = run(ID, m)
    assert v.reason == (
        "the model was not read from a file nor given as bytes (FORMAT-ONNX checks what the model was read from)"
    )
    assert v.severity is Severity.ERROR


@pytest.mark.rule("FORMAT-ONNX")
def test_unknown_for_a_crash_or_no_memory_keeps_the_rules_severity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save(reshape_model(), tmp_path / "m.onnx")
    for exc in (MemoryError(), RuntimeError("x")):
        def fail(*_a: object, e: BaseException = exc, **_k: object) -> None:
            raise e

        monkeypatch.setattr(onnx.checker, "check_model", fail)
        v = verdict(path)
        assert v.rule_id == ID and v.severity is Severity.ERROR  # type: ignore[attr-defined]


@pytest.mark.rule("FORMAT-ONNX")
def test_the_size_of_a_large_tensor_does_not_overflow() -> None:
    t = helper.make_tensor("big", TensorProto.FLOAT, [1], [0.0])
    del t.dims[:]
    t.dims.extend([2**20, 2**20])  # 2**40 elements of 4 bytes
    assert format_onnx._nbytes(t) == 2**42
