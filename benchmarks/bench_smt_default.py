"""Benchmark: the default check with both engines against ``onnx.checker.check_model(path, full_check=True)``.

Each measured command runs in a fresh process, one after the other
(interleaved over the models and repeats, so that a burst of load hits every
command alike):

* ``check_model(path, full_check=True)``: onnx's full check of the file, the
  peer (what FORMAT-ONNX runs);
* ``sonnx-check --engine both``: the default check as ``--engine auto`` runs it
  up to ``sonnx.checking.proofs.SMT_AUTO_LIMIT`` (both engines, their
  agreement, the report), load included; ``--src DIR`` adds the same command
  run from another source tree (the code before a change) as a second row.

Models: random DAGs of ``bench_structural.build`` (satisfied) and the chains
of ``bench_smt_violations.build`` with one planted defect (``cycle``,
``double-assignment``, ``dead-node``). The parent samples every 20 ms the
resident memory and the CPU time of the command's process and of every
process below it (FORMAT-ONNX's child, the solver pool's server and
workers): "peak GB" is the highest sum of resident memory seen, "CPU s" the
sum of each process's last sampled user + system time. Usage::

    python benchmarks/bench_smt_default.py --models dag:1200000,cycle:1200000 [--repeat 1] [--src DIR] [--max-gb 4.5]

Prints one Markdown row per run, with the load average before and after it.
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

from proctree import Sampler  # noqa: E402

FULL_CHECK = "import onnx,sys; onnx.checker.check_model(sys.argv[1], full_check=True)"
CHECK = "import sys; from sonnx.cli.main import main; sys.exit(main(['check', '--engine', 'both', '-q', sys.argv[1]]))"
def measure(cmd: list[str], env: dict[str, str], limit: float = 0.0) -> tuple[float, float, float, str, str]:
    """Run ``cmd``: (wall s, CPU s, peak GB, exit code or ``killed``, load average before-after)."""
    load0 = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    sampler = Sampler(proc.pid, limit)
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    sampler.stop()
    peak, cpu = sampler.peak_gb, sampler.cpu_all
    if sampler.killed:
        return wall, cpu, peak, f"killed above {limit:g} GB", f"{load0:.1f}-{os.getloadavg()[0]:.1f}"
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}: {err.decode(errors='replace')[-400:]}")
    return wall, cpu, peak, str(proc.returncode), f"{load0:.1f}-{os.getloadavg()[0]:.1f}"


def model_path(spec: str, out: Path) -> Path:
    """The model file of ``kind:n`` (``dag`` or a planted case of ``bench_smt_violations``), built once."""
    kind, n = spec.split(":")
    path = out / f"{kind}{n}.onnx"
    if not path.exists():  # in a child process, so that building does not inflate this process
        maker = "bench_structural" if kind == "dag" else "bench_smt_violations"
        code = f"import sys; sys.path.insert(0, {str(HERE)!r}); from pathlib import Path; from {maker} import build; "
        code += f"build({kind!r}, {int(n)}, Path({str(path)!r}))"
        subprocess.run([sys.executable, "-c", code], check=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--models", default="dag:1200000,dag:2000000")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--src", default="", help="another source tree whose sonnx-check is measured beside this one")
    ap.add_argument("--out", default=str(HERE / "out"))
    ap.add_argument("--max-gb", type=float, default=0.0, help="kill a command above this many GB, all processes")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    here_env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    runs = [("check_model(path, full_check=True)", [sys.executable, "-c", FULL_CHECK], dict(os.environ))]
    runs.append(("sonnx-check --engine both", [sys.executable, "-c", CHECK], here_env))
    if args.src:
        runs.append((f"same, {args.src}", [sys.executable, "-c", CHECK], {**os.environ, "PYTHONPATH": args.src}))
    print("| model | what | wall s | CPU s | peak GB | exit | load |")
    print("|---|---|---:|---:|---:|---:|---|")
    for _ in range(args.repeat):
        for spec in args.models.split(","):
            path = model_path(spec, out)
            for name, cmd, env in runs:
                wall, cpu, peak, code, load = measure([*cmd, str(path)], env, args.max_gb)
                print(f"| {spec} | {name} | {wall:.1f} | {cpu:.1f} | {peak:.2f} | {code} | {load} |", flush=True)


if __name__ == "__main__":
    main()
