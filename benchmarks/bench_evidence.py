"""Benchmark: what ``sonnx evidence verify`` costs next to the check that wrote the bundle.

``verify`` runs the check again and renders every file of the bundle again,
then re-solves each SMT obligation from its file (z3, and cvc5 when it is
installed), so its peer is the check itself. For each model, in fresh
processes: ``sonnx-check -q MODEL --evidence DIR [workload]`` (the check plus
the writing of the bundle), then ``sonnx evidence verify -q DIR``; the parent
measures the wall time and requires the verification to succeed (exit 0).
Models: the shipped examples and onnx's light models. Usage::

    python benchmarks/bench_evidence.py [--repeat 3] [--workload check|certify] [--models N]

``certify`` adds ``--orders 3 --cross-check reference,onnxruntime``, which
verify runs again. Prints a Markdown table (the one kept in
benchmarks/README.md): median times and the ratio verify / check.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnx

ROOT = Path(__file__).resolve().parent.parent
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
WORKLOADS: dict[str, list[str]] = {
    "check": [],
    "certify": ["--orders", "3", "--cross-check", "reference,onnxruntime"],
}


def models(limit: int) -> list[Path]:
    shipped = [ROOT / "examples" / n for n in ("cnn_block.onnx", "seed001_example.onnx", "strict_dense.onnx")]
    light = sorted(LIGHT.glob("*.onnx"))
    return [m for m in [*shipped, *light] if m.is_file()][:limit]


def timed(cmd: list[str], ok: tuple[int, ...]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def measure(model: Path, workload: list[str], repeat: int) -> tuple[list[float], list[float]]:
    checks, verifies = [], []
    for _ in range(repeat):
        folder = Path(tempfile.mkdtemp(prefix="bench-evidence-"))
        try:
            bundle = folder / "b"
            cmd = [sys.executable, "-m", "sonnx", "check", "-q", str(model), "--evidence", str(bundle), *workload]
            checks.append(timed(cmd, (0, 1, 2)))
            verifies.append(timed([sys.executable, "-m", "sonnx", "evidence", "verify", "-q", str(bundle)], (0,)))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return checks, verifies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="check")
    ap.add_argument("--models", type=int, default=8, help="how many models (the shipped examples first)")
    args = ap.parse_args(argv)
    print(f"workload {args.workload}: {' '.join(WORKLOADS[args.workload]) or 'defaults'}; median of {args.repeat}")
    print()
    print("| model | check + bundle (s) | verify (s) | verify / check |")
    print("|---|---|---|---|")
    total_c = total_v = 0.0
    for model in models(args.models):
        checks, verifies = measure(model, WORKLOADS[args.workload], args.repeat)
        c, v = statistics.median(checks), statistics.median(verifies)
        total_c, total_v = total_c + c, total_v + v
        print(f"| {model.name} | {c:.2f} | {v:.2f} | {v / c:.2f} |", flush=True)
    print(f"| all | {total_c:.2f} | {total_v:.2f} | {total_v / total_c:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
