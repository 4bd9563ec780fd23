"""Models whose weights live in an external data file, so that changing only that file changes a verdict."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import convert_model_to_external_data


def divide_by_weights(folder: Path, name: str = "model.onnx", location: str = "weights.bin") -> Path:
    """``y = x / w`` on int32, ``w`` an initializer of four 1s stored in ``folder/location``."""
    (folder / location).parent.mkdir(parents=True, exist_ok=True)
    w = numpy_helper.from_array(np.ones(4, dtype=np.int32), "w")
    graph = helper.make_graph(
        [helper.make_node("Div", ["x", "w"], ["y"], name="div")], "g",
        [helper.make_tensor_value_info("x", TensorProto.INT32, [4])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [4])], [w],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    convert_model_to_external_data(m, all_tensors_to_one_file=True, location=location, size_threshold=0)
    onnx.save(m, str(folder / name))
    return folder / name


def write_weights(path: Path, values: list[int]) -> None:
    path.write_bytes(np.array(values, dtype=np.int32).tobytes())
