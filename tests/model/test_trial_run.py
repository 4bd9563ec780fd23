"""The trial run that confirms a candidate witness (``sonnx.execution.executor.trial_run``).

A rule of the operator layer claims VIOLATED only after a run showed the
violation; these tests pin what a run reports: the values computed before
an error, the error's one line, and the main-graph operation that raised it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from sonnx.execution.executor import execute, trial_run
from sonnx.loader.load import load_model
from sonnx.model.graph import Model


def _div_relu(tmp_path: Path) -> Model:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Div", ["r", "b"], ["q"])],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.INT32, [2]) for n in ("a", "b")],
        [helper.make_tensor_value_info("q", TensorProto.INT32, [2])],
    )
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return load_model(str(path))


def test_a_run_that_ends_reports_every_main_graph_value_and_no_error(tmp_path: Path) -> None:
    model = _div_relu(tmp_path)
    feeds = {"a": np.array([4, -2], np.int32), "b": np.array([2, 1], np.int32)}
    got = trial_run(model, feeds)
    assert got.error is None and got.operation is None
    assert sorted(got.values) == ["a", "b", "q", "r"]
    np.testing.assert_array_equal(got.values["q"], execute(model, feeds)["q"])


def test_an_error_names_the_operation_that_raised_it_and_keeps_the_values_before(tmp_path: Path) -> None:
    got = trial_run(_div_relu(tmp_path), {"a": np.array([4, 3], np.int32), "b": np.array([2, 0], np.int32)})
    assert got.operation == 1
    assert got.error is not None and "division by zero" in got.error and "\n" not in got.error
    assert sorted(got.values) == ["a", "b", "r"]


def test_a_missing_input_is_reported_with_no_operation(tmp_path: Path) -> None:
    got = trial_run(_div_relu(tmp_path), {"a": np.array([4, 3], np.int32)})
    assert got.operation is None and got.error is not None and "b" in got.error
