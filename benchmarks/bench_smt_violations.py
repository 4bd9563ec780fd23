"""Benchmark: the SMT engine on violated models scales like it does on satisfied ones.

Each case is a chain of ``n`` operations (``Relu``, each reading the previous
result) with one planted defect, next to the same chain without it:

* ``satisfied``: the plain chain, every rule holds;
* ``undefined-output``: the only graph output is a name nothing defines (the
  case that stalled the old search fallback), so every operation is also dead;
* ``undefined-read``: the operation in the middle reads a name nothing defines;
* ``cycle``: the first operation also reads the last one's result (a cycle of ``n``);
* ``double-assignment``: one more operation writes a tensor of the middle of the chain;
* ``dead-node``: one more operation whose result nothing reads;
* ``unread-input``: one more graph input that nothing reads;
* ``nondeterministic``: the first operation is ``RandomUniformLike``, which reaches the output.

For each case and size, the SMT engine (``run_smt``, its default mode for the
size: search up to 1,000 operations, certificate mode above) and the direct
engine (``run_rules``) each run in a fresh process on the model loaded without
weights; the parent measures wall time of the rules (load excluded, measured
in the child) and the peak resident memory of the child and every process
below it (the SMT engine's solver workers; sampled with ``proctree.Sampler``). The child
also reports every rule that is not PROVED, and the benchmark fails if the
planted rule does not come out VIOLATED from both engines. Usage::

    python benchmarks/bench_smt_violations.py [--sizes 1000,10000,100000] [--cases cycle,dead-node] [--out DIR]

Prints a Markdown table (the one kept in benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from onnx import GraphProto, TensorProto, helper

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from proctree import Sampler  # noqa: E402

Case = tuple[str, Callable[[GraphProto, int], None]]


def _chain(g: GraphProto, n: int, first: str = "Relu") -> None:
    prev = "x"
    for i in range(n):
        node = g.node.add()
        node.op_type = first if i == 0 else "Relu"
        node.name = f"n{i}"
        node.input.append(prev)
        prev = f"t{i}"
        node.output.append(prev)


def _extra(g: GraphProto, op: str, ins: list[str], out: str, name: str) -> None:
    node = g.node.add()
    node.op_type, node.name = op, name
    node.input.extend(ins)
    node.output.append(out)


def _value(name: str) -> object:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])


def satisfied(g: GraphProto, n: int) -> None:
    _chain(g, n)
    g.output.append(_value(f"t{n - 1}"))


def undefined_output(g: GraphProto, n: int) -> None:
    _chain(g, n)
    g.output.append(_value("ghost"))


def undefined_read(g: GraphProto, n: int) -> None:
    _chain(g, n)
    g.node[n // 2].input[0] = "ghost"
    g.output.append(_value(f"t{n - 1}"))


def cycle(g: GraphProto, n: int) -> None:
    _chain(g, n)
    g.node[0].op_type = "Add"
    g.node[0].input.append(f"t{n - 1}")
    g.output.append(_value(f"t{n - 1}"))


def double_assignment(g: GraphProto, n: int) -> None:
    _chain(g, n)
    _extra(g, "Relu", ["x"], f"t{n // 2}", "again")
    g.output.append(_value(f"t{n - 1}"))


def dead_node(g: GraphProto, n: int) -> None:
    _chain(g, n)
    _extra(g, "Relu", ["x"], "unused", "dead")
    g.output.append(_value(f"t{n - 1}"))


def unread_input(g: GraphProto, n: int) -> None:
    satisfied(g, n)
    g.input.append(_value("spare"))


def nondeterministic(g: GraphProto, n: int) -> None:
    _chain(g, n, first="RandomUniformLike")
    g.output.append(_value(f"t{n - 1}"))


CASES: dict[str, tuple[Callable[[GraphProto, int], None], str]] = {
    "satisfied": (satisfied, ""),
    "undefined-output": (undefined_output, "GRAPH-C3"),
    "undefined-read": (undefined_read, "GRAPH-C3"),
    "cycle": (cycle, "GRAPH-ACYCLIC"),
    "double-assignment": (double_assignment, "GRAPH-C1"),
    "dead-node": (dead_node, "GRAPH-R1"),
    "unread-input": (unread_input, "GRAPH-C2"),
    "nondeterministic": (nondeterministic, "GRAPH-DETERMINISM"),
}
"""Case -> (builder, the rule it violates; empty for the satisfied chain)."""


def build(case: str, n: int, path: Path) -> None:
    g = GraphProto()
    g.name = f"{case}{n}"
    g.input.append(_value("x"))
    CASES[case][0](g, n)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())


CHILD = """
import sys, time
from sonnx.loader import load_model
m = load_model(sys.argv[2], read_weights=False)
t0 = time.perf_counter()
if sys.argv[1] == "smt":
    from sonnx.smt import run_smt
    run = run_smt(m)
    verdicts, mode = run.verdicts, run.mode
else:
    from sonnx.rules import run_rules
    verdicts, mode = run_rules(m), "-"
t1 = time.perf_counter()
from sonnx.smt.engine import RULE_IDS
bad = sorted(f"{v.rule_id}={v.status.value}" for v in verdicts if v.rule_id in RULE_IDS and v.status.value != "PROVED")
print(f"{t1 - t0:.3f} {mode} {','.join(bad) or '-'}")
"""


def measure(engine: str, path: Path) -> tuple[float, float, str, str]:
    """Run one engine in a child: (rules s, peak RSS GB, mode, rules not PROVED as RULE=STATUS)."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, engine, str(path)], stdout=subprocess.PIPE, text=True)
    tree = Sampler(proc.pid)
    stdout, _ = proc.communicate()
    peak = tree.stop().peak_gb
    out = stdout.split()
    if proc.returncode != 0 or len(out) != 3:
        raise SystemExit(f"{engine} failed on {path}")
    return float(out[0]), peak, out[1], out[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", default=str(HERE / "out"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[str] = []
    base: dict[int, float] = {}
    failures: list[str] = []
    cases = [c for c in CASES if c in args.cases.split(",")]
    if "satisfied" in cases:
        cases.remove("satisfied")
        cases.insert(0, "satisfied")
    for n in (int(s) for s in args.sizes.split(",")):
        for case in cases:
            path = out / f"viol-{case}-{n}.onnx"
            if not path.exists():
                build(case, n, path)
            d_s, d_gb, _, d_bad = measure("direct", path)
            s_s, s_gb, mode, s_bad = measure("smt", path)
            if case == "satisfied":
                base[n] = s_s
            rule = CASES[case][1]
            for engine, bad in (("direct", d_bad), ("smt", s_bad)):
                if (rule and f"{rule}=VIOLATED" not in bad.split(",")) or (not rule and bad != "-"):
                    failures.append(f"{case} {n}: {engine} gave {bad}")
            ratio = f"{s_s / base[n]:.1f}" if base.get(n) else "-"
            shown = s_bad.replace("GRAPH-", "").replace("=VIOLATED", " V").replace("=UNKNOWN", " U").replace(",", ", ")
            rows.append(
                f"| {case} | {n:,} | {mode} | {s_s:.2f} | {ratio} | {s_gb:.2f} | {d_s:.2f} | {d_gb:.2f} | {shown} |"
            )
            print(rows[-1], flush=True)
    print()
    print("| case | operations | smt mode | smt rules s | / satisfied | smt GB | direct rules s | direct GB |"
          " not proved (smt) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    print("\n".join(rows))
    if failures:
        raise SystemExit("unexpected verdicts:\n" + "\n".join(failures))


if __name__ == "__main__":
    started = time.time()
    main()
    print(f"\n(benchmark took {time.time() - started:.0f} s)")
