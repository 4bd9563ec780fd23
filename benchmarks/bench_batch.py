"""Benchmark: ``sonnx batch`` on onnx's light models, serial against two workers (process pool and Dask).

Each run is ``python -m sonnx batch --json -q LIGHT_DIR`` in a fresh process
with ``--jobs 1`` (serial, in-process), ``--workers 2 --executor pool`` or
``--workers 2 --executor dask`` (an embedded LocalCluster, its start-up
included); the parent measures the wall time. Every run's per-model JSON must
equal the serial run's, or the benchmark fails. Two workloads: ``check``
(``sonnx-check``'s defaults: rules and SMT proofs) and ``certify`` (the same
plus ``--orders 3 --cross-check onnxruntime``, the per-model work of a
certification campaign). Usage::

    python benchmarks/bench_batch.py [--repeat 3] [--workers 2] [--workload check|certify]

Prints a Markdown table (the one kept in benchmarks/README.md): median and
all times, and the speed-up over serial.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


WORKLOADS: dict[str, list[str]] = {
    "check": [],
    "certify": ["--orders", "3", "--cross-check", "onnxruntime"],
}


def run(mode: list[str], workload: list[str]) -> tuple[float, dict[str, object]]:
    cmd = [sys.executable, "-m", "sonnx", "batch", "--json", "-q", *workload, *mode, str(LIGHT)]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stderr}")
    return seconds, json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="check")
    args = ap.parse_args(argv)
    n = str(args.workers)
    modes = {
        "serial (--jobs 1)": ["--jobs", "1"],
        f"process pool, {n} workers": ["--workers", n, "--executor", "pool"],
        f"Dask LocalCluster, {n} workers": ["--workers", n, "--executor", "dask"],
    }
    models = len(list(LIGHT.glob("*.onnx")))
    print(
        f"{models} light models from {LIGHT}; workload {args.workload}; {os.cpu_count()} cores; "
        f"{args.repeat} runs per mode",
        flush=True,
    )
    reference = None
    rows = []
    for name, mode in modes.items():
        times = []
        for _ in range(args.repeat):
            seconds, doc = run(mode, WORKLOADS[args.workload])
            times.append(seconds)
            if reference is None:
                reference = doc["models"]
            elif doc["models"] != reference:
                raise SystemExit(f"{name}: the verdicts differ from the serial run's")
            print(f"  {name}: {seconds:.2f} s", flush=True)
        rows.append((name, statistics.median(times), times))
    serial = rows[0][1]
    print()
    print("| mode | median s | runs s | speed-up over serial |")
    print("|---|---:|---|---:|")
    for name, median, times in rows:
        print(f"| {name} | {median:.2f} | {', '.join(f'{t:.2f}' for t in times)} | {serial / median:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
