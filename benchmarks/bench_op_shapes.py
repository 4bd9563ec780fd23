"""Benchmark: the OP-SHAPES check (symbolic shape analysis and z3 proofs) on a real export and a deep net.

Workloads:

* ``real``: the real export of ``tests/data/real`` with the most operations
  (every dimension fixed there: the cost is the analysis's);
* ``deep-proved``: a generated chain of ``--layers`` Conv/Relu pairs (a
  stride-2 Conv every eighth layer) on an input ``(N, 3, H, W)`` with
  ``N=1..64, H=256..1024, W=256..1024``: every window condition is symbolic and
  holds, so one solver call proves them all;
* ``deep-violated``: the same net without padding, ``H`` and ``W`` from 1:
  the combined question is satisfiable, so the conditions are asked one by
  one and the first failing shape is minimized and confirmed by a run.

Usage::

    python benchmarks/bench_op_shapes.py [--repeat 3] [--layers 200]

Prints a Markdown table: the workload, operations, verdict, median and all
wall times of ``sonnx.rules.op_shapes.check`` (the model loaded once
beforehand), and the peer measured in the same run on the same file:
``onnx.shape_inference.infer_shapes`` on the loaded ``ModelProto``, which
derives shapes (symbolic ones as names) but proves no condition over a range
of dimensions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sonnx.execution.executor import trial_run  # noqa: E402
from sonnx.loader.load import load_model  # noqa: E402
from sonnx.model.graph import Model  # noqa: E402
from sonnx.rules import op_shapes  # noqa: E402
from sonnx.rules.base import PROFILE_STRICT, CheckConfig, CheckContext  # noqa: E402


def deep_net(path: Path, layers: int, pad: int) -> Model:
    """``layers`` Conv(3x3)/Relu pairs on 8 channels, pads ``pad``, a stride of 2 every eighth Conv."""
    nodes, inits, prev = [], [], "x"
    channels = 3
    for k in range(layers):
        w = numpy_helper.from_array(np.full((8, channels, 3, 3), 0.01, np.float32), f"w{k}")
        inits.append(w)
        stride = 2 if k % 8 == 7 else 1
        nodes.append(helper.make_node("Conv", [prev, f"w{k}"], [f"c{k}"], pads=[pad] * 4, strides=[stride] * 2))
        nodes.append(helper.make_node("Relu", [f"c{k}"], [f"r{k}"]))
        prev, channels = f"r{k}", 8
    graph = helper.make_graph(
        nodes, "deep", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)], inits,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return load_model(str(path))


def largest_real() -> tuple[Path, Model]:
    models = [(p, load_model(str(p))) for p in sorted((ROOT / "tests" / "data" / "real").glob("*.onnx"))]
    return max(models, key=lambda m: len(m[1].graph.operations))


def peer_times(path: Path, repeat: int) -> list[float]:
    """Wall times of onnx's shape inference on the file's model (loaded once, not timed)."""
    proto = onnx.load(str(path))
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        onnx.shape_inference.infer_shapes(proto)
        times.append(time.perf_counter() - start)
    return times


def timed(model: Model, dims: tuple[tuple[str, int, int], ...], repeat: int) -> tuple[str, list[float]]:
    times, status = [], ""
    for _ in range(repeat):
        config = CheckConfig(profile=PROFILE_STRICT, trial_run=trial_run, dims=dims)
        start = time.perf_counter()
        v = op_shapes.check(CheckContext(model, config))
        times.append(time.perf_counter() - start)
        status = v.status.name
    return status, times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--layers", type=int, default=200)
    args = ap.parse_args()
    rows = []
    path, real = largest_real()
    rows.append((f"real: {path.name}", real, (), path))
    with tempfile.TemporaryDirectory() as tmp:
        deep = deep_net(Path(tmp) / "deep.onnx", args.layers, 1)
        proved = (("N", 1, 64), ("H", 256, 1024), ("W", 256, 1024))
        rows.append((f"deep-proved ({args.layers} layers, pads 1)", deep, proved, Path(tmp) / "deep.onnx"))
        unpadded = deep_net(Path(tmp) / "unpadded.onnx", args.layers, 0)
        rows.append((f"deep-violated ({args.layers} layers, pads 0)", unpadded, (("N", 1, 64),),
                     Path(tmp) / "unpadded.onnx"))
        print("| workload | operations | verdict | OP-SHAPES median (s) | runs (s) | onnx infer_shapes median (s) "
              "| ratio |")
        print("|---|---:|---|---:|---|---:|---:|")
        for label, model, dims, file in rows:
            status, times = timed(model, dims, args.repeat)
            peer = statistics.median(peer_times(file, args.repeat))
            shown = ", ".join(f"{t:.3f}" for t in times)
            mine = statistics.median(times)
            print(f"| {label} | {len(model.graph.operations)} | {status} | {mine:.3f} | {shown} | {peer:.4f} | "
                  f"{mine / peer:.1f} |")


if __name__ == "__main__":
    main()
