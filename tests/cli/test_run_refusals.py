"""Execution refuses up front: every operator without a kernel at once, and ill-typed inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.cli import check_main, main
from sonnx.execution.executor import execute, unsupported_operators
from sonnx.execution.signature import InputValueError
from sonnx.loader import load_model
from sonnx.ops import KernelRegistry, UnsupportedOperatorError, op_relu
from tests.common.cli import call

vi = helper.make_tensor_value_info




def save(path: Path, nodes: list[onnx.NodeProto], inputs: list[Any], outputs: list[Any], **opsets: int) -> str:
    g = helper.make_graph(nodes, "g", inputs, outputs)
    imports = [helper.make_opsetid("", 17)] + [helper.make_opsetid(d.replace("_", "."), v) for d, v in opsets.items()]
    m = helper.make_model(g, opset_imports=imports)
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


@pytest.fixture
def unsupported(tmp_path: Path) -> str:
    """Two standard operators without a kernel in a reduced registry, and a custom-domain operator."""
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Mystery", ["a"], ["b"], domain="com.acme"),
        helper.make_node("Neg", ["b"], ["y"]),
        helper.make_node("Abs", ["x"], ["z"]),
    ]
    return save(tmp_path / "u.onnx", nodes, [vi("x", TensorProto.FLOAT, [2])],
                [vi("y", TensorProto.FLOAT, [2]), vi("z", TensorProto.FLOAT, [2])], com_acme=1)


def test_every_operator_without_a_kernel_is_listed_before_any_work(unsupported: str) -> None:
    model = load_model(unsupported)
    reduced = KernelRegistry(op_relu.KERNELS)
    assert unsupported_operators(model, reduced) == [
        "ai.onnx::Abs-13 (opset 17)",
        "ai.onnx::Neg-13 (opset 17)",
        "com.acme::Mystery (no schema at opset 1)",
    ]
    fired: list[str] = []
    with pytest.raises(UnsupportedOperatorError, match=r"^3 operator\(s\) without a kernel: ai.onnx::Abs-13"):
        execute(model, {"x": np.ones(2, np.float32)}, registry=reduced, scheduler=_Recording(fired))
    assert fired == []  # refused before the first operation fired


class _Recording:
    def __init__(self, fired: list[str]) -> None:
        self._pool: list[int] = []
        self._fired = fired

    def push(self, index: int) -> None:
        self._pool.append(index)

    def pop(self) -> int:
        self._fired.append(str(self._pool[0]))
        return self._pool.pop(0)

    def __len__(self) -> int:
        return len(self._pool)


def test_run_orders_and_crosscheck_name_the_whole_list(unsupported: str) -> None:
    code, out, err = call(main, "run", unsupported)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "1 operator(s) without a kernel: com.acme::Mystery" in err
    code, out, _ = call(check_main, "-q", unsupported, "--orders", "2", "--cross-check", "reference", "--json")
    verdicts = {v["rule"]: v for v in json.loads(out)["models"][0]["verdicts"]}
    for rule in ("EXEC-ORDERS", "EXEC-CROSSCHECK"):
        assert verdicts[rule]["status"] == "UNKNOWN", verdicts[rule]
        assert "without a kernel: com.acme::Mystery" in verdicts[rule]["reason"]
    assert code == 2


@pytest.fixture
def add(tmp_path: Path) -> str:
    a, b = vi("a", TensorProto.FLOAT, ["N", 3]), vi("b", TensorProto.FLOAT, ["N", 3])
    return save(tmp_path / "add.onnx", [helper.make_node("Add", ["a", "b"], ["y"])], [a, b],
                [vi("y", TensorProto.FLOAT, None)])


@pytest.mark.parametrize(
    "a,b,message",
    [
        (np.zeros((2, 3)), np.zeros((2, 3), np.float32),
         "input 'a': declared FLOAT ['N', 3], given float64[2, 3]: element type float64 is given"),
        (np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32),
         "input 'a': declared FLOAT ['N', 3], given float32[2, 4]: dimension 1 is 4, declared 3"),
        (np.zeros((2, 3), np.float32), np.zeros((4, 3), np.float32),
         "input 'b': declared FLOAT ['N', 3], given float32[4, 3]: dimension 0 ('N') is 4, but 'N' is 2 in input 'a'"),
        (np.zeros(3, np.float32), np.zeros(3, np.float32),
         "input 'a': declared FLOAT ['N', 3], given float32[3]: rank 1 (shape [3]) is given"),
    ],
)
def test_inputs_that_contradict_the_declaration_are_refused(
    add: str, tmp_path: Path, a: np.ndarray, b: np.ndarray, message: str
) -> None:
    with pytest.raises(InputValueError) as exc:
        execute(load_model(add), {"a": a, "b": b})
    assert str(exc.value) == message
    np.savez(tmp_path / "in.npz", a=a, b=b)
    code, out, err = call(main, "run", add, "--inputs", str(tmp_path / "in.npz"))
    assert (code, out) == (2, "") and message in err
    code, out, _ = call(main, "crosscheck", add, "--inputs", str(tmp_path / "in.npz"))
    assert code == 2 and message in out  # never AGREE on a value the model does not accept


def test_matching_inputs_run(add: str) -> None:
    out = execute(load_model(add), {"a": np.ones((4, 3), np.float32), "b": np.float32(2) * np.ones((4, 3), np.float32)})
    np.testing.assert_array_equal(out["y"], np.full((4, 3), 3, np.float32))


@pytest.mark.parametrize("extra", [["--orders", "2"], ["--cross-check", "reference"]])
def test_structure_only_refuses_what_would_read_weights(add: str, extra: list[str]) -> None:
    code, out, err = call(check_main, "--structure-only", add, *extra)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "--structure-only never reads them" in err
