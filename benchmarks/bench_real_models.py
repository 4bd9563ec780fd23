"""Benchmark: sonnx's executor on full-size real models against onnxruntime and onnx's reference evaluator.

Models (full size, seeded random weights, written by ``tools/make_real_models.py --full``
into ``benchmarks/models/``, which git ignores): torchvision's resnet18,
squeezenet1_1, shufflenet_v2_x0_5, mobilenet_v3_small, efficientnet_b0,
regnet_x_400mf and vit_b_16 on 1x3x224x224, BERT-base and GPT-2 small on 128
tokens. A model not generated is skipped with a message saying how to
generate it.

Every tool runs in a fresh process on the same stored inputs: load, one
warm-up run, then ``--repeat`` timed runs (fewer when the warm-up run shows
that they would take more than a minute, but at least 3); the child reports
min and median wall seconds per run and the CPU seconds (user + system, from
``getrusage``) per timed run, and the parent takes its peak RSS from
``os.wait4``. On a machine shared with other work the CPU seconds are the
steadier measure: wall time also counts the time other processes held the core.

* ``sonnx-1t``: ``sonnx.execution.executor.execute`` with NumPy's BLAS limited to one
  thread (threadpoolctl and the BLAS environment variables); after the timed
  runs, one profiled run gives the largest live set (the most bytes of live
  values over the schedule, from the plan's lifetimes) and the weights' bytes;
* ``ort-1t-noopt``: onnxruntime, one intra-op and one inter-op thread,
  ``ORT_DISABLE_ALL`` (no graph optimization: the same operations sonnx runs);
* ``ort-1t-default``: onnxruntime, one thread each, default optimization level;
* ``reference``: ``onnx.reference.ReferenceEvaluator`` with one BLAS thread, one
  run after loading (no warm-up), stopped after ``--ref-budget`` seconds and reported as over
  budget, never dropped.

Ratios compare tools measured in the same invocation. Outputs of sonnx and
onnxruntime (no optimization) are compared (max abs difference).
``--before-src PATH`` adds ``sonnx-1t-before``: the same sonnx child with
another checkout's ``src`` first on ``PYTHONPATH``, measured right before
``sonnx-1t`` on each model, so that "before" and "after" share the machine's
conditions (the figures of ``benchmarks/README.md``).

Each child also reports its peak RSS right after its imports (before the
model is loaded): the interpreter and libraries, which no model needs.

    python benchmarks/bench_real_models.py [--repeat 10] [--models a,b] [--tools ...] [--ref-budget 300]
        [--before-src /main/checkout/src] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = ROOT / "benchmarks" / "models"
MODELS = ("resnet18", "squeezenet1_1", "shufflenet_v2_x0_5", "mobilenet_v3_small", "efficientnet_b0",
          "regnet_x_400mf", "vit_b_16", "bert_base", "gpt2_small")
TOOLS = ("sonnx-1t-before", "sonnx-1t", "ort-1t-noopt", "ort-1t-default", "reference")
"""``sonnx-1t-before`` is ``sonnx-1t`` run from the checkout given by ``--before-src`` (skipped without it)."""
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child(tool: str, model: str, inputs: str, repeat: int, out: str) -> None:
    """Run in the child process: time ``tool`` on ``model`` and print one JSON line."""
    import resource

    import numpy as np

    with np.load(inputs) as data:
        feeds = {k: data[k] for k in data.files}
    extra: dict[str, Any] = {}
    if tool.startswith("sonnx"):
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
        import sonnx
        from sonnx.execution.executor import execute
        from sonnx.loader import load_model
    elif tool == "reference":
        from onnx.reference import ReferenceEvaluator
    else:
        import onnxruntime as ort
    extra["import_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9
    t_load = time.perf_counter()
    if tool.startswith("sonnx"):
        try:
            m = load_model(model, weights_from_file=True)  # as the command line loads
        except TypeError:  # a --before-src checkout older than the option
            m = load_model(model)
        extra["sonnx"] = str(Path(sonnx.__file__).resolve().parent)

        def run() -> Any:
            return execute(m, feeds)
    elif tool == "reference":
        ref = ReferenceEvaluator(model)

        def run() -> Any:
            return dict(zip(ref.output_names, ref.run(None, feeds), strict=True))
    else:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        if tool == "ort-1t-noopt":
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs()]
        extra["onnxruntime"] = ort.__version__

        def run() -> Any:
            return dict(zip(names, sess.run(None, feeds), strict=True))
    load_s = time.perf_counter() - t_load
    t = time.perf_counter()
    start = resource.getrusage(resource.RUSAGE_SELF)
    first = run()
    first_s = time.perf_counter() - t
    end = resource.getrusage(resource.RUSAGE_SELF)
    first_cpu = end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime
    times = [first_s] if tool == "reference" else []
    # slow runs (an Erf kernel on BERT-base and ViT-B/16) get fewer repeats: at least 3, about a minute in all
    repeat = max(3, min(repeat, int(60.0 / max(first_s, 1e-9))))
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(0 if tool == "reference" else repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    after = resource.getrusage(resource.RUSAGE_SELF)
    if tool == "reference":
        cpu = first_cpu
    else:
        cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / repeat
    if tool.startswith("sonnx"):
        try:
            from sonnx.execution.executor import Probe
        except ImportError:  # a checkout without the compiled plan (the "before" figures)
            pass
        else:
            probe = Probe()
            execute(m, feeds, probe=probe)
            extra.update(peak_live_bytes=probe.peak_live_bytes, weights_bytes=probe.initial_bytes,
                         kernels_s=sum(f.end - f.start for f in probe.firings), profiled_run_s=probe.end - probe.start)
    np.savez(out, **{k: np.asarray(v) for k, v in first.items()})
    print(json.dumps({"load_s": load_s, "first_s": first_s, "min": min(times), "median": statistics.median(times),
                      "runs": len(times), "cpu": cpu, **extra}))


def measure(tool: str, path: Path, inputs: Path, repeat: int, budget: float | None, out: str,
            before_src: str | None) -> dict[str, Any]:
    """One tool on one model in a fresh process: the child's figures, its peak RSS, or why there are none."""
    env = dict(os.environ)
    if tool.startswith("sonnx") or tool == "reference":
        # one BLAS thread for the reference evaluator too: its products are NumPy's, and a second thread spinning
        # beside other work inflates its CPU seconds (ViT-B/16: 19.9 s of CPU for a 4.7 s run on a loaded machine)
        env.update(ONE_THREAD)
    if tool == "sonnx-1t-before":
        assert before_src is not None
        env["PYTHONPATH"] = before_src + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, __file__, "--child", tool, str(path), str(inputs), str(repeat), out]
    start = time.perf_counter()
    with tempfile.TemporaryFile(mode="w+") as so, tempfile.TemporaryFile(mode="w+") as se:
        proc = subprocess.Popen(cmd, stdout=so, stderr=se, env=env, cwd=ROOT)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if budget is not None and time.perf_counter() - start > budget:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        so.seek(0)
        se.seek(0)
        stdout, stderr = so.read(), se.read()
    rss_gb = usage.ru_maxrss * 1024 / 1e9  # Linux reports kilobytes
    if timed_out:
        return {"status": "over budget", "budget_s": budget, "rss_gb": rss_gb}
    if proc.returncode != 0:
        last = (stderr.strip().splitlines() or ["no message"])[-1]
        return {"status": "failed", "message": last[:300], "rss_gb": rss_gb}
    result = json.loads(stdout.strip().splitlines()[-1])
    result.update(status="ok", rss_gb=rss_gb)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--ref-budget", type=float, default=300.0, help="seconds for the reference evaluator per model")
    ap.add_argument("--before-src", default=None, help="measure sonnx-1t-before from this src folder too")
    ap.add_argument("--models-dir", default=str(MODELS_DIR))
    ap.add_argument("--json", default=None, help="also write every figure to this file")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        tool, model, inputs, repeat, out = args.child
        child(tool, model, inputs, int(repeat), out)
        return 0
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    tools = [t for t in args.tools.split(",") if t and (t != "sonnx-1t-before" or args.before_src)]
    unknown = [t for t in tools if t not in TOOLS] + [m for m in args.models.split(",") if m not in MODELS]
    if unknown:
        ap.error(f"unknown tool or model {unknown[0]!r} (tools: {', '.join(TOOLS)}; models: {', '.join(MODELS)})")
    import numpy as np

    folder = Path(args.models_dir)
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            path, inputs = folder / f"{name}.onnx", folder / f"{name}.inputs.npz"
            if not path.exists() or not inputs.exists():
                print(f"{name}: skipped, {path} not generated; generate it with a Python that has torch, torchvision "
                      f"and transformers: python tools/make_real_models.py --full --only {name}", flush=True)
                rows[name] = {"skipped": f"{path.name} not generated"}
                continue
            res: dict[str, Any] = {}
            for tool in tools:
                print(f"{name}: {tool} ...", file=sys.stderr, flush=True)
                out = os.path.join(tmp, f"{name}.{tool}.npz")
                budget = args.ref_budget if tool == "reference" else None
                res[tool] = measure(tool, path, inputs, args.repeat, budget, out, args.before_src)
                if res[tool]["status"] == "ok":
                    with np.load(out) as d:
                        res[tool]["outputs"] = {k: d[k] for k in d.files}
            a, b = res.get("sonnx-1t", {}).get("outputs"), res.get("ort-1t-noopt", {}).get("outputs")
            if a is not None and b is not None:
                res["max_abs_diff"] = max(float(np.max(np.abs(a[k].astype(np.float64) - b[k].astype(np.float64))))
                                          for k in a if k in b and a[k].size)
            before = res.get("sonnx-1t-before", {}).get("outputs")
            if a is not None and before is not None:
                res["same_as_before"] = sorted(a) == sorted(before) and all(
                    a[k].dtype == before[k].dtype and a[k].shape == before[k].shape
                    and a[k].tobytes() == before[k].tobytes() for k in a)
            for r in res.values():
                if isinstance(r, dict):
                    r.pop("outputs", None)
            rows[name] = res
            print(f"{name}: {json.dumps(res)}", file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def table(rows: dict[str, dict[str, Any]]) -> str:
    """The figures as a Markdown table: median wall seconds / CPU seconds per run (peak RSS GB), ratios, memory.

    Ratios are of CPU seconds per run, the wall-clock ratio in parentheses (on
    a shared machine, wall time counts the time other processes held the core).
    """

    def cell(r: dict[str, Any] | None) -> str:
        if r is None:
            return "-"
        if r["status"] == "over budget":
            return f"> {r['budget_s']:.0f} s (budget; {r['rss_gb']:.2f})"
        if r["status"] != "ok":
            return f"failed: {r['message']}"
        return f"{r['median']:.4f} / {r['cpu']:.4f} ({r['rss_gb']:.2f})"

    def ratio(x: dict[str, Any] | None, y: dict[str, Any] | None) -> str:
        if x is None or y is None or x.get("status") != "ok" or y.get("status") != "ok":
            if x is not None and x.get("status") == "over budget" and y is not None and y.get("status") == "ok":
                return f"> {x['budget_s'] / y['median']:.0f}x (wall)"
            return "-"
        return f"{x['cpu'] / y['cpu']:.2f}x ({x['median'] / y['median']:.2f}x)"

    lines = [
        "| model | sonnx 1t before | sonnx 1t after | ORT 1t no-opt | ORT 1t default | reference (1 run) | "
        "before / ORT no-opt | after / ORT no-opt | after / ORT default | reference / after | "
        "live set + weights GB | after: RSS above imports / (live + weights) | after = before | "
        "max abs diff vs ORT |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, res in rows.items():
        if "skipped" in res:
            lines.append(f"| {name} | skipped: {res['skipped']} |" + " |" * 12)
            continue
        s, b = res.get("sonnx-1t"), res.get("sonnx-1t-before")
        noopt, default = res.get("ort-1t-noopt"), res.get("ort-1t-default")
        live, mem_ratio = "-", "-"
        if s and s.get("status") == "ok" and "peak_live_bytes" in s:
            need = (s["peak_live_bytes"] + s["weights_bytes"]) / 1e9
            live = f"{s['peak_live_bytes'] / 1e9:.3f} + {s['weights_bytes'] / 1e9:.3f}"
            above = s["rss_gb"] - s["import_rss_gb"]
            mem_ratio = f"{above:.2f} / {need:.3f} = {above / need:.1f}x" if need else "-"
        diff = res.get("max_abs_diff")
        same = res.get("same_as_before")
        lines.append(
            f"| {name} | {cell(b)} | {cell(s)} | {cell(noopt)} | {cell(default)} | {cell(res.get('reference'))} | "
            f"{ratio(b, noopt)} | {ratio(s, noopt)} | {ratio(s, default)} | {ratio(res.get('reference'), s)} | "
            f"{live} | {mem_ratio} | {'-' if same is None else 'bit-identical' if same else 'DIFFERENT'} | "
            f"{'-' if diff is None else f'{diff:.2e}'} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
