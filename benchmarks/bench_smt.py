"""Benchmark: every SMT rule proof together, beside the direct engine and onnx.checker, on random DAGs.

For random-DAG models (the generator of ``bench_structural.py``) of 100k and
1M operations, each measured thing runs in a fresh process:

* ``smt``: the SMT engine's proofs of every rule (``run_smt``, its default
  mode for the size: certificate mode) on the model loaded without weights,
  with ``--jobs`` worker processes (``default``: every core); the child also
  writes every obligation as ``sonnx-check --smt-dir`` would and times it;
* ``direct``: the direct engine's checks of the same rules;
* ``sonnx-check``: ``sonnx check --structure-only -q`` with its default
  engine (``auto``: both engines, and their agreement), load included;
* ``onnx.checker``: ``onnx.load`` then ``check_model``, the peer.

The parent measures the wall time and samples the resident memory of the
child and of every process below it (the solver pool's forkserver and
workers) every 20 ms: "peak GB" is the highest sum seen, "hwm GB" the sum of
each process's own peak (``VmHWM``, an upper bound of the true peak). CPU
seconds are the child's own plus the workers' CPU time on the obligations
(each worker measures its jobs). Every measurement notes the load average
before and after it: the machine is shared. Usage::

    python benchmarks/bench_smt.py [--sizes 100000,1000000] [--repeat 3] [--jobs default,1] [--out benchmarks/out]

Prints, per size, the table of medians and the per-rule split (encode,
write, parse, solve) of the median parallel run, as kept in
``benchmarks/README.md``. Targets at 1M: all rule proofs at most 30 s wall
and 4 GB over all processes on the 2-core machine; at 100k at most 3 s.
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
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_structural import CHECKER_SNIPPET, build  # noqa: E402
from proctree import Sampler  # noqa: E402

SMT_CHILD = """
import json, sys, tempfile, time
from sonnx.loader import load_model
from sonnx.smt import run_smt, write_obligations
def main():
    t0 = time.perf_counter()
    m = load_model(sys.argv[1], read_weights=False)
    t1 = time.perf_counter()
    c1 = time.process_time()
    run = run_smt(m, jobs=None if sys.argv[2] == "default" else int(sys.argv[2]))
    t2 = time.perf_counter()
    cpu = time.process_time() - c1
    rules = {}
    for rid, t in run.timings.items():
        rules[rid] = {"encode": t.encode, "parse": t.parse, "solve": t.solve, "worker_cpu": t.worker_cpu,
                      "obligations": t.obligations, "mb": t.megabytes, "write": 0.0}
    with tempfile.TemporaryDirectory() as d:
        for rid in rules:
            obs = [o for o in run.obligations if o.rule_id == rid]
            w0 = time.perf_counter()
            write_obligations(obs, d, "m.onnx", rid)
            rules[rid]["write"] = time.perf_counter() - w0
    bad = sum(v.status.value != "PROVED" for v in run.verdicts)
    print(json.dumps({"load": t1 - t0, "rules": t2 - t1, "cpu": cpu + sum(r["worker_cpu"] for r in rules.values()),
                      "mode": run.mode, "workers": run.workers, "bad": bad, "per_rule": rules}))
if __name__ == "__main__":
    main()
"""

DIRECT_CHILD = """
import json, sys, time
from sonnx.loader import load_model
from sonnx.rules import run_rules
from sonnx.smt import RULE_IDS
t0 = time.perf_counter()
m = load_model(sys.argv[1], read_weights=False)
t1 = time.perf_counter()
c1 = time.process_time()
bad = sum(v.rule_id in RULE_IDS and v.status.value != "PROVED" for v in run_rules(m))
print(json.dumps({"load": t1 - t0, "rules": time.perf_counter() - t1, "cpu": time.process_time() - c1, "bad": bad}))
"""


def run(cmd: list[str]) -> dict[str, Any]:
    """Run ``cmd``; its JSON line (if any), wall time, memory of its process tree, load before and after."""
    load0 = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    tree = Sampler(proc.pid)
    out, _ = proc.communicate()
    wall = time.perf_counter() - start
    peak, hwm = tree.stop().peak_gb, tree.hwm_gb
    if proc.returncode not in (0, 1):  # sonnx-check exits 1 on a violation, which these models do not have
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}")
    lines = out.strip().splitlines()
    data = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return {**data, "wall": wall, "peak": peak, "hwm": hwm, "load": (load0, os.getloadavg()[0])}


def commands(path: Path, jobs: list[str]) -> dict[str, list[str]]:
    py = sys.executable
    out = {f"smt --jobs {j}": [py, "-c", SMT_CHILD, str(path), j] for j in jobs}
    out["direct"] = [py, "-c", DIRECT_CHILD, str(path)]
    out["sonnx-check (auto)"] = [py, "-m", "sonnx", "check", "--structure-only", "-q", "--json", str(path)]
    out["onnx.checker"] = [py, "-c", CHECKER_SNIPPET, str(path)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", default="default,1", help="--jobs values of the SMT runs (default: every core)")
    ap.add_argument("--out", default=str(HERE / "out"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = args.jobs.split(",")
    for n in (int(s) for s in args.sizes.split(",")):
        path = out / f"dag{n}.onnx"
        if not path.exists():
            build("dag", n, path)
        results: dict[str, list[dict[str, Any]]] = {}
        for _ in range(args.repeat):  # interleaved, so that a burst of load hits every kind alike
            for name, cmd in commands(path, jobs).items():
                results.setdefault(name, []).append(run(cmd))
                r = results[name][-1]
                load = f"{r['load'][0]:.2f}->{r['load'][1]:.2f}"
                print(f"# {n:,} {name}: wall {r['wall']:.2f} s, load {load}", flush=True)
        report(n, results, jobs)


def _median_run(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return sorted(runs, key=lambda r: r[key])[len(runs) // 2]


def report(n: int, results: dict[str, list[dict[str, Any]]], jobs: list[str]) -> None:
    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    smt = f"smt --jobs {jobs[0]}"
    print(f"\n{n:,} operations, median of {len(results[smt])} runs (load average before/after each run in brackets)")
    print("| what | proofs s (runs) | total incl. load s | CPU s | peak GB (all processes) | hwm GB | not proved |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, runs in results.items():
        key = "rules" if "rules" in runs[0] else "wall"
        times = " / ".join(f"{r[key]:.1f}" for r in runs)
        loads = ", ".join(f"{r['load'][0]:.1f}-{r['load'][1]:.1f}" for r in runs)
        cpu = f"{med(name, 'cpu'):.1f}" if "cpu" in runs[0] else "-"
        bad = max(r.get("bad", 0) for r in runs)
        print(
            f"| {name} | {med(name, key):.2f} ({times}) [{loads}] | {med(name, 'wall'):.2f} | {cpu} "
            f"| {max(r['peak'] for r in runs):.2f} | {max(r['hwm'] for r in runs):.2f} | {bad} |"
        )
    proofs = med(smt, "rules") / med("direct", "rules")
    check = med("sonnx-check (auto)", "wall") / med("onnx.checker", "wall")
    print(f"\nratios: smt proofs / direct checks {proofs:.1f}x; sonnx-check (auto) / onnx.checker {check:.1f}x")
    r = _median_run(results[smt], "rules")
    print(f"\nper rule, the median `{smt}` run ({r['workers']} worker processes): encode = this process's Python, "
          "parse and solve = z3 summed over the rule's obligations (in the workers), write = the .smt2 files")
    print("| rule | encode s | parse s | solve s | write s | MB | obligations |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for rid, t in r["per_rule"].items():
        print(f"| {rid} | {t['encode']:.2f} | {t['parse']:.2f} | {t['solve']:.2f} | {t['write']:.2f} "
              f"| {t['mb']:.1f} | {t['obligations']} |")


if __name__ == "__main__":
    main()
