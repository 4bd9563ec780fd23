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
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_smt import _memory, _tree  # noqa: E402

FULL_CHECK = "import onnx,sys; onnx.checker.check_model(sys.argv[1], full_check=True)"
CHECK = "import sys; from sonnx.cli.main import main; sys.exit(main(['check', '--engine', 'both', '-q', sys.argv[1]]))"
TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


class Sampler:
    """Samples the resident memory and CPU time of a process tree every 20 ms until stopped."""

    def __init__(self, pid: int, limit: float) -> None:
        self.root = pid
        self.limit = limit
        """GB of resident memory (all processes together) above which the whole tree is killed (0: no limit)."""
        self.killed = False
        self.peak = 0
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            tree = _tree(self.root)
            for pid in tree:
                total += _memory(pid)[0]
                self.cpu[pid] = max(self.cpu.get(pid, 0.0), _cpu(pid))
            self.peak = max(self.peak, total)
            if self.limit and total > self.limit * 1e9:  # the machine is shared: stop before it swaps
                self.killed = True
                for pid in reversed(tree):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            self._stop.wait(0.02)

    def stop(self) -> tuple[float, float]:
        """(highest sampled sum of resident memory in GB, summed CPU seconds)."""
        self._stop.set()
        self._thread.join()
        return self.peak / 1e9, sum(self.cpu.values())


def measure(cmd: list[str], env: dict[str, str], limit: float = 0.0) -> tuple[float, float, float, str, str]:
    """Run ``cmd``: (wall s, CPU s, peak GB, exit code or ``killed``, load average before-after)."""
    load0 = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    sampler = Sampler(proc.pid, limit)
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    peak, cpu = sampler.stop()
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
