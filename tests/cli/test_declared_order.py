"""--orders runs the execution order a model declares (STRICT-METADATA's sonnx.execution_order); --required-metadata."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.verdict import Status
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.cli import check_main
from sonnx.execution.orders import _digest
from tests.common.cli import call

META = {
    "sonnx.io_semantics": "x: a matrix; y: a matrix",
    "sonnx.dimension_semantics": "rows, columns",
    "sonnx.target": "CPU",
}


def diamond(path: Path, order: str | None) -> Path:
    """a = x + x, b = relu(x), c = x + b, y = a + c: three valid orders; ``order`` is declared when given."""
    nodes = [
        helper.make_node("Add", ["x", "x"], ["a"], name="a"),
        helper.make_node("Relu", ["x"], ["b"], name="b"),
        helper.make_node("Add", ["x", "b"], ["c"], name="c"),
        helper.make_node("Add", ["a", "c"], ["y"], name="y"),
    ]
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "diamond", [vi("x", TensorProto.FLOAT, [2, 3])], [vi("y", TensorProto.FLOAT, [2, 3])],
                          value_info=[vi(n, TensorProto.FLOAT, [2, 3]) for n in "abc"])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    props = dict(META)
    if order is not None:
        props["sonnx.execution_order"] = order
    helper.set_model_props(m, props)
    onnx.save(m, str(path))
    return path


def orders_verdict(path: Path, count: int = 2) -> object:
    report = check_file(str(path), CheckOptions(engine="direct", orders=count))
    return next(v for v in report.verdicts if v.rule_id == "EXEC-ORDERS")


def test_orders_runs_the_declared_order(tmp_path: Path) -> None:
    # b, c, a, y is not the file order (a, b, c, y): it is run as the schedule "declared"
    v = orders_verdict(diamond(tmp_path / "d.onnx", json.dumps(["b", "c", "a", "y"])))
    schedules = v.details["schedules"]  # type: ignore[attr-defined]
    declared = [s for s in schedules if s["schedule"] == "declared"]
    assert declared == [{"schedule": "declared", "sha256": _digest([1, 2, 0, 3])}]
    # the three valid orders are all run, and the declared one only once
    assert v.status is Status.PROVED and len({s["sha256"] for s in schedules}) == len(schedules) == 3  # type: ignore[attr-defined]


def test_a_declared_order_equal_to_the_file_order_is_not_run_twice(tmp_path: Path) -> None:
    v = orders_verdict(diamond(tmp_path / "d.onnx", json.dumps(["a", "b", "c", "y"])))
    names = [s["schedule"] for s in v.details["schedules"]]  # type: ignore[attr-defined]
    assert "declared" not in names and len(names) == 3


@pytest.mark.rule("STRICT-METADATA")
def test_a_malformed_declared_order_makes_orders_unknown(tmp_path: Path) -> None:
    path = diamond(tmp_path / "d.onnx", json.dumps(["y", "a", "b", "c"]))
    v = orders_verdict(path)
    assert v.status is Status.UNKNOWN  # type: ignore[attr-defined]
    assert "'y' is not executable at its turn" in v.reason  # type: ignore[attr-defined]
    code, out, _err = call(check_main, "-q", "--engine", "direct", "--orders", "2", str(path))
    assert code == 2 and "declared execution order" in out
    code, out, _err = call(check_main, "-q", "--engine", "direct", "--profile", "sonnx-strict", str(path))
    assert code == 1 and "STRICT-METADATA" in out and "malformed sonnx.execution_order" in out


def test_required_metadata_option(tmp_path: Path) -> None:
    path = diamond(tmp_path / "d.onnx", json.dumps(["a", "b", "c", "y"]))
    code, out, _ = call(check_main, "-q", "--engine", "direct", "--profile", "sonnx-strict", str(path))
    assert code == 0, out
    keys = tmp_path / "keys.txt"
    keys.write_text("# one key a line\nsonnx.target\nowner\n")
    code, out, _ = call(check_main, "-q", "--engine", "direct", "--profile", "sonnx-strict",
                        "--required-metadata", f"@{keys}", str(path))
    assert code == 1 and "owner (absent)" in out
    code, out, _ = call(check_main, "-q", "--engine", "direct", "--profile", "sonnx-strict",
                        "--required-metadata", "", str(path))
    assert code == 0, out
    code, out, err = call(check_main, "--required-metadata", "a", str(path))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "sonnx-strict" in err
    code, out, err = call(check_main, "--profile", "sonnx-strict", "--required-metadata", f"@{tmp_path}/none",
                          str(path))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "cannot read" in err
