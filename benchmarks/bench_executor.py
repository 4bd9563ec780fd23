"""Benchmark: the NumPy executor against onnx's ReferenceEvaluator and onnxruntime.

For each CNN of ``benchmarks/cnn_models.py`` (random weights, input 1x3xSxS),
each tool runs in its own fresh process on the same seeded input: one warm-up,
then ``--repeat`` timed runs (the ReferenceEvaluator, 14-630x slower than
onnxruntime, gets ``--ref-repeat``). The child reports min and median wall
time per run and its peak RSS. Ratios compare tools measured in the same run.
The outputs of sonnx and onnxruntime are compared too (max abs difference).

    python benchmarks/bench_executor.py [--size 224] [--repeat 5] [--ref-repeat 1] [--models a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("sonnx", "sonnx-1thread", "reference", "ort-1thread", "ort-default")

CHILD = r"""
import json, resource, statistics, sys, time
import numpy as np
path, tool, repeat, out_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
x = np.load(path + ".input.npy")
if tool in ("sonnx", "sonnx-1thread"):
    from sonnx.loader import load_model
    from sonnx.execution.executor import execute
    model = load_model(path)
    run = lambda: execute(model, {"image": x})["probabilities"]
elif tool == "reference":
    from onnx.reference import ReferenceEvaluator
    ref = ReferenceEvaluator(path)
    run = lambda: ref.run(None, {"image": x})[0]
else:
    import onnxruntime as ort
    so = ort.SessionOptions()
    if tool == "ort-1thread":
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    run = lambda: sess.run(None, {"image": x})[0]
y = run()
times = []
for _ in range(repeat):
    t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
np.save(out_path, np.asarray(y))
print(json.dumps({"min": min(times), "median": statistics.median(times),
                  "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ref-repeat", type=int, default=1)
    ap.add_argument("--models", default="resnet50_like,vgg_like,mobilenet_like")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--build", nargs=3, metavar=("MODEL", "SIZE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    import numpy as np

    if args.build:
        import onnx

        from benchmarks.cnn_models import MODELS

        name, size, path = args.build[0], int(args.build[1]), args.build[2]
        onnx.save(MODELS[name](size=size), path)
        x = np.random.default_rng(0).standard_normal((1, 3, size, size)).astype(np.float32)
        np.save(path + ".input.npy", x)
        return

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            path = os.path.join(tmp, f"{name}.onnx")
            # Built in a child: a parent holding the weights would inflate every child's peak RSS
            # (a forked child's ru_maxrss counts the parent's pages it shared before exec).
            subprocess.run([sys.executable, __file__, "--build", name, str(args.size), path], check=True)
            res: dict[str, dict[str, float]] = {}
            outs: dict[str, np.ndarray] = {}
            for tool in args.tools.split(","):
                rep = args.ref_repeat if tool == "reference" else args.repeat
                out_path = os.path.join(tmp, f"{name}.{tool}.npy")
                print(f"{name}: {tool} ...", file=sys.stderr, flush=True)
                env = dict(os.environ)
                if tool == "sonnx-1thread":  # NumPy's BLAS on one thread, like ort-1thread
                    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
                proc = subprocess.run(
                    [sys.executable, "-c", CHILD, path, tool, str(rep), out_path],
                    capture_output=True, text=True, check=False, env=env,
                )
                if proc.returncode != 0:
                    print(proc.stderr[-2000:], file=sys.stderr)
                    continue
                res[tool] = json.loads(proc.stdout.strip().splitlines()[-1])
                outs[tool] = np.load(out_path)
            diff = float(np.max(np.abs(outs["sonnx"] - outs["ort-1thread"]))) if {"sonnx", "ort-1thread"} <= set(
                outs) else float("nan")
            rows.append((name, res, diff))
    print(f"input 1x3x{args.size}x{args.size}; median seconds per run (peak RSS GB)\n")
    print("| model | sonnx | sonnx 1 thread | ReferenceEvaluator | ort 1 thread | ort default | Reference / sonnx | "
          "sonnx / ort-1t | sonnx-1t / ort-1t | max abs diff sonnx vs ort |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, res, diff in rows:
        def cell(t: str, res: dict[str, dict[str, float]] = res) -> str:
            r = res.get(t)
            return f"{r['median']:.3f} ({r['rss_gb']:.2f})" if r else "failed"

        def ratio(a: str, b: str, res: dict[str, dict[str, float]] = res) -> str:
            return f"{res[a]['median'] / res[b]['median']:.1f}x" if a in res and b in res else "-"

        print(f"| {name} | {cell('sonnx')} | {cell('sonnx-1thread')} | {cell('reference')} | {cell('ort-1thread')} | "
              f"{cell('ort-default')} | {ratio('reference', 'sonnx')} | {ratio('sonnx', 'ort-1thread')} | "
              f"{ratio('sonnx-1thread', 'ort-1thread')} | {diff:.2e} |")


if __name__ == "__main__":
    main()
