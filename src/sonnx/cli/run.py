"""``sonnx run``: execute a model with the NumPy executor.

Inputs come from ``--inputs FILE.npz`` (keyed by input name), ``--input
NAME=FILE.npy``, or are drawn from the declared types with ``--seed``.
Outputs go to ``--output FILE.npz`` (keyed by output name) and are summarised
on stdout (``--json``: as JSON). ``--repeat N`` times N runs after one
warm-up and prints ``min X s, median Y s``.
"""

from __future__ import annotations

import argparse
import statistics
from typing import TextIO

import numpy as np

from .. import api
from ..api import scheduler_factory
from ..errors import UsageError
from ..executor import timed_runs
from ..files import refuse_overwrite, write_npz
from ..inputs import load_inputs
from ..loader import load_model
from .common import add_json, add_progress, add_seed, progress_for, write_json


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="ONNX model to execute")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values keyed by graph-input name")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy", help="one input from .npy")
    add_seed(p)
    p.add_argument("--output", metavar="FILE.npz", help="write the outputs, keyed by output name")
    p.add_argument("--repeat", type=int, default=0, metavar="N", help="time N runs after a warm-up")
    p.add_argument("--schedule", default="file", help="file (default), lifo, or random:SEED")
    add_json(p, "the outputs' types and shapes (and the timings)")
    add_progress(p)


def run_run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    if args.repeat < 0:
        raise UsageError("--repeat must be at least 0")
    make_scheduler = scheduler_factory(args.schedule)
    if args.output:
        refuse_overwrite(args.output, [args.model, *([args.inputs] if args.inputs else [])], "--output")
    say = progress_for(args, prog, stderr)
    say(f"loading {args.model}")
    model = load_model(args.model)
    feeds = load_inputs(model, args.inputs, args.input, args.seed)
    say("running")
    outputs = api.run(model, feeds, seed=args.seed, schedule=args.schedule)
    if args.output:
        write_npz(args.output, outputs)
    times = []
    if args.repeat:
        say(f"timing {args.repeat} runs")
        times = timed_runs(model, feeds, make_scheduler, args.repeat)
    say("done")
    shapes = {name: (str(np.asarray(v).dtype), list(np.asarray(v).shape)) for name, v in outputs.items()}
    if args.json:
        doc: dict[str, object] = {
            "model": args.model,
            "outputs": {n: {"dtype": d, "shape": s} for n, (d, s) in shapes.items()},
            "written": args.output,
        }
        if times:
            doc["timing"] = {"runs": len(times), "min_s": min(times), "median_s": statistics.median(times)}
        write_json(stdout, doc)
        return 0
    for name, (dtype, shape) in shapes.items():
        stdout.write(f"{name}: {dtype} {shape}\n")
    if times:
        stdout.write(f"min {min(times):.6f} s, median {statistics.median(times):.6f} s\n")
    return 0
