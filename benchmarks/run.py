"""One entry point for every benchmark script of ``benchmarks/`` (``make bench``).

Each benchmark is its own script with its own options (see its docstring);
this runs the chosen ones in turn, each in a fresh interpreter with its
default settings, and stops at the first that fails. Usage::

    python benchmarks/run.py            # every benchmark, in the order below
    python benchmarks/run.py smt equiv  # some of them
    python benchmarks/run.py --list     # names and one line each

Benchmarks are long (the largest builds million-operation models) and never
run in CI; their figures go to ``benchmarks/README.md`` by hand, with the
command and the date.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

BENCHMARKS: dict[str, str] = {
    "structural": "bench_structural.py",
    "direct": "bench_direct.py",
    "smt": "bench_smt.py",
    "smt-violations": "bench_smt_violations.py",
    "executor": "bench_executor.py",
    "firing-loop": "bench_firing_loop.py",
    "real": "bench_real_models.py",
    "equiv": "equiv_ort.py",
    "partition": "partition_ort.py",
    "scoreboard": "backend_scoreboard.py",
    "batch": "bench_batch.py",
    "evidence": "bench_evidence.py",
    "proofs": "bench_proofs.py",
    "op-shapes": "bench_op_shapes.py",
    "startup": "bench_startup.py",
    "smt-default": "bench_smt_default.py",
    "small-models": "bench_small_models.py",
    "in-memory": "bench_in_memory.py",
    "changed-files": "bench_changed_files.py",
    "stress-pool": "stress_pool.py",
}
"""Benchmark name -> script. ``cnn_models.py`` is not a benchmark: it builds the models the others use;
``bench_report_api.py`` compares two source trees and needs ``--base-src``, so it is run by hand."""


def first_line(script: str) -> str:
    text = (HERE / script).read_text(encoding="utf-8")
    doc = text.split('"""', 2)[1] if text.startswith('"""') else ""
    return doc.strip().splitlines()[0] if doc.strip() else script


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"benchmarks to run (default: all of {', '.join(BENCHMARKS)})")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = ap.parse_args(argv)
    if args.list:
        for name, script in BENCHMARKS.items():
            print(f"{name:<15} benchmarks/{script}: {first_line(script)}")
        return 0
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        ap.error(f"unknown benchmark {unknown[0]!r} (known: {', '.join(BENCHMARKS)})")
    for name in args.names or list(BENCHMARKS):
        script = HERE / BENCHMARKS[name]
        print(f"== {name}: {sys.executable} {script.relative_to(HERE.parent)}", flush=True)
        code = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        if code:
            print(f"benchmark {name} failed with exit code {code}", file=sys.stderr)
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
