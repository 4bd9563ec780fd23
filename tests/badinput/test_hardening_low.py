"""Inputs that once ended in an internal error or a wrong result (low severity): each one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.checking.pipeline import export_stems
from sonnx.cli import check_main, main
from tests.common.cli import call, one_line

ROOT = Path(__file__).resolve().parents[2]
CNN = str(ROOT / "examples" / "cnn_block.onnx")
vi = helper.make_tensor_value_info




def model(path: Path, nodes: list[onnx.NodeProto], inputs: list[Any], outputs: list[Any]) -> str:
    g = helper.make_graph(nodes, "g", inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


def test_a_required_input_left_empty(tmp_path: Path) -> None:
    p = model(tmp_path / "e.onnx", [helper.make_node("Relu", [""], ["y"])], [vi("x", TensorProto.FLOAT, [2])],
              [vi("y", TensorProto.FLOAT, [2])])
    code, out, err = call(main, "run", p)
    one_line(code, out, err)
    assert "required input 0 (X)" in err


@pytest.mark.parametrize("position", [0, 1])
def test_a_variadic_input_left_empty(tmp_path: Path, position: int) -> None:
    # found by the file fuzzer (mutant 16 of seed 1): Concat with "" among its inputs reached the kernel
    names = ["x", "x"]
    names[position] = ""
    node = helper.make_node("Concat", names, ["y"], axis=0)
    p = model(tmp_path / "v.onnx", [node], [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [4])])
    code, out, err = call(main, "run", p)
    one_line(code, out, err)
    assert f"required input {position} (inputs)" in err and "internal error" not in err


@pytest.mark.rule("GRAPH-ATTRIBUTES")
@pytest.mark.parametrize("command", ["run", "rewrite"])
def test_an_attribute_the_schema_does_not_declare(tmp_path: Path, command: str) -> None:
    # Found by the file fuzzer: Dropout-13 takes ratio as an input; an attribute of that name must
    # not reach the kernel in its place.
    p = model(tmp_path / "d.onnx", [helper.make_node("Dropout", ["x"], ["y"], ratio=0.4)],
              [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    if command == "run":
        code, out, err = call(main, "run", p)
        one_line(code, out, err)
        assert "'ratio' not declared by Dropout-13" in err
    else:  # GRAPH-ATTRIBUTES finds the undeclared attribute: the rewrite refuses the model and writes nothing
        code, out, err = call(main, "rewrite", p, str(tmp_path / "out.onnx"))
        one_line(code, out, err)
        assert "GRAPH-ATTRIBUTES violated" in err and "nothing was rewritten" in err
        assert not (tmp_path / "out.onnx").exists()


def test_an_output_named_file_is_written_and_nothing_is_left_behind(tmp_path: Path) -> None:
    p = model(tmp_path / "f.onnx", [helper.make_node("Relu", ["x"], ["file"])], [vi("x", TensorProto.FLOAT, [2])],
              [vi("file", TensorProto.FLOAT, [2])])
    code, _out, err = call(main, "run", p, "--output", str(tmp_path / "o.npz"))
    assert code == 0, err
    with np.load(tmp_path / "o.npz") as got:
        assert list(got.files) == ["file"] and got["file"].shape == (2,)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["f.onnx", "o.npz"]


@pytest.mark.parametrize("argv", [["run", "{m}", "--output", "{m}"], ["rewrite", "{m}", "{m}"],
                                  ["partition", "{m}", "--provider", "N=Conv", "-o", "{m}"]])
def test_outputs_are_never_written_over_an_input(tmp_path: Path, argv: list[str]) -> None:
    m = tmp_path / "m.onnx"
    m.write_bytes(Path(CNN).read_bytes())
    before = m.read_bytes()
    code, out, err = call(main, *[a.format(m=m) for a in argv])
    one_line(code, out, err)
    assert "would be overwritten" in err and m.read_bytes() == before


def test_not_enough_memory_is_one_line(tmp_path: Path) -> None:
    p = model(tmp_path / "big.onnx", [helper.make_node("Relu", ["x"], ["y"])],
              [vi("x", TensorProto.FLOAT, [100000, 100000])], [vi("y", TensorProto.FLOAT, None)])
    proc = subprocess.run(
        [sys.executable, "-c", "import resource,sys;resource.setrlimit(resource.RLIMIT_AS,(2<<30,2<<30));"
         "from sonnx.cli import main;sys.exit(main(['run', sys.argv[1]]))", p],
        capture_output=True, text=True, timeout=300, check=False,
    )
    one_line(proc.returncode, proc.stdout, proc.stderr)
    assert "not enough memory" in proc.stderr


@pytest.mark.parametrize(
    "argv,message",
    [
        (["run", CNN, "--seed", "-1"], "invalid seed '-1'"),
        (["crosscheck", CNN, "--seed", "x"], "invalid seed 'x'"),
        (["check", CNN, "--evidence", "/proc/sonnx-cannot-write-here"], "cannot write"),
    ],
)
def test_options_that_once_ended_in_internal_errors(argv: list[str], message: str) -> None:
    code, _out, err = call(main, *argv)
    assert code == 2 and "internal error" not in err and message in err, err


def test_hostile_partition_files(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text('{"format": "sonnx-partition", "version": ' + "9" * 5000 + ', "subgraphs": []}')
    version = tmp_path / "v.json"
    version.write_text(json.dumps({"format": "sonnx-partition", "version": True, "subgraphs": []}))
    cases = ((big, "not JSON"), (version, "unsupported version True"), (Path("/dev/zero"), "not a regular file"))
    for path, message in cases:
        code, out, err = call(main, "partition", "--check", CNN, str(path))
        one_line(code, out, err)
        assert message in err, err
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    code, out, err = call(main, "partition", "--check", CNN, str(fifo))
    one_line(code, out, err)


def test_smt_exports_of_two_models_with_one_name_do_not_collide(tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "m.onnx").write_bytes(Path(CNN).read_bytes())
    out_dir = tmp_path / "smt"
    _code, out, _ = call(check_main, "-q", "--engine", "smt", "--smt-dir", str(out_dir), "--json",
                        str(tmp_path / "a" / "m.onnx"), str(tmp_path / "b" / "m.onnx"))
    exported = [json.loads(out)["models"][k]["smt"]["exported"] for k in (0, 1)]
    assert exported[0] and not set(exported[0]) & set(exported[1])
    assert all(Path(p).name.startswith("m-2.") for p in exported[1])
    assert export_stems(["a/m.onnx", "b/m.onnx", "m-2.onnx"]) == ["m", "m-2", "m-2-2"]


def test_an_undecodable_file_name_prints_under_a_utf8_terminal(tmp_path: Path) -> None:
    name = os.fsencode(str(tmp_path)) + b"/bad\xff.onnx"
    with open(name, "wb") as fh:
        fh.write(b"not a model")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([sys.executable, "-m", "sonnx", "run", os.fsdecode(name)], capture_output=True,
                          env=env, timeout=120, check=False)
    assert proc.returncode == 2 and b"internal error" not in proc.stderr and proc.stderr.count(b"\n") == 1
