"""``sonnx crosscheck MODEL``: the NumPy executor against the oracles, as a text or ``--json`` report.

Exit codes: 0 every oracle agrees, 1 an oracle differs, 2 not established
(an oracle missing or refusing the model, an unusable input).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .. import api
from ..differential.lines import text_lines
from ..differential.names import ORACLES
from ..differential.run import parse_oracles
from ..loader.memory import STDIN
from .common import (
    MODEL_HELP_STDIN,
    STDIN_MODEL,
    add_json,
    add_progress,
    add_seed,
    add_tolerance,
    model_argument,
    progress_for,
    tolerance_from,
    write_json,
)


def add_crosscheck_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``sonnx crosscheck``."""
    p.add_argument("model", metavar="MODEL", help="ONNX model to cross-check" + MODEL_HELP_STDIN)
    p.add_argument(
        "--oracles",
        default=",".join(ORACLES),
        metavar="LIST",
        help="comma-separated runtimes to compare with (default: reference,onnxruntime)",
    )
    add_seed(p)
    p.add_argument(
        "--inputs", metavar="FILE.npz|FILE.json",
        help="input values keyed by graph-input name (.npz tensors, or JSON for every input kind: maps, sequences, "
        "optionals)",
    )
    add_tolerance(p)
    add_json(p)
    add_progress(p)


def run_crosscheck(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    oracles = parse_oracles(args.oracles, "--oracles")
    say = progress_for(args, prog, stderr)
    say(f"cross-checking {STDIN if args.model == STDIN_MODEL else args.model} with {', '.join(oracles)}")
    report = api.crosscheck(
        model_argument(args.model), oracles=oracles, seed=args.seed, inputs=args.inputs, tolerance=tolerance_from(args)
    )
    say("done")
    if args.json:
        write_json(stdout, report.to_json())
    else:
        stdout.write("\n".join(text_lines(report)) + "\n")
    return report.exit_code
