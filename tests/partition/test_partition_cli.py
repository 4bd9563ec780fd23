"""``sonnx partition`` end to end: produce, check, schema, exit codes, one-line errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.partition import PartitionFormatError, load_partition, partition_from_json
from tests.common.cli import sonnx

ROOT = Path(__file__).resolve().parents[2]
CNN = str(ROOT / "examples" / "cnn_block.onnx")


def call(*argv: str) -> tuple[int, str, str]:
    return sonnx("partition", *argv)


def two_convex_sets(path: Path) -> Path:
    """a1 -> b1 and b2 -> a2, with a1, a2 unconnected and b1, b2 unconnected: each pair is convex on its own."""
    vi = helper.make_tensor_value_info
    nodes = [
        helper.make_node("Relu", ["x"], ["a1"], name="a1"),
        helper.make_node("Neg", ["a1"], ["b1"], name="b1"),
        helper.make_node("Neg", ["x"], ["b2"], name="b2"),
        helper.make_node("Relu", ["b2"], ["a2"], name="a2"),
        helper.make_node("Add", ["b1", "a2"], ["y"], name="y"),
    ]
    g = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def test_produce_then_check_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    code, text, err = call(CNN, "--provider", "NPU=Conv,Relu", "--provider", "DSP=Gemm", "-o", str(out))
    assert code == 0, err
    assert "PARTITION-ACYCLIC" in text and "VIOLATED" not in text
    part = load_partition(str(out))
    assert {s.device for s in part.subgraphs} >= {"NPU", "DSP"}
    code, text, _ = call("--check", CNN, str(out), "--execute", "--json")
    assert code == 0
    report = json.loads(text)
    assert report["outcome"] == "TESTED"  # the partitioned run is compared on one input set
    assert [v["rule"] for v in report["verdicts"]][-1] == "PARTITION-EXEC"


def test_without_output_the_partition_goes_to_stdout(tmp_path: Path) -> None:
    code, text, err = call(CNN, "--provider", "NPU=Conv")
    assert code == 0
    assert json.loads(text)["format"] == "sonnx-partition"
    assert "PARTITION-COVER" in err


def test_bare_list_from_another_tool_is_accepted(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    assert call(CNN, "--provider", "NPU=Conv,Relu", "-o", str(out))[0] == 0
    subs = json.loads(out.read_text())["subgraphs"]
    for s in subs:  # protobuf JSON spelling, no device
        s["constantInitializers"] = s.pop("constant_initializers")
        del s["device"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(subs))
    assert call("--check", CNN, str(bare))[0] == 0


def test_the_two_way_dependency_is_refused_by_the_checker_and_avoided_by_the_partitioner(tmp_path: Path) -> None:
    model = str(two_convex_sets(tmp_path / "m.onnx"))
    bad = [
        {"id": "A", "inputs": ["x", "b2"], "outputs": ["a1", "a2"], "nodes": ["a1", "a2"], "device": "NPU"},
        {"id": "B", "inputs": ["x", "a1"], "outputs": ["b1", "b2"], "nodes": ["b1", "b2"], "device": "DSP"},
        {"id": "C", "inputs": ["b1", "a2"], "outputs": ["y"], "nodes": ["y"], "device": "CPU"},
    ]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    code, text, _ = call("--check", model, str(p), "--json")
    assert code == 1
    v = {x["rule"]: x for x in json.loads(text)["verdicts"]}["PARTITION-ACYCLIC"]
    assert v["status"] == "VIOLATED" and v["engine"] == "smt"
    assert sorted((c["from"], c["to"]) for c in v["witness"]["cycle"]) == [("A", "B"), ("B", "A")]
    out = tmp_path / "good.json"
    code, _, err = call(model, "--provider", "NPU=Relu", "--provider", "DSP=Neg", "-o", str(out), "--execute")
    assert code == 0, err
    assert len(load_partition(str(out)).subgraphs) > 3  # the NPU (or DSP) pair had to be split


def test_fused_model_is_written_and_checked(tmp_path: Path) -> None:
    fused = tmp_path / "f.onnx"
    code, text, err = call(
        CNN, "--provider", "NPU=Conv,Relu", "-o", str(tmp_path / "p.json"), "--fused", str(fused), "--execute"
    )
    assert code == 0, text + err
    m = onnx.load(str(fused))
    onnx.checker.check_model(m)
    assert {n.domain for n in m.graph.node} == {"sonnx.partition"}
    assert any(o.domain == "sonnx.partition" for o in m.opset_import)
    from sonnx.cli import check_main

    assert check_main([str(fused), "-q"], stdout=io.StringIO(), stderr=io.StringIO()) == 0


def test_invalid_partition_exits_1_with_witness(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    call(CNN, "--provider", "NPU=Conv,Relu", "-o", str(out))
    data = json.loads(out.read_text())
    data["subgraphs"][0]["outputs"] = []
    out.write_text(json.dumps(data))
    code, text, _ = call("--check", CNN, str(out), "--execute", "--fused", str(tmp_path / "f.onnx"))
    assert code == 1
    assert "PARTITION-OUTPUTS  VIOLATED" in text and "true outputs not declared" in text
    assert "PARTITION-FUSED    UNKNOWN" in text and "PARTITION-EXEC     UNKNOWN" in text
    assert not (tmp_path / "f.onnx").exists()


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "not JSON"),
        ('{"subgraphs": []}', "format"),
        ('[{"id": "a", "inputs": [], "outputs": []}]', "missing field 'nodes'"),
        ('[{"id": "a", "inputs": [1], "outputs": [], "nodes": []}]', "list of strings"),
        ('[{"id": "a", "inputs": [], "outputs": [], "nodes": [], "colour": "red"}]', "unknown field"),
        ('"text"', "expected a list"),
    ],
)
def test_unreadable_partitions_exit_2_on_one_line(tmp_path: Path, content: str, message: str) -> None:
    p = tmp_path / "p.json"
    p.write_text(content)
    code, out, err = call("--check", CNN, str(p))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        ([CNN], "--provider"),
        ([CNN, "--provider", "NPU"], "NAME=OPS"),
        ([CNN, "--provider", "N-1=Conv"], "letters"),
        ([CNN, "--provider", "CPU=Conv"], "given twice"),
        (["--check", CNN], "MODEL PARTITION.json"),
        (["/no/such/model.onnx", "--provider", "A=Relu"], "no such file"),
        ([CNN, "--provider", "A=Relu", "--inputs", "x.npz"], "add --execute"),
        ([CNN, "--provider", "A=Relu", "--json"], "-o"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str) -> None:
    code, _, err = call(*argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_model_whose_nodes_cannot_be_named_exits_2() -> None:
    code, _, err = call(str(ROOT / "examples" / "c1_two_producers.onnx"), "--provider", "A=Add")
    assert code == 2 and "seed 003" in err


def test_schema_reader_rejects_non_list() -> None:
    with pytest.raises(PartitionFormatError):
        partition_from_json({"format": "sonnx-partition", "version": 2, "subgraphs": []})


def test_repeated_declarations_are_found_without_quadratic_counting() -> None:
    """Declared lists are tallied once, not counted again per name (a quadratic cost)."""
    from sonnx.partition.verify import _compare

    class NoCount(list):  # type: ignore[type-arg]
        def count(self, _x: object) -> int:
            raise AssertionError("quadratic: count() called per element")

    declared = NoCount([f"in{k}" for k in range(1000)] + ["in3", "in3"])
    got = _compare(declared, ["in0"])
    assert got["repeated"] == ["in3"] and got["missing"] == [] and len(got["extra"]) == 1001
