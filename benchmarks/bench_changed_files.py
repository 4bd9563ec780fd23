"""What ``sonnx-check --changed-files`` (the pre-commit hook) adds to a plain check, measured in the same run.

Two models of the same chain of ``--ops`` MatMul operations on float32 ``--size`` x ``--size`` weights sit in
one folder: ``ext.onnx`` keeps its weights in ``weights.bin``, ``inline.onnx`` inside the file. Each command
runs as a child process (``sonnx-check`` of this checkout), interleaved over ``--repeat`` rounds:

* ``plain``: ``sonnx-check -q ext.onnx``, the check the hook must run when ``weights.bin`` changes (the peer);
* ``changed``: ``sonnx-check -q --changed-files weights.bin``: the same check, found from the data file;
* ``unrelated``: ``sonnx-check -q --changed-files notes.txt``: a commit of another file, which must check
  nothing (both models are candidates: ``inline.onnx`` is scanned for the key, ``ext.onnx`` is loaded);
* ``inline-only``: the same with ``ext.onnx`` moved away: only the scan of ``inline.onnx``;
* ``no-model``: the same in a folder without a model: the start-up of ``sonnx-check`` alone.

It prints the median wall time and CPU time (user + sys of the child) of each, the load average before and
after each round, and the ratios to ``plain``. ``python -m benchmarks.bench_changed_files --ops 200``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import convert_model_to_external_data


def chain(ops: int, size: int) -> onnx.ModelProto:
    """``y = x @ W0 @ W1 ... @ W(ops-1)`` on float32."""
    rng = np.random.default_rng(0)
    weights, nodes, prev = [], [], "x"
    for i in range(ops):
        weights.append(numpy_helper.from_array(rng.standard_normal((size, size)).astype(np.float32), f"w{i}"))
        out = "y" if i == ops - 1 else f"t{i}"
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [out], name=f"mm{i}"))
        prev = out
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, size])], weights,
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + sys of the child) and exit code of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=200)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    check = str(Path(sys.executable).with_name("sonnx-check"))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    with tempfile.TemporaryDirectory(prefix="bench-changed-") as tmp:
        work = Path(tmp) / "repo"
        work.mkdir()
        m = chain(args.ops, args.size)
        onnx.save(m, str(work / "inline.onnx"))
        convert_model_to_external_data(m, all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
        onnx.save(m, str(work / "ext.onnx"))
        (work / "notes.txt").write_text("not a model\n")
        aside = Path(tmp) / "ext.onnx"
        commands = {
            "plain": [check, "-q", "ext.onnx"],
            "changed": [check, "-q", "--changed-files", "weights.bin"],
            "unrelated": [check, "-q", "--changed-files", "notes.txt"],
            "inline-only": [check, "-q", "--changed-files", "notes.txt"],
            "no-model": [check, "-q", "--changed-files", "notes.txt"],
        }
        empty = Path(tmp) / "empty"
        empty.mkdir()
        (empty / "notes.txt").write_text("not a model\n")
        results: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
        for r in range(args.repeat):
            before = Path("/proc/loadavg").read_text().split()[:3]
            for name, argv in commands.items():
                if name == "inline-only":
                    shutil.move(work / "ext.onnx", aside)
                wall, cpu, code = timed(argv, empty if name == "no-model" else work, env)
                if name == "inline-only":
                    shutil.move(aside, work / "ext.onnx")
                expected = 0
                if code != expected:
                    raise SystemExit(f"{name}: exit {code}, expected {expected}")
                results[name].append((wall, cpu))
            after = Path("/proc/loadavg").read_text().split()[:3]
            print(f"round {r + 1}: load average {' '.join(before)} -> {' '.join(after)}", flush=True)
        sizes = {f.name: f.stat().st_size for f in work.iterdir()}
        print(f"files: {sizes}")
        base_wall = statistics.median(w for w, _ in results["plain"])
        base_cpu = statistics.median(c for _, c in results["plain"])
        print("| command | wall s (median) | CPU s (median) | wall / plain | CPU / plain |")
        print("|---|---|---|---|---|")
        for name, runs in results.items():
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            print(f"| {name} | {wall:.2f} | {cpu:.2f} | {wall / base_wall:.2f} | {cpu / base_cpu:.2f} |")


if __name__ == "__main__":
    main()
