"""``sonnx-check`` and ``sonnx check``: parse the options into a :class:`~sonnx.options.CheckOptions`,
run the check pipeline (:mod:`sonnx.pipeline`), print the report.

Exit codes (the same for every subcommand that checks something):

* 0: every rule of the selected profile holds (warnings may be printed);
* 1: a rule of error severity is violated; the witness is printed;
* 2: an input is unusable, an option is wrong, a verdict is UNKNOWN, or the
  tool itself failed. Never a pass.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..differential.run import parse_oracles
from ..options import ENGINES, CheckOptions
from ..pipeline import check_models
from ..report import json_report, text_report
from ..rules import PROFILE_SONNX, PROFILES
from ..text import printable
from .common import add_json, add_progress, add_seed, add_tolerance, operator_list, progress_for, tolerance_from


def add_check_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``sonnx-check`` (shared with ``sonnx check``)."""
    p.add_argument("models", nargs="+", metavar="MODEL", help="ONNX model file(s) to check")
    add_json(p, "the report (schema-versioned)")
    p.add_argument(
        "--profile", choices=PROFILES, default=PROFILE_SONNX, help="rule set: sonnx (default) or sonnx-strict"
    )
    p.add_argument(
        "--operators",
        metavar="LIST|@FILE",
        help="operator set of the sonnx-strict profile: comma-separated [domain:]Operator, or @file",
    )
    p.add_argument(
        "--structure-only",
        action="store_true",
        help="do not read weights (external data is still checked for safety and size)",
    )
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="decision procedure: direct algorithms, SMT proofs (z3), or both with an agreement check; "
        "auto (default) is both up to 50,000 operations and direct above, saying so in the report",
    )
    p.add_argument(
        "--smt-dir",
        metavar="DIR",
        help="write every SMT proof obligation to DIR as a standalone .smt2 file (expected answer in its header)",
    )
    p.add_argument(
        "--orders",
        type=int,
        default=0,
        metavar="N",
        help="also execute N distinct seeded random schedules and compare the outputs bit for bit",
    )
    add_seed(p, "the random inputs and schedules")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values for --orders, keyed by graph-input name")
    p.add_argument(
        "--cross-check",
        metavar="ORACLES",
        help="also run the model with these runtimes (comma-separated: reference, onnxruntime) on the "
        "--seed / --inputs values and compare every output with the NumPy executor",
    )
    add_tolerance(p)
    p.add_argument(
        "--evidence",
        metavar="DIR",
        help="write an evidence bundle of the check to DIR (one model only; DIR must not exist or be empty)",
    )
    p.add_argument(
        "--evidence-timestamp", action="store_true", help="record the creation time in the bundle's manifest"
    )
    add_progress(p)


def options_from(args: argparse.Namespace) -> CheckOptions:
    """The check's options from the parsed arguments (a wrong combination is a usage error, exit 2)."""
    return CheckOptions(
        profile=args.profile,
        operators=None if args.operators is None else operator_list(args.operators, "--operators"),
        engine=args.engine,
        smt_dir=args.smt_dir,
        structure_only=args.structure_only,
        seed=args.seed,
        orders=args.orders,
        inputs=args.inputs,
        oracles=() if args.cross_check is None else parse_oracles(args.cross_check),
        tolerance=tolerance_from(args),
        evidence=args.evidence,
        evidence_timestamp=args.evidence_timestamp,
    )


def run_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Check every model named in ``args``; print the report; return the exit code."""
    options = options_from(args)
    run = check_models(args.models, options, progress_for(args, prog, stderr), freeze_gc=True)
    if args.json:
        stdout.write(json_report(run.reports, options.profile, run.exit_code))
    else:
        stdout.write(text_report(run.reports, options.profile))
    for r in run.reports:
        if r.error is not None:
            stderr.write(f"{prog}: {printable(r.error.one_line())}\n")
        for d in r.disagreements:
            stderr.write(f"{prog}: {r.path}: tool error: {d}\n")
    return run.exit_code
