"""``sonnx run``: execute a model with the NumPy executor.

Inputs come from ``--inputs FILE.npz`` (keyed by input name), ``--input
NAME=FILE.npy``, or are drawn from the declared types with ``--seed``.
Outputs go to ``--output FILE.npz`` or ``FILE.json`` (keyed by output name;
JSON in the form of a JSON inputs file, for sequences and maps) and are summarised
on stdout (``--json``: as JSON). ``--repeat N`` times N runs after one
warm-up and prints ``min X s, median Y s``.

``--budget SECONDS`` stops a run that has not finished by then (exit 2,
one line): what the model is given, a Loop's trip count read from the inputs
say, decides how long it runs, as in any runtime.

``--threads N`` sets NumPy's BLAS thread pool for the runs; without it the
standard variables (``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``,
``OMP_NUM_THREADS``... :func:`sonnx.base.threads.default_threads`) give the
count when set, else the machine's cores. The count is stated in the output
(``--json``: with where it came from). ``--timings`` runs the
model again with per-operation timers, ``max(1, --repeat)`` times after the
timed runs, and prints where the time and memory go
(:mod:`sonnx.execution.profiling`); ``--trace FILE.json`` writes those runs as a Chrome
trace. ``--profile`` is the former name of ``--timings``, kept as a deprecated alias: in ``sonnx-check``,
``--profile`` chooses the rule set.

Each output tensor is summarised with its statistics (minimum, maximum, mean, counts of NaN and infinities;
:mod:`sonnx.cli.run_values`); ``--print`` also prints the values of outputs of at most ``--print-limit``
elements.

Each output the run produced is compared with the type the model declares
for it (:func:`sonnx.execution.signature.output_misfits`); a contradiction is printed
as one ``warning:`` line (``--json``: listed under
``declared_output_misfits``) and does not change the exit code, since no
runtime holds an output to its declaration.
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any, TextIO

import numpy as np

from .. import api
from ..api import scheduler_factory
from ..base.errors import UsageError
from ..base.files import refuse_overwrite, write_atomically, write_npz
from ..base.text import counted
from ..base.threads import blas_threads, check_threads, default_threads
from ..execution.executor import Probe, execute, model_plan, timed_runs
from ..execution.inputs import load_inputs
from ..execution.inputs.json_file import file_form
from ..execution.profiling import summarise, trace_events
from ..execution.signature import output_misfits
from ..loader import load_model
from ..loader.memory import STDIN
from ..model.graph import Model
from .common import (
    MODEL_HELP_STDIN,
    STDIN_MODEL,
    add_json,
    add_progress,
    add_seed,
    model_argument,
    progress_for,
    write_json,
)
from .run_values import DEFAULT_PRINT_LIMIT, print_limit, value_statistics, values_json, values_text
from .validation_args import budget


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="ONNX model to execute" + MODEL_HELP_STDIN)
    p.add_argument(
        "--inputs", metavar="FILE.npz|FILE.json",
        help="input values keyed by graph-input name (.npz tensors, or JSON for every input kind: maps, sequences, "
        "optionals)",
    )
    p.add_argument(
        "--input", action="append", default=[], metavar="NAME=FILE.npy", help="one input from .npy (or .json)"
    )
    add_seed(p)
    p.add_argument("--output", metavar="FILE.npz|FILE.json",
                   help="write the outputs, keyed by output name (.json for sequences and maps)")
    p.add_argument("--budget", type=budget, default=None, metavar="SECONDS",
                   help="stop the run, exit 2, when it has not finished after this many seconds (default: no limit)")
    p.add_argument("--repeat", type=int, default=0, metavar="N", help="time N runs after a warm-up")
    p.add_argument("--schedule", default="file", help="file (default), lifo, or random:SEED")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="threads of NumPy's BLAS pool (default: OPENBLAS_NUM_THREADS, MKL_NUM_THREADS or "
                   "OMP_NUM_THREADS when set, else the machine's cores)")
    p.add_argument("--timings", action="store_true",
                   help="time every operation (max(1, --repeat) extra runs): operator types, top 10, peak live bytes")
    p.add_argument("--profile", dest="timings_alias", action="store_true",
                   help="deprecated name of --timings (in sonnx-check, --profile chooses the rule set)")
    p.add_argument("--print", dest="print_values", action="store_true",
                   help="also print the values of every output of at most --print-limit elements")
    p.add_argument("--print-limit", type=print_limit, default=DEFAULT_PRINT_LIMIT, metavar="N",
                   help=f"the largest output --print prints, in elements (default {DEFAULT_PRINT_LIMIT})")
    p.add_argument("--trace", metavar="FILE.json", help="write the profiled runs as a Chrome trace (implies profiling)")
    add_json(p, "the outputs' types and shapes (and the timings)")
    add_progress(p)


def run_run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    if args.repeat < 0:
        raise UsageError("--repeat must be at least 0")
    threads, threads_from = default_threads() if args.threads is None else (check_threads(args.threads), "--threads")
    make_scheduler = scheduler_factory(args.schedule)
    sources = [s for s in [args.model, *([args.inputs] if args.inputs else [])] if s != STDIN_MODEL]
    shown = STDIN if args.model == STDIN_MODEL else args.model
    if args.output:
        refuse_overwrite(args.output, sources, "--output")
    if args.trace:
        refuse_overwrite(args.trace, sources, "--trace")
    if args.timings_alias:  # said even when progress is off: the name will go
        stderr.write(f"{prog}: note: --profile is deprecated here, use --timings (the same per-operation timings)\n")
    say = progress_for(args, prog, stderr)
    say(f"loading {shown}")
    model = load_model(model_argument(args.model), weights_from_file=True)
    feeds = load_inputs(model, args.inputs, args.input, args.seed)
    profiled = args.timings or args.timings_alias or bool(args.trace)
    with blas_threads(threads) as pools:
        say(f"running ({counted(threads, 'BLAS thread')})")
        outputs = api.run(model, feeds, seed=args.seed, schedule=args.schedule, budget=args.budget)
        if args.output:
            _write_outputs(args.output, model, outputs)
        times = []
        if args.repeat:
            say(f"timing {counted(args.repeat, 'run')}")
            times = timed_runs(model, feeds, make_scheduler, args.repeat)
        probes: list[Probe] = []
        if profiled:
            say(f"profiling {counted(max(1, args.repeat), 'run')}")
            for _ in range(max(1, args.repeat)):
                probe = Probe()
                execute(model, feeds, make_scheduler(), probe=probe)
                probes.append(probe)
    say("done")
    profile = summarise(model_plan(model), probes) if probes else None
    if args.trace:
        events = trace_events(model_plan(model), probes)
        write_atomically(args.trace, lambda fh: fh.write(json.dumps(events).encode("utf-8")))
    shapes = {name: (str(np.asarray(v).dtype), list(np.asarray(v).shape)) for name, v in outputs.items()}
    stats = {name: value_statistics(v) for name, v in outputs.items()}
    stats_json = {name: None if st is None else st.to_json() for name, st in stats.items()}
    misfits = output_misfits(model, feeds, outputs)
    if args.json:
        doc: dict[str, object] = {
            "model": shown,
            "outputs": {
                n: {"dtype": d, "shape": s, "statistics": stats_json[n]}
                | ({"values": values_json(outputs[n], args.print_limit)} if args.print_values else {})
                for n, (d, s) in shapes.items()
            },
            "written": args.output,
            "threads": {"requested": threads, "from": threads_from, "blas": pools},
            "declared_output_misfits": [m.to_json() for m in misfits],
        }
        if times:
            doc["timing"] = {"runs": len(times), "min_s": min(times), "median_s": statistics.median(times)}
        if profile is not None:
            doc["profile"] = profile.as_json()
        if args.trace:
            doc["trace"] = args.trace
        write_json(stdout, doc)
        return 0
    for name, (dtype, shape) in shapes.items():
        st = stats[name]
        stdout.write(f"{name}: {dtype} {shape}" + (f"  {st.line()}" if st is not None else "") + "\n")
        if args.print_values:
            stdout.write(values_text(outputs[name], args.print_limit) + "\n")
    for m in misfits:
        stdout.write(f"warning: {m.line()}\n")
    stdout.write(f"threads: {threads} ({_pools_text(pools)})\n")
    if times:
        stdout.write(f"min {min(times):.6f} s, median {statistics.median(times):.6f} s\n")
    if profile is not None:
        stdout.write("\n".join(profile.text_lines()) + "\n")
    if args.trace:
        stdout.write(f"trace: {args.trace}\n")
    return 0


def _write_outputs(path: str, model: Model, outputs: dict[str, Any]) -> None:
    """``.json``: the inputs-file form of every output kind (it reads back exactly); otherwise ``.npz`` (tensors)."""
    if path.lower().endswith(".json"):
        doc = {name: file_form(model.graph.tensor(name).type, value) for name, value in outputs.items()}
        write_atomically(path, lambda fh: fh.write((json.dumps(doc, indent=1) + "\n").encode("utf-8")))
    else:
        write_npz(path, outputs)


def _pools_text(pools: dict[str, int]) -> str:
    if not pools:
        return "no BLAS thread pool found: the count was not applied"
    return ", ".join(f"{lib} {n} thread{'s' if n != 1 else ''}" for lib, n in sorted(pools.items()))
