"""Models whose stored values the runtimes read differently (spec, reading A13), end to end.

The example: a Dropout-13 whose ``training_mode`` is a BOOL initializer stored as ``int32_data =
[256]``. onnx's ``numpy_helper`` keeps the low byte (false); onnxruntime reads any non-zero entry as
true and drops elements. No rule may prove determinism from it, the Dropout-removal pass must keep
the node, and every command that executes the model refuses it (exit 2, one line). The same holds
for every other path a value is read by: a ``Constant``'s ``value``, a sparse initializer's values,
external data.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.loader import load_model
from sonnx.rewrite.dropout import DropoutRemoval
from tests.common.cli import check, one_line, sonnx
from tests.common.peers import onnxruntime

P = TensorProto
VI = helper.make_tensor_value_info
REASON = "tensor 't': int32_data: entry 256 outside 0..1, the range of BOOL"


def _bool_256() -> TensorProto:
    t = TensorProto(name="t", data_type=P.BOOL)
    t.int32_data.append(256)
    return t


def _save(path: Path, nodes: list[onnx.NodeProto], inits: list[TensorProto], sparse: list | None = None) -> Path:
    g = helper.make_graph(nodes, "g", [VI("x", P.FLOAT, [1000])], [VI("y", P.FLOAT, [1000])], inits)
    if sparse:
        g.sparse_initializer.extend(sparse)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return path


def dropout_model(path: Path) -> Path:
    """The issue's example: Dropout-13 with training_mode a BOOL initializer stored as int32_data [256]."""
    return _save(path, [helper.make_node("Dropout", ["x", "", "t"], ["y"])], [_bool_256()])


def test_onnxruntime_reads_the_example_as_training_mode(tmp_path: Path) -> None:
    """The premise, asked of the installed onnxruntime: it drops elements (P(no drop in 1000) = 2**-1000)."""
    ort = onnxruntime()
    session = ort.InferenceSession(str(dropout_model(tmp_path / "d.onnx")), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": np.ones(1000, np.float32)})
    assert (y == 0).any()


def _verdicts(path: Path, engine: str) -> dict[str, dict[str, str]]:
    code, out, _ = check(str(path), "--json", "--engine", engine)
    assert code == 2
    return {v["rule"]: v for v in json.loads(out)["models"][0]["verdicts"]}


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
@pytest.mark.parametrize("engine", ["direct", "smt", "both"])
def test_no_engine_proves_determinism_from_the_example(tmp_path: Path, engine: str) -> None:
    verdicts = _verdicts(dropout_model(tmp_path / "d.onnx"), engine)
    for rule in ("GRAPH-R2", "GRAPH-DETERMINISM"):
        assert verdicts[rule]["status"] == "UNKNOWN", verdicts[rule]
    assert REASON in verdicts["GRAPH-R2"]["reason"]


def test_dropout_removal_keeps_the_node(tmp_path: Path) -> None:
    m = load_model(str(dropout_model(tmp_path / "d.onnx")))
    why = DropoutRemoval().requires(m, m.graph.operations[0])
    assert why is not None and "training_mode 't' cannot be read" in why and REASON in why
    out = tmp_path / "out.onnx"
    code, _, err = sonnx("rewrite", str(tmp_path / "d.onnx"), str(out))
    assert code == 2 and err.count("\n") == 1 and not out.exists()


def test_run_equiv_and_crosscheck_refuse_the_example(tmp_path: Path) -> None:
    path = str(dropout_model(tmp_path / "d.onnx"))
    code, out, err = sonnx("run", path)
    one_line(code, out, err)
    assert REASON in err
    code, out, _ = sonnx("equiv", path, path)  # a comparison that cannot be made is reported, not a difference
    assert code == 2 and out.startswith("NOT ESTABLISHED") and "not compared" in out and REASON in out
    code, out, _ = sonnx("crosscheck", path, "--oracles", "reference")
    assert code == 2 and REASON in out


@pytest.mark.rule("GRAPH-R2")
def test_a_constant_holding_the_value_is_unknown_too(tmp_path: Path) -> None:
    nodes = [helper.make_node("Constant", [], ["t"], value=_bool_256()),
             helper.make_node("Dropout", ["x", "", "t"], ["y"])]
    path = _save(tmp_path / "c.onnx", nodes, [])
    for engine in ("direct", "smt"):
        v = _verdicts(path, engine)["GRAPH-R2"]
        assert v["status"] == "UNKNOWN" and "int32_data: entry 256 outside 0..1" in v["reason"], v
    one_line(*sonnx("run", str(path)))


def test_sparse_values_go_through_the_decoder(tmp_path: Path) -> None:
    values = TensorProto(name="s", data_type=P.FLOAT, dims=[2])
    values.raw_data = b"\0" * 8
    values.float_data.extend([1.0, 2.0])  # two storage fields at once
    indices = helper.make_tensor("i", P.INT64, [2], [0, 5])
    sparse = helper.make_sparse_tensor(values, indices, [1000])
    path = _save(tmp_path / "s.onnx", [helper.make_node("Add", ["x", "s"], ["y"])], [], [sparse])
    code, out, err = sonnx("run", str(path))
    one_line(code, out, err)
    assert "raw_data and float_data: two storage fields are set" in err


@pytest.mark.rule("GRAPH-R2")
def test_external_data_goes_through_the_decoder(tmp_path: Path) -> None:
    (tmp_path / "t.bin").write_bytes(b"\x02")
    t = TensorProto(name="t", data_type=P.BOOL)
    t.data_location = P.EXTERNAL
    t.external_data.add(key="location", value="t.bin")
    path = _save(tmp_path / "e.onnx", [helper.make_node("Dropout", ["x", "", "t"], ["y"])], [t])
    v = _verdicts(path, "both")["GRAPH-R2"]
    assert v["status"] == "UNKNOWN" and "raw_data: BOOL byte 2" in v["reason"], v
    code, out, err = sonnx("run", str(path))
    one_line(code, out, err)
    assert "raw_data: BOOL byte 2" in err
