"""Benchmark: sonnx's cost per operation on small models, against onnxruntime in the same process.

Models: the real exports of ``tests/data/real`` (``--models``: a glob there),
those onnxruntime runs in under ``--limit-ms`` (5 ms by default). Each model
is measured in a fresh child process: sonnx loads it as the command line
does, both tools get the same inputs drawn with seed 0, each makes one
warm-up run, then the two tools' runs alternate ``--repeat`` times, so that
both see the same machine. onnxruntime runs with one intra-op and one
inter-op thread and no graph optimization (``ORT_DISABLE_ALL``: the same
operations sonnx runs), sonnx with one BLAS thread.

Figures, medians of the CPU seconds of each run (``time.process_time``: user
and system time of the process, which other work on a shared machine
disturbs less than wall time):

* ``overhead per op``: (sonnx - onnxruntime) / operations fired. On such a
  model onnxruntime's run is mostly its own per-operation cost, so this
  counts everything sonnx spends beyond a compiled runtime doing the same
  arithmetic: the firing loop, each kernel's Python code and NumPy's cost of
  each call. It is the figure the target "at most 10 us per operation"
  is about;
* ``loop per op``: (sonnx - the time inside the kernels) / operations, both
  in wall seconds (medians), the kernels timed by probed runs
  (:class:`sonnx.execution.plan.Probe`): the firing loop's own share
  (argument lists, stores, drops). On a busy machine this difference of two
  wall-clock medians is noisy, and can come out below zero.

``--before-src PATH`` measures another checkout's ``src`` as well, in its own
child right before this one's on each model.

    python benchmarks/bench_small_models.py [--models '*tiny*'] [--repeat 200] [--limit-ms 5]
        [--before-src /other/checkout/src] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "real"
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child(model: str, repeat: int) -> dict[str, Any]:
    """In the child: both tools on ``model``, alternating; the figures as a dict."""
    import time

    import onnxruntime as ort

    from sonnx.execution.executor import Probe, execute, model_plan
    from sonnx.execution.inputs import load_inputs
    from sonnx.loader import load_model

    m = load_model(model, weights_from_file=True)
    feeds = load_inputs(m, None, [], 0)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    ort_feeds = {i.name: feeds[i.name] for i in sess.get_inputs()}
    sess.run(None, ort_feeds)
    execute(m, feeds)
    clock, wall = time.process_time, time.perf_counter
    ort_s, sonnx_s, sonnx_wall, kernels_s = [], [], [], []
    for _ in range(repeat):
        t = clock()
        sess.run(None, ort_feeds)
        ort_s.append(clock() - t)
        t, w = clock(), wall()
        execute(m, feeds)
        sonnx_wall.append(wall() - w)
        sonnx_s.append(clock() - t)
    for _ in range(max(5, repeat // 10)):
        probe = Probe()
        execute(m, feeds, probe=probe)
        kernels_s.append(sum(f.end - f.start for f in probe.firings))
    ops = len(model_plan(m).main.file_sequence)
    return {"ops": ops, "ort_s": statistics.median(ort_s), "sonnx_s": statistics.median(sonnx_s),
            "sonnx_wall_s": statistics.median(sonnx_wall), "kernels_s": statistics.median(kernels_s)}


def measure(model: Path, repeat: int, src: str) -> dict[str, Any]:
    """One model in a fresh child process whose ``sonnx`` comes from ``src``."""
    env = dict(os.environ)
    env.update(ONE_THREAD)
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, __file__, "--child", str(model), str(repeat)], capture_output=True,
                          text=True, env=env, cwd=ROOT, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"status": "failed", "message": last[:200]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["status"] = "ok"
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--models", default="*.onnx", help="a glob of file names in tests/data/real")
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--limit-ms", type=float, default=5.0, help="only models onnxruntime runs in under this")
    ap.add_argument("--before-src", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return 0
    rows: dict[str, dict[str, Any]] = {}
    for path in sorted(CORPUS.glob(args.models)):
        res: dict[str, Any] = {}
        if args.before_src:
            res["before"] = measure(path, args.repeat, args.before_src)
        res["after"] = measure(path, args.repeat, str(ROOT / "src"))
        after = res["after"]
        if after["status"] == "ok" and after["ort_s"] * 1e3 >= args.limit_ms:
            continue
        rows[path.name] = res
        print(f"{path.name}: {json.dumps(res)}", file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def table(rows: dict[str, dict[str, Any]]) -> str:
    """Markdown: per model, operations, CPU ms per run of each tool, overhead and loop cost per operation."""

    def per_op(r: dict[str, Any]) -> str:
        return f"{(r['sonnx_s'] - r['ort_s']) / r['ops'] * 1e6:.1f}"

    lines = ["| model | ops | ORT 1t no-opt ms | sonnx before ms | sonnx ms | overhead/op before us | overhead/op us "
             "| loop/op us |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, res in rows.items():
        a, b = res["after"], res.get("before")
        if a["status"] != "ok":
            lines.append(f"| {name} | failed: {a['message']} | | | | | | |")
            continue
        before_ms, before_op = "-", "-"
        if b is not None and b["status"] == "ok":
            before_ms, before_op = f"{b['sonnx_s'] * 1e3:.3f}", per_op(b)
        lines.append(
            f"| {name} | {a['ops']} | {a['ort_s'] * 1e3:.3f} | {before_ms} | "
            f"{a['sonnx_s'] * 1e3:.3f} | {before_op} | {per_op(a)} | "
            f"{(a['sonnx_wall_s'] - a['kernels_s']) / a['ops'] * 1e6:.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
