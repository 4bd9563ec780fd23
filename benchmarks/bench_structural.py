"""Benchmark: sonnx-check's structural rules against onnx.checker, both including load.

For chain and random-DAG models of 10k, 100k and 1M operations, each tool runs
in a fresh process; the parent measures wall time and reads the child's peak
resident memory from ``os.wait4``. Ratios are sonnx / onnx.checker in the same
run. Usage::

    python benchmarks/bench_structural.py [--sizes 10000,100000,1000000] [--repeat 3] [--out benchmarks/out]

Prints a Markdown table (the one kept in benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = Path(__file__).resolve().parent

SONNX_CMD = [sys.executable, "-m", "sonnx", "check", "--engine", "direct", "--structure-only", "--quiet", "--json"]
CHECKER_SNIPPET = "import onnx,sys; m=onnx.load(sys.argv[1]); onnx.checker.check_model(m)"
CHECKER_PATH_SNIPPET = "import onnx,sys; onnx.checker.check_model(sys.argv[1])"


def build(kind: str, n: int, path: Path) -> None:
    """Write a chain (each Add reads the previous result and x) or a random DAG of ``n`` Add operations."""
    rng = np.random.default_rng(n)
    g = onnx.GraphProto()
    g.name = f"{kind}{n}"
    names = ["x"]
    for i in range(n):
        node = g.node.add()
        node.op_type = "Add"
        node.name = f"n{i}"
        if kind == "chain":
            a, b = names[-1], "x"
        else:
            lo = max(0, len(names) - 100)
            a = names[int(rng.integers(lo, len(names)))]
            b = names[int(rng.integers(0, len(names)))]
        node.input.extend([a, b])
        out = f"t{i}"
        node.output.append(out)
        names.append(out)
    used: set[str] = set()
    for node in g.node:
        used.update(node.input)
    g.input.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, [1]))
    for name in names[1:]:
        if name not in used:
            g.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [1]))
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())


def measure(cmd: list[str]) -> tuple[float, float, int]:
    """Run ``cmd``; return (wall seconds, peak RSS in GB, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        proc.stderr.close()
    return wall, usage.ru_maxrss / 1e6, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--kinds", default="chain,dag")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "out"))
    ap.add_argument("--generate", nargs=3, metavar=("KIND", "N", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.generate:
        kind, n, path = args.generate
        build(kind, int(n), Path(path))
        return
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    print("| model | ops | sonnx-check s | onnx.checker s | ratio | sonnx GB | checker GB | ratio | "
          "check_model(path) s | sonnx exit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind in args.kinds.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            path = out_dir / f"{kind}{n}.onnx"
            if not path.exists():
                # In a child process: a large parent would inflate every later child's peak RSS
                # (a forked child's ru_maxrss counts the parent's pages it shared before exec).
                print(f"generating {path} ...", file=sys.stderr, flush=True)
                subprocess.run([sys.executable, __file__, "--generate", kind, str(n), str(path)], check=True)
            runs = {"sonnx": [], "checker": [], "checker_path": []}
            codes = set()
            for _ in range(args.repeat):
                w, m, c = measure([*SONNX_CMD, str(path)])
                runs["sonnx"].append((w, m))
                codes.add(c)
                runs["checker"].append(measure([sys.executable, "-c", CHECKER_SNIPPET, str(path)])[:2])
                runs["checker_path"].append(measure([sys.executable, "-c", CHECKER_PATH_SNIPPET, str(path)])[:2])
            t_s = statistics.median(w for w, _ in runs["sonnx"])
            t_c = statistics.median(w for w, _ in runs["checker"])
            m_s = max(m for _, m in runs["sonnx"])
            m_c = max(m for _, m in runs["checker"])
            t_p = statistics.median(w for w, _ in runs["checker_path"])
            print(f"| {kind} | {n:,} | {t_s:.2f} | {t_c:.2f} | {t_s / t_c:.2f}x | {m_s:.2f} | {m_c:.2f} | "
                  f"{m_s / m_c:.2f}x | {t_p:.2f} | {','.join(map(str, sorted(codes)))} |", flush=True)


if __name__ == "__main__":
    main()
