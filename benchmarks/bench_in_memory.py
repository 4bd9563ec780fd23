"""Benchmark: checking an ``onnx.ModelProto`` in memory against checking its file, beside onnx's own checker.

Each measurement runs in a fresh process (so that peak memory is its own), and
the variants are interleaved round by round, so a machine loaded by other work
weighs on all of them alike:

* ``sonnx file``: ``sonnx.check(path)``;
* ``sonnx proto``: ``sonnx.check(proto)`` on the proto ``onnx.load(path)`` gave (the load is not timed);
* ``onnx file`` / ``onnx proto``: ``onnx.checker.check_model(..., full_check=True)``, the peer.

CPU is user + system time of the process and of its children (the checker's
sandbox); peak memory is the largest resident set of either. Models: a real
export from ``tests/data/real`` and a generated chain of ``--ops`` operations.

    python benchmarks/bench_in_memory.py [--rounds 3] [--ops 100000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "real" / "shufflenet_v2.torchscript.onnx"

CHILD = r"""
import json, resource, sys, time
import onnx
variant, path = sys.argv[1], sys.argv[2]
proto = onnx.load(path) if variant.endswith("proto") else None
t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
if variant.startswith("sonnx"):
    import sonnx
    report = sonnx.check(proto if proto is not None else path)
    result = report.outcome
else:
    onnx.checker.check_model(proto if proto is not None else path, full_check=True)
    result = "ok"
wall = time.perf_counter() - t0
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (me.ru_utime - c0.ru_utime) + (me.ru_stime - c0.ru_stime) + kids.ru_utime + kids.ru_stime
print(json.dumps({"wall": wall, "cpu": cpu, "rss_mib": max(me.ru_maxrss, kids.ru_maxrss) / 1024, "result": result}))
"""

VARIANTS = ("sonnx file", "sonnx proto", "onnx file", "onnx proto")


def chain(ops: int, path: Path) -> None:
    """A chain of ``ops`` Add operations, each adding a small weight of its own."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    for i in range(ops):
        inits.append(numpy_helper.from_array(np.full((4,), i, dtype=np.float32), f"w{i}"))
        nodes.append(helper.make_node("Add", [f"t{i}" if i else "x", f"w{i}"], [f"t{i + 1}"], name=f"n{i}"))
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info(f"t{ops}", TensorProto.FLOAT, [4])], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))


def measure(variant: str, path: Path) -> dict[str, float | str]:
    out = subprocess.run([sys.executable, "-c", CHILD, variant, str(path)], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ops", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        generated = Path(tmp) / f"chain{args.ops}.onnx"
        chain(args.ops, generated)
        for model in (REAL, generated):
            runs: dict[str, list[dict[str, float | str]]] = {v: [] for v in VARIANTS}
            for _ in range(args.rounds):
                for variant in VARIANTS:
                    runs[variant].append(measure(variant, model))
            print(f"\n{model.name} ({model.stat().st_size / 2**20:.1f} MiB), median of {args.rounds}")
            print("| variant | wall s | CPU s | peak RSS MiB | result |")
            print("|---|---:|---:|---:|---|")
            for variant, rs in runs.items():
                med = {k: statistics.median(float(r[k]) for r in rs) for k in ("wall", "cpu", "rss_mib")}
                cells = (variant, f"{med['wall']:.2f}", f"{med['cpu']:.2f}", f"{med['rss_mib']:.0f}", rs[0]["result"])
                print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
