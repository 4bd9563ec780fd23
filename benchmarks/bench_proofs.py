"""Benchmark: what the Coq development costs, and the Python semantics against the runner extracted from it.

Three figures, each in wall seconds and CPU seconds of the processes involved:

* the Coq check (``python -m tools.coq_check``: every file compiled, every
  listed theorem's assumptions printed);
* the build of the extracted runner (``tools.coq_runner.build``);
* the differential test's work on ``--graphs`` generated graphs (seed
  ``--seed``), split into its parts: generating the graphs, the extracted
  OCaml runner on all of them (the peer: the same semantics, extracted from
  Coq), :mod:`sonnx.model.semantics` compared on them (``differences``:
  ``run`` under several schedulers and ``fire`` step by step), and the
  compiled plan compared on them (``plan_differences``).

A difference found is printed and makes the exit code 1: the figures of a
run that disagrees are not benchmark figures. The machine's load average is
printed with the figures, since the table in ``benchmarks/README.md`` records
it.

    python benchmarks/bench_proofs.py [--graphs 60000] [--seed 35]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(what: Callable[[], T]) -> tuple[T, float, float]:
    """``what()``, its wall seconds, and the CPU seconds of this process and of the children it waited for."""
    wall, cpu, child = time.perf_counter(), time.process_time(), _children_cpu()
    result = what()
    return result, time.perf_counter() - wall, time.process_time() - cpu + _children_cpu() - child


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--graphs", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.common import coq_diff
    from tools import coq_runner

    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    rows: list[tuple[str, float, float]] = []
    done, wall, cpu = timed(
        lambda: subprocess.run([sys.executable, "-m", "tools.coq_check"], cwd=ROOT, capture_output=True, check=False)
    )
    if done.returncode != 0:
        print(f"the Coq check failed: {done.stdout.decode()[-400:]}{done.stderr.decode()[-400:]}", file=sys.stderr)
        return 1
    rows.append(("Coq check", wall, cpu))
    with tempfile.TemporaryDirectory() as tmp:
        runner, wall, cpu = timed(lambda: coq_runner.build(Path(tmp)))
        rows.append(("extracted runner built", wall, cpu))
        rng = random.Random(args.seed)
        cases, wall, cpu = timed(lambda: [coq_diff.generate(rng) for _ in range(args.graphs)])
        rows.append((f"{args.graphs} graphs generated", wall, cpu))
        results, wall, cpu = timed(lambda: coq_diff.run_coq(runner, cases))
        rows.append(("extracted runner (OCaml) on them", wall, cpu))
        pairs = list(zip(cases, results, strict=True))
        found, wall, cpu = timed(
            lambda: [d for k, (c, r) in enumerate(pairs) for d in coq_diff.differences(c, r, seed=k)]
        )
        rows.append(("sonnx.model.semantics compared", wall, cpu))
        found_plan, wall, cpu = timed(
            lambda: [d for k, (c, r) in enumerate(pairs) for d in coq_diff.plan_differences(c, r, k)]
        )
        rows.append(("compiled plan compared", wall, cpu))
    for n, (what, wall, cpu) in enumerate(rows):
        rate = f"  ({args.graphs / wall:,.0f} graphs/s)" if n >= 2 else ""  # the rows after the two builds
        print(f"{what:<36} wall {wall:7.2f} s  CPU {cpu:7.2f} s{rate}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if found or found_plan:
        print(f"differences found: {(found + found_plan)[:3]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
