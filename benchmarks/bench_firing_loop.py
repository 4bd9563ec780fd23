"""Benchmark: the executor's own cost per firing, plain and probed, on a chain of tiny operations.

``bench_executor.py`` times CNNs whose kernels take almost all the time, so
it cannot see the firing loop of :meth:`sonnx.execution.plan.GraphPlan.run`
(argument lists, stores, drops, the probe's bookkeeping). Here the model is a
chain of ``--ops`` alternating Neg and Relu operations on a one-element
tensor, so the kernels cost little and the loop shows. The main graph's plan
is run ``--repeat`` times without a probe and ``--repeat`` times with one
(the ``sonnx run --timings`` path); the figures are CPU seconds of this
process (``time.process_time``), which a machine shared with other jobs
disturbs less than wall time. To compare two versions of sonnx, run this
under each (``PYTHONPATH=<their src>``), alternating, several times.

    python benchmarks/bench_firing_loop.py [--ops 5000] [--repeat 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


def chain(ops: int, path: Path) -> None:
    """Save a chain of ``ops`` Neg/Relu operations, float32 [1] in and out, to ``path``."""
    import onnx
    from onnx import TensorProto, helper

    nodes, previous = [], "x"
    for k in range(ops):
        nodes.append(helper.make_node("Relu" if k % 2 else "Neg", [previous], [f"t{k}"]))
        previous = f"t{k}"
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(nodes, "chain", [vi("x", TensorProto.FLOAT, [1])], [vi(previous, TensorProto.FLOAT, [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=100)
    args = ap.parse_args()
    import numpy as np

    from sonnx.execution.executor import model_plan
    from sonnx.execution.plan import Probe
    from sonnx.loader import load_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.onnx"
        chain(args.ops, path)
        model = load_model(str(path))
    plan = model_plan(model)
    x = np.ones(1, np.float32)
    rows = []
    for label, probed in (("plain", False), ("probed", True)):
        plan.run({"x": x}, probe=Probe() if probed else None)  # warm-up
        times = []
        for _ in range(args.repeat):
            probe = Probe() if probed else None
            start = time.process_time()
            plan.run({"x": x}, probe=probe)
            times.append(time.process_time() - start)
        rows.append((label, min(times), statistics.median(times)))
    print(f"{args.ops} operations, {args.repeat} runs each; CPU ms per run (us per firing)", file=sys.stderr)
    for label, low, mid in rows:
        print(f"{label}: min {low * 1e3:.3f} ({low * 1e6 / args.ops:.2f}) median {mid * 1e3:.3f} "
              f"({mid * 1e6 / args.ops:.2f})")


if __name__ == "__main__":
    main()
