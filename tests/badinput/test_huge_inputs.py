"""Declared inputs too large to draw: one line and exit 2 from every command that draws inputs.

The size is worked out in exact integers before anything is allocated
(``sonnx.execution.inputs.tensors.random_array``): a size numpy refuses ("array is too big"),
one larger than the memory available, a sum of inputs that together exceed it,
and a negative dimension are each an ``InputSizeError`` naming the input, never
an internal error.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.errors import InputSizeError
from sonnx.execution.inputs import tensors
from sonnx.loader import load_model
from sonnx.model.tensors import TensorType
from tests.common.cli import check, one_line, sonnx

SHAPES: dict[str, tuple[list[list[int]], int]] = {
    "two_to_31_squared": ([[2**31, 2**31]], TensorProto.FLOAT),
    "beyond_memory": ([[2**20, 2**20]], TensorProto.FLOAT),
    "int64_extremes": ([[2**62, 2**62, 2**62]], TensorProto.INT64),
    "strings": ([[2**36]], TensorProto.STRING),
    "complex": ([[2**34, 2**30]], TensorProto.COMPLEX128),
    "two_inputs_together": ([[2**12, 2**20, 2**3]] * 2, TensorProto.FLOAT),
    "negative_dimension": ([[-3, 2]], TensorProto.FLOAT),
}


def identity_model(path: Path, shapes: Sequence[Sequence[int]], elem: int) -> str:
    ins = [helper.make_tensor_value_info(f"x{i}", elem, s) for i, s in enumerate(shapes)]
    outs = [helper.make_tensor_value_info(f"y{i}", elem, s) for i, s in enumerate(shapes)]
    nodes = [helper.make_node("Identity", [f"x{i}"], [f"y{i}"]) for i in range(len(shapes))]
    m = helper.make_model(helper.make_graph(nodes, "g", ins, outs), opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    onnx.save(m, path)
    return str(path)


COMMANDS = {
    "check --orders": lambda p, out: check("--engine", "direct", "--orders", "2", p),
    "check --cross-check": lambda p, out: check("--engine", "direct", "--cross-check", "reference", p),
    "run": lambda p, out: sonnx("run", p),
    "crosscheck": lambda p, out: sonnx("crosscheck", p),
    "equiv": lambda p, out: sonnx("equiv", p, p),
    "rewrite": lambda p, out: sonnx("rewrite", p, out),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", sorted(SHAPES))
def test_every_drawing_command_refuses_in_one_line(case: str, command: str, tmp_path: Path) -> None:
    shapes, elem = SHAPES[case]
    path = identity_model(tmp_path / "m.onnx", shapes, elem)
    code, out, err = COMMANDS[command](path, str(tmp_path / "out.onnx"))
    one_line(code, out, err)
    assert "'x0'" in err or "inputs drawn together" in err, err


def test_the_size_is_checked_against_the_memory_available_before_any_allocation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = load_model(identity_model(tmp_path / "m.onnx", [[1000, 1000]], TensorProto.FLOAT))
    monkeypatch.setattr(tensors, "available_memory", lambda: 10**6)

    def no_draw(*_a: object) -> np.ndarray:
        raise AssertionError("drawn although it cannot fit")

    monkeypatch.setattr(tensors, "_draw", no_draw)
    expected = r"input 'x0' declares 1000000 elements .*not enough memory.* 0\.000931 GiB available"
    with pytest.raises(InputSizeError, match=expected):
        tensors.random_inputs(model, 0)


def test_inputs_that_fit_are_drawn_as_before(tmp_path: Path) -> None:
    model = load_model(identity_model(tmp_path / "m.onnx", [[3, 4], [2]], TensorProto.FLOAT))
    drawn = tensors.random_inputs(model, 0)
    again = np.random.default_rng(0)
    assert drawn["x0"].shape == (3, 4) and drawn["x1"].shape == (2,)
    assert np.array_equal(drawn["x0"], again.standard_normal((3, 4)).astype(np.float32))


def test_the_peak_bytes_are_exact_integers_past_int64() -> None:
    t = TensorType("tensor", TensorProto.FLOAT, (2**40, 2**40))
    assert tensors.draw_bytes("x", t) == 2**80 * 16


def test_an_address_space_limit_counts_as_less_memory(tmp_path: Path) -> None:
    path = identity_model(tmp_path / "m.onnx", [[1 << 14, 1 << 14]], TensorProto.FLOAT)  # 3 GiB to draw
    proc = subprocess.run(
        [sys.executable, "-c", "import resource,sys;resource.setrlimit(resource.RLIMIT_AS,(2<<30,2<<30));"
         "from sonnx.cli import main;sys.exit(main(['run', sys.argv[1]]))", path],
        capture_output=True, text=True, timeout=300, check=False,
    )
    one_line(proc.returncode, proc.stdout, proc.stderr)
    assert "input 'x0'" in proc.stderr and "not enough memory to draw" in proc.stderr, proc.stderr


def test_a_negative_dimension_is_not_drawn_as_a_symbolic_one(tmp_path: Path) -> None:
    model = load_model(identity_model(tmp_path / "m.onnx", [[-3, 2]], TensorProto.FLOAT))
    with pytest.raises(InputSizeError, match="declares dimension -3"):
        tensors.random_inputs(model, 0)
