"""Benchmark: the start-up of ``sonnx-check`` on the small shipped examples, against onnx's own full check.

Each command runs in a fresh interpreter, as a user types it; the parent
measures its wall time and reads its CPU time (user + system) and peak
resident memory from ``os.wait4``. The commands are interleaved (one round
runs each command once, in turn) so that a change in the machine's load
falls on all of them alike; the table gives medians over the rounds and the
ratio of each sonnx command to the peer measured in the same rounds.

The peer is ``onnx.checker.check_model(path, full_check=True)`` in a fresh
interpreter (``import onnx`` included, as ``sonnx-check`` includes its own
imports). sonnx runs twice: ``--engine direct`` (the graph rules) and the
default engine (on a small model it also runs the SMT proofs, so z3 is
imported and used). ``--before SRC`` adds the same two commands run from
another source tree (for instance ``git archive`` of an earlier commit
unpacked under ``/tmp``), measured in the same rounds. Usage::

    python benchmarks/bench_startup.py [--models examples/cnn_block.onnx,...] [--repeat 9] [--before /tmp/old/src]

Prints a Markdown table (the one kept in benchmarks/README.md), with the load
average before and after.

Every command runs with its bytecode caches written, as an installed package
has them (pip compiles the modules it installs): the untimed first run of each
command writes them, ``PYTHONDONTWRITEBYTECODE`` being left out of the
commands' environment. With it set, each run compiles every module of sonnx
from source while onnx and NumPy load theirs from their caches.
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
SRC = HERE.parent / "src"

PEER = "import onnx,sys; onnx.checker.check_model(sys.argv[1], full_check=True)"
"""onnx's full check of a file, the peer of FORMAT-ONNX and of the whole check of a small model."""

SONNX_CHECK = "import sys; from sonnx.cli.main import console_check; sys.argv[0] = 'sonnx-check'; console_check()"
"""What the ``sonnx-check`` console script runs (``pyproject.toml``, ``[project.scripts]``)."""

DEFAULT_MODELS = ("examples/r2_random.onnx", "examples/seed001_example.onnx", "examples/cnn_block.onnx")


@dataclass(frozen=True)
class Command:
    """One command of the table: its label, its argument list after the model, and the source tree it imports."""

    label: str
    code: str
    options: tuple[str, ...]
    src: Path | None


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    rss_mb: float


def run_once(cmd: Command, model: str) -> Sample:
    """Run ``cmd`` on ``model`` in a fresh interpreter; its exit code is not judged (a violated model exits 1)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the untimed first run writes the bytecode caches, as an install has
    if cmd.src is not None:
        env["PYTHONPATH"] = str(cmd.src)
    argv = [sys.executable, "-c", cmd.code, *cmd.options, model]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd.label} on {model} exited {proc.returncode}: {' '.join(argv)}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def commands(before: Path | None) -> list[Command]:
    """The peer first, then sonnx (direct, default) from this tree and, with ``before``, from that tree."""
    cmds = [Command("onnx check_model(path, full_check=True)", PEER, (), None)]
    trees = [("", SRC)] + ([(" (before)", before)] if before is not None else [])
    for suffix, src in trees:
        cmds.append(Command(f"sonnx-check --engine direct{suffix}", SONNX_CHECK, ("--engine", "direct", "-q"), src))
        cmds.append(Command(f"sonnx-check (default engine){suffix}", SONNX_CHECK, ("-q",), src))
    return cmds


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS), help="comma-separated model files")
    parser.add_argument("--repeat", type=int, default=9, help="rounds; each runs every command once (default 9)")
    parser.add_argument("--before", type=Path, default=None, help="another source tree to time in the same rounds")
    args = parser.parse_args()
    cmds = commands(args.before)
    models = [m for m in args.models.split(",") if m]
    load_before = loadavg()
    samples: dict[tuple[str, str], list[Sample]] = {(c.label, m): [] for c in cmds for m in models}
    for cmd in cmds:  # one untimed run each: the bytecode caches are written before the first timed round
        run_once(cmd, models[0])
    for _ in range(args.repeat):
        for model in models:
            for cmd in cmds:
                samples[(cmd.label, model)].append(run_once(cmd, model))
    load_after = loadavg()
    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {args.repeat} interleaved rounds; "
          f"load average before {load_before}, after {load_after}; {os.cpu_count()} cores")
    print()
    print("| model | command | wall s (median) | CPU s (median) | peak RSS MB | wall / peer | CPU / peer |")
    print("|---|---|---|---|---|---|---|")
    for model in models:
        peer = samples[(cmds[0].label, model)]
        peer_wall = statistics.median(s.wall for s in peer)
        peer_cpu = statistics.median(s.cpu for s in peer)
        for cmd in cmds:
            got = samples[(cmd.label, model)]
            wall = statistics.median(s.wall for s in got)
            cpu = statistics.median(s.cpu for s in got)
            rss = statistics.median(s.rss_mb for s in got)
            print(f"| {Path(model).name} | {cmd.label} | {wall:.3f} | {cpu:.3f} | {rss:.0f} | "
                  f"{wall / peer_wall:.2f}x | {cpu / peer_cpu:.2f}x |")


if __name__ == "__main__":
    main()
