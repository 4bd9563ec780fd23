"""``sonnx equiv A B``: compare two models (see :mod:`sonnx.checking.equiv`).

Exit 0 equivalent, 1 not equivalent (with the figures), 2 not established (no set, or not the normal
set, could be compared) or unusable.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..checking.equiv import INTERMEDIATES, equivalence
from ..checking.equiv import text as equiv_text
from .common import add_json, add_progress, add_seed, add_tolerance, no_stdin, progress_for, tolerance_from, write_json
from .validation_args import add_validation_arguments, given_from, sets_from


def add_equiv_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A.onnx", help="the reference model")
    p.add_argument("b", metavar="B.onnx", help="the model to compare with it (an optimizer's output, say)")
    add_json(p)
    add_progress(p)
    add_seed(p, "the input sets")
    add_tolerance(p)
    add_validation_arguments(p)
    p.add_argument(
        "--intermediates",
        choices=INTERMEDIATES,
        default="last",
        help="also compare same-named intermediate tensors, as evidence: last (default: the inputs of the "
        "operations writing the outputs), all, none",
    )


def run_equiv(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    for model in (args.a, args.b):
        no_stdin(model, "sonnx equiv")
    report = equivalence(
        args.a,
        args.b,
        seed=args.seed,
        tolerance=tolerance_from(args),
        sets=sets_from(args),
        intermediates=args.intermediates,
        progress=progress_for(args, prog, stderr),
        inputs=given_from(args),
        budget=args.budget,
    )
    if args.json:
        write_json(stdout, report.to_json())
    else:
        stdout.write(equiv_text(report))
    return report.exit_code
