"""Benchmark: ``sonnx-check --engine direct`` (FORMAT-ONNX and every graph rule) against onnx's own full check.

The peer is ``onnx.checker.check_model(path, full_check=True)``, the check
FORMAT-ONNX runs; the older peers stay as columns (``onnx.load`` then
``check_model``, and ``check_model(path)``). Models: the chain and the random
DAG of ``bench_structural.py`` (1M-operation chain and 1.2M-operation DAG by
default). Every command runs in a fresh process, the tools one after the
other within each repetition (so that each ratio compares runs made under the
same load). For each run the parent records:

* wall time;
* CPU seconds, user + system, of the process and of every child it reaped
  (FORMAT-ONNX's child included), from ``os.wait4``, and the part of it spent
  in the child processes (their ``/proc/PID/stat`` as last sampled, a lower
  bound): with two cores and nothing else running, the wall time of a check
  whose child works beside the parent tends to the larger of the two parts;
  on a loaded machine it tends to their sum;
* memory: the highest sum of the resident sizes of the process and all its
  descendants, sampled every 20 ms ("peak GB"), and the sum of each process's
  own peak (``VmHWM``, an upper bound of the true peak: "hwm GB");
* the 1-minute load average before and after.

Usage::

    python benchmarks/bench_direct.py [--cases chain:1000000,dag:1200000] [--repeat 3] [--out benchmarks/out]
                                      [--baseline OTHER_CHECKOUT/src]

Prints one Markdown table of medians (memory: the highest run) with the
ratios to the peer, then every run with its load averages. Targets (issue
39): wall at most 1.2x and peak memory at most 1.5x the peer.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from proctree import Sampler  # noqa: E402

SONNX = [sys.executable, "-m", "sonnx", "check", "--engine", "direct", "--quiet", "--json"]
PEERS: dict[str, list[str]] = {
    "full": [sys.executable, "-c", "import onnx,sys; onnx.checker.check_model(sys.argv[1], full_check=True)"],
    "load+check": [sys.executable, "-c", "import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]))"],
    "path": [sys.executable, "-c", "import onnx,sys; onnx.checker.check_model(sys.argv[1])"],
}
"""The peers by column: the full check is the one the ratios use."""


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    children_cpu: float
    peak: float
    hwm: float
    code: int
    load: tuple[float, float]


def measure(cmd: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ``cmd`` (in ``env``) and measure it (see the module text)."""
    before = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    sampler = Sampler(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    sampler.stop()
    peak, hwm, below = sampler.peak_gb, sampler.hwm_gb, sampler.cpu_below
    proc.returncode = os.waitstatus_to_exitcode(status)
    hwm = max(hwm, usage.ru_maxrss * 1024 / 1e9)  # the largest single process, should sampling have missed it
    cpu = usage.ru_utime + usage.ru_stime
    return Run(wall, cpu, below, peak, hwm, proc.returncode, (before, os.getloadavg()[0]))


def model(kind: str, n: int, out: Path) -> Path:
    path = out / f"{kind}{n}.onnx"
    if not path.exists():  # built in a child, so that this process stays small
        print(f"generating {path} ...", file=sys.stderr, flush=True)
        script = str(HERE / "bench_structural.py")
        subprocess.run([sys.executable, script, "--generate", kind, str(n), str(path)], check=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cases", default="chain:1000000,dag:1200000", help="KIND:OPERATIONS, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "out"))
    ap.add_argument("--baseline", metavar="SRC", help="also run the sonnx of another source folder (its src/), "
                    "as the column 'baseline', to compare two versions under the same load")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, log = [], []
    for case in args.cases.split(","):
        kind, n = case.split(":")
        path = model(kind, int(n), out)
        runs: dict[str, list[Run]] = {"sonnx": [], "baseline": [], **{p: [] for p in PEERS}}
        tools = ["full", "sonnx", *(["baseline"] if args.baseline else []), "load+check", "path"]
        for _ in range(args.repeat):
            for name in tools:
                env = None
                if name == "baseline":
                    env = {**os.environ, "PYTHONPATH": str(Path(args.baseline).resolve())}
                r = measure([*(SONNX if name in ("sonnx", "baseline") else PEERS[name]), str(path)], env)
                runs[name].append(r)
                log.append(f"| {kind} {int(n):,} | {name} | {r.wall:.2f} | {r.cpu:.2f} | {r.children_cpu:.2f} | "
                           f"{r.peak:.2f} | {r.hwm:.2f} | "
                           f"{r.code} | {r.load[0]:.2f} / {r.load[1]:.2f} |")
                print(log[-1], file=sys.stderr, flush=True)
        rows.append((kind, int(n), runs))
    head = ["model", "ops", "sonnx wall s", "full check wall s", "ratio", "sonnx CPU s", "full check CPU s", "ratio",
            "sonnx CPU: parent / child s", "sonnx peak GB", "full check peak GB", "ratio", "sonnx hwm GB",
            "full check hwm GB", "baseline wall s", "baseline CPU s", "baseline peak GB", "load+check wall s",
            "check_model(path) wall s", "sonnx exit"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for kind, n, runs in rows:
        print(_row(kind, n, runs))
    print("\n| model | run | wall s | CPU s | of which child processes | peak GB | hwm GB | exit | "
          "load before / after |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(log))


def _row(kind: str, n: int, runs: dict[str, list[Run]]) -> str:
    """One line of the table: medians of time, the highest memory, ratios to the full check."""

    def med(name: str, key: str) -> float:
        return statistics.median(getattr(r, key) for r in runs[name]) if runs[name] else float("nan")

    def top(name: str, key: str) -> float:
        return max(getattr(r, key) for r in runs[name]) if runs[name] else float("nan")

    sw, fw, sc, fc = med("sonnx", "wall"), med("full", "wall"), med("sonnx", "cpu"), med("full", "cpu")
    sp, fp = top("sonnx", "peak"), top("full", "peak")
    codes = ",".join(str(c) for c in sorted({r.code for r in runs["sonnx"]}))
    child = med("sonnx", "children_cpu")
    cells = [kind, f"{n:,}", f"{sw:.2f}", f"{fw:.2f}", f"{sw / fw:.2f}x", f"{sc:.2f}", f"{fc:.2f}", f"{sc / fc:.2f}x",
             f"{sc - child:.2f} / {child:.2f}", f"{sp:.2f}", f"{fp:.2f}", f"{sp / fp:.2f}x"]
    cells += [f"{top('sonnx', 'hwm'):.2f}", f"{top('full', 'hwm'):.2f}"]
    cells += [f"{med('baseline', 'wall'):.2f}", f"{med('baseline', 'cpu'):.2f}", f"{top('baseline', 'peak'):.2f}"]
    cells += [f"{med('load+check', 'wall'):.2f}", f"{med('path', 'wall'):.2f}", codes]
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    main()
