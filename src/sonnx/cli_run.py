"""``sonnx run``: execute a model with the NumPy executor.

Inputs come from ``--inputs FILE.npz`` (keyed by input name), ``--input
NAME=FILE.npy``, or are drawn from the declared types with ``--seed``.
Outputs go to ``--output FILE.npz`` (keyed by output name) and are summarised
on stdout. ``--repeat N`` times N runs after one warm-up and prints
``min X s, median Y s``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import zipfile
from typing import Any, BinaryIO, TextIO

import numpy as np

from .cli_args import seed
from .errors import UsageError
from .executor import execute
from .files import refuse_overwrite, write_atomically
from .inputs import load_inputs
from .loader import load_model
from .model.semantics import FileOrder, LastReadyOrder, Scheduler, SeededRandomOrder


def make_scheduler(spec: str) -> Scheduler:
    """``file``, ``lifo`` or ``random:SEED``."""
    if spec == "file":
        return FileOrder()
    if spec == "lifo":
        return LastReadyOrder()
    kind, _, seed = spec.partition(":")
    if kind == "random" and seed.lstrip("-").isdigit():
        return SeededRandomOrder(int(seed))
    raise UsageError(f"--schedule {spec!r}: expected file, lifo or random:SEED")


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="ONNX model to execute")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values keyed by graph-input name")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy", help="one input from .npy")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--output", metavar="FILE.npz", help="write the outputs, keyed by output name")
    p.add_argument("--repeat", type=int, default=0, metavar="N", help="time N runs after a warm-up")
    p.add_argument("--schedule", default="file", help="file (default), lifo, or random:SEED")


def _write_npz(path: str, outputs: dict[str, Any]) -> None:
    """Write the outputs as an .npz archive, atomically: one ``<name>.npy`` member per output.

    Written member by member rather than through ``np.savez(**outputs)``,
    whose own parameter names would clash with an output called ``file``.
    """

    def fill(fh: BinaryIO) -> None:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as archive:
            for name, value in outputs.items():
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asarray(value), allow_pickle=False)

    write_atomically(path, fill)


def run_run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    if args.repeat < 0:
        raise UsageError("--repeat must be at least 0")
    make_scheduler(args.schedule)
    if args.output:
        refuse_overwrite(args.output, [args.model, *([args.inputs] if args.inputs else [])], "--output")
    model = load_model(args.model)
    feeds = load_inputs(model, args.inputs, args.input, args.seed)
    outputs = execute(model, feeds, make_scheduler(args.schedule))
    for name, value in outputs.items():
        arr = np.asarray(value)
        stdout.write(f"{name}: {arr.dtype} {list(arr.shape)}\n")
    if args.output:
        _write_npz(args.output, outputs)
    if args.repeat:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            execute(model, feeds, make_scheduler(args.schedule))
            times.append(time.perf_counter() - start)
        stdout.write(f"min {min(times):.6f} s, median {statistics.median(times):.6f} s\n")
    return 0
