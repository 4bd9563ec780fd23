"""Benchmark: every SMT rule proof together, next to the direct engine, on random DAGs.

For random-DAG models (the generator of ``bench_structural.py``) of 100k and
1M operations, each engine runs in a fresh process on the loaded model
(``--structure-only`` semantics: weights are not read); the parent measures
wall time and the child's peak resident memory (``os.wait4``). The SMT engine
runs in its default mode for the size (certificate mode above
``SolverSettings.search_limit`` operations). Usage::

    python benchmarks/bench_smt.py [--sizes 100000,1000000] [--out benchmarks/out]

Prints a Markdown table. Targets at 1M: at most 60 s and 4 GB for the SMT engine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_structural import build  # noqa: E402

CHILD = """
import sys, time
from sonnx.loader import load_model
t0 = time.perf_counter()
m = load_model(sys.argv[2], read_weights=False)
t1 = time.perf_counter()
steps = []
def note(msg):
    steps.append((time.perf_counter(), msg.split()[-2] if msg.startswith("smt: proving") else msg))
if sys.argv[1] == "smt":
    from sonnx.smt import run_smt
    run = run_smt(m, progress=note)
    bad = [v for v in run.verdicts if v.status.value != "PROVED"]
    mode = run.mode
else:
    from sonnx.rules import run_rules
    bad = [v for v in run_rules(m) if v.rule_id in {
        "GRAPH-ACYCLIC", "GRAPH-C1", "GRAPH-C2", "GRAPH-C3", "GRAPH-R1", "GRAPH-R1-TRANSITIVE", "GRAPH-R2"}
        and v.status.value != "PROVED"]
    mode = "-"
t2 = time.perf_counter()
marks = [(t1, "facts")] + steps + [(t2, "end")]
per_rule = ",".join(f"{a[1]}={b[0] - a[0]:.1f}" for a, b in zip(marks, marks[1:]))
print(f"{t1 - t0:.2f} {t2 - t1:.2f} {mode} {len(bad)} {per_rule or '-'}")
"""


def measure(engine: str, path: Path) -> tuple[float, float, float, str, str, str]:
    """Run one engine in a child: (total wall s, rules s, peak RSS GB, mode, non-proved count, per-rule s)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, engine, str(path)], stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    assert proc.stdout is not None
    out = proc.stdout.read().split()
    if os.waitstatus_to_exitcode(status) != 0 or len(out) != 5:
        raise SystemExit(f"{engine} failed on {path}")
    _load, rules, mode, bad, per_rule = out
    return wall, float(rules), usage.ru_maxrss / 1e6, mode, bad, per_rule


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--out", default=str(HERE / "out"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        path = out / f"dag{n}.onnx"
        if not path.exists():
            build("dag", n, path)
        for engine in ("direct", "smt"):
            wall, rules, rss, mode, bad, per_rule = measure(engine, path)
            rows.append(f"| {n:,} | {engine} | {mode} | {rules:.1f} | {wall:.1f} | {rss:.2f} | {bad} |")
            if engine == "smt":
                print(f"{n:,} smt per step (s): {per_rule.replace(',', ', ')}", flush=True)
    print("| operations | engine | mode | rules (s) | total incl. load (s) | peak RSS (GB) | not proved |")
    print("|---:|---|---|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
