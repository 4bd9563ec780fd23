"""``sonnx-check`` and ``sonnx check``: parse the options into a :class:`~sonnx.checking.options.CheckOptions`,
run the check pipeline (:mod:`sonnx.checking.pipeline`), print the report.

Exit codes (the same for every subcommand that checks something):

* 0: every rule of the selected profile holds (warnings may be printed), or
  its finding is WAIVED by an entry of ``--waivers`` (outcome WAIVED, never PROVED);
* 1: a rule of error severity is violated; the witness is printed;
* 2: an input is unusable, an option is wrong, a waiver is stale or expired,
  a verdict is UNKNOWN, a rule is NOT CHECKED (``--select``/``--ignore`` left it
  out: outcome PARTIAL), or the tool itself failed. Never a pass.

The report goes to stdout as text, JSON or SARIF (``--format``); ``--junit``
and ``--sarif`` also write it to files, whatever stdout shows. A ``MODEL``
given as ``-`` is read from standard input and named ``<stdin>`` in the
report; ``-v`` adds the engines behind each verdict on stderr (:mod:`.verbose`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TextIO

from ..base.errors import EXIT_OK, UsageError
from ..base.text import printable
from ..checking.changed import models_for_changes
from ..checking.option_values import parse_input_range
from ..checking.options import ENGINES, CheckOptions
from ..checking.pipeline import check_models
from ..checking.proofs import SMT_AUTO_LIMIT
from ..checking.report import ModelReport, json_report, text_report
from ..checking.selection import parse_selectors
from ..rules import PROFILE_SONNX, PROFILES
from ..rules.shapes_terms import parse_dims
from ..smt.sizes import POOL_MIN_OPERATIONS
from .colour import wanted, write_report
from .common import (
    MODEL_HELP_STDIN,
    STDIN_MODEL,
    add_progress,
    add_report_outputs,
    add_seed,
    add_tolerance,
    check_report_outputs,
    metadata_keys,
    model_arguments,
    operator_list,
    output_format,
    progress_for,
    tolerance_from,
)
from .verbose import write_verbose


def add_check_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``sonnx-check`` (shared with ``sonnx check``)."""
    p.add_argument("models", nargs="+", metavar="MODEL", help="ONNX model file(s) to check" + MODEL_HELP_STDIN)
    add_report_outputs(p, "the report")
    add_check_options(
        p, "write an evidence bundle of the check to DIR (one model only; DIR must not exist or be empty)"
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="processes that solve the SMT proof obligations (default: every core this process may use); the "
        "verdicts, obligation files and evidence bundle are the same for every N; models under "
        f"{POOL_MIN_OPERATIONS:,} operations are solved in this process",
    )
    add_progress(p)
    add_hook_options(p)


def add_hook_options(p: argparse.ArgumentParser) -> None:
    """``--findings-only`` and ``--changed-files``: what the pre-commit hook runs (docs/integration.rst)."""
    p.add_argument(
        "--findings-only", action="store_true",
        help="text report: print only the verdicts that are not an unconditional PROVED (violations, warnings, "
        "UNKNOWN, TESTED, WAIVED, NOT CHECKED) with their witness or reason, and the result line; a model "
        "with none and no note is one line. Exit codes are unchanged",
    )
    p.add_argument(
        "--changed-files", action="store_true",
        help="the MODEL arguments are the paths a commit changes (as pre-commit passes them): check the .onnx "
        "files among them and every *.onnx in a changed file's folder or a folder above it (up to the current "
        "directory) that reads a changed file as external data; a changed file no model reads is ignored",
    )


def add_check_options(p: argparse.ArgumentParser, evidence_help: str) -> None:
    """The options that make a :class:`~sonnx.checking.options.CheckOptions` (shared with ``sonnx batch``)."""
    p.add_argument(
        "--profile", choices=PROFILES, default=PROFILE_SONNX, help="rule set: sonnx (default) or sonnx-strict"
    )
    p.add_argument(
        "--operators",
        metavar="LIST|@FILE",
        help="operator set of the sonnx-strict profile: comma-separated [domain:]Operator, or @file (default: "
        "the SONNX working group's list, mapped to ONNX names; training operators are refused)",
    )
    p.add_argument(
        "--required-metadata",
        metavar="KEYS|@FILE",
        help="metadata_props keys the sonnx-strict profile requires (STRICT-METADATA): comma-separated, or @file; "
        "'' requires none; default: sonnx.io_semantics, sonnx.dimension_semantics, sonnx.execution_order, "
        "sonnx.target",
    )
    p.add_argument(
        "--dims",
        action="append",
        metavar="NAME=LO..HI",
        help="domain of a symbolic input dimension for OP-SHAPES (sonnx-strict): NAME=LO..HI or NAME=K, "
        "comma-separated or repeated; a dimension not given ranges over the integers of at least 1",
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
        f"auto (default) is both up to {SMT_AUTO_LIMIT:,} operations and direct above, saying so in the report",
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
        help="also execute N distinct seeded random schedules and compare the outputs bit for bit (and the "
        "order the model declares in its sonnx.execution_order metadata, when it declares one)",
    )
    add_seed(p, "the random inputs and schedules")
    p.add_argument(
        "--inputs", metavar="FILE.npz|FILE.json",
        help="input values for --orders, keyed by graph-input name (.npz tensors, or JSON for every "
        "input kind: maps, sequences, optionals)",
    )
    p.add_argument(
        "--cross-check",
        metavar="ORACLES",
        help="also run the model with these runtimes (comma-separated: reference, onnxruntime) on the "
        "--seed / --inputs values and compare every output with the NumPy executor",
    )
    add_tolerance(p)
    p.add_argument("--evidence", metavar="DIR", help=evidence_help)
    p.add_argument(
        "--operator-declarations", metavar="FILE",
        help="facts about custom-domain operators no ONNX schema defines (TOML, or JSON by its .json suffix): "
        "determinism, arity, element types; verdicts that rest on them say 'assuming operator declarations'",
    )
    p.add_argument(
        "--input-range",
        metavar="INPUT=LO..HI",
        action="append",
        help="the range of every element of a graph input, assumed by the error-condition rules of the "
        "sonnx-strict profile and recorded in the evidence (repeatable; default: the model's metadata "
        "sonnx.input_range.<input>, else the whole element type)",
    )
    p.add_argument(
        "--evidence-timestamp", action="store_true", help="record the creation time in the bundle's manifest"
    )
    p.add_argument(
        "--sign",
        metavar="KEY",
        help="sign the evidence bundle with this Ed25519 private key (unencrypted PKCS#8 PEM): an in-toto "
        "Statement about its manifest in a DSSE envelope, attestation.intoto.jsonl (needs the sign extra)",
    )
    add_selection_and_waivers(p)


def add_selection_and_waivers(p: argparse.ArgumentParser) -> None:
    """``--select``, ``--ignore``, ``--waivers`` and ``--waivers-date`` (docs/waivers.rst)."""
    p.add_argument(
        "--select", action="append", metavar="IDS",
        help="report only these rules: comma-separated rule IDs or prefixes of whole parts (GRAPH-C1 also "
        "selects GRAPH-C1-SOURCES; GRAPH selects every GRAPH rule); repeatable. The others are NOT CHECKED and "
        "the outcome is PARTIAL (exit 2 unless a checked rule is violated)",
    )
    p.add_argument(
        "--ignore", action="append", metavar="IDS",
        help="do not report these rules (IDs or prefixes, as --select; the more specific selector wins, "
        "--ignore on a tie); repeatable",
    )
    p.add_argument(
        "--waivers", metavar="FILE.toml",
        help="accept the findings covered by this waivers file (docs/waivers.rst): they are WAIVED, never "
        "PROVED; an entry that matches nothing, has expired or is for another model is an error (exit 2)",
    )
    p.add_argument(
        "--waivers-date", metavar="YYYY-MM-DD",
        help="the date the waivers are judged on (default: today, UTC; recorded in an --evidence bundle)",
    )


def options_from(args: argparse.Namespace) -> CheckOptions:
    """The check's options from the parsed arguments (a wrong combination is a usage error, exit 2)."""
    return CheckOptions(
        profile=args.profile,
        operators=None if args.operators is None else operator_list(args.operators, "--operators"),
        required_metadata=(
            None if args.required_metadata is None else metadata_keys(args.required_metadata, "--required-metadata")
        ),
        dims=parse_dims(args.dims or ()),
        input_ranges=(
            None if args.input_range is None else tuple(parse_input_range(t) for t in args.input_range)
        ),
        engine=args.engine,
        smt_dir=args.smt_dir,
        structure_only=args.structure_only,
        seed=args.seed,
        orders=args.orders,
        inputs=args.inputs,
        oracles=() if args.cross_check is None else _oracles(args.cross_check),
        tolerance=tolerance_from(args),
        evidence=args.evidence,
        evidence_timestamp=args.evidence_timestamp,
        sign=args.sign,
        docs_url=args.docs_url if args.evidence is not None else None,
        jobs=getattr(args, "jobs", None),  # sonnx batch's --jobs sizes its pool of models instead
        select=None if args.select is None else parse_selectors(args.select, "--select"),
        ignore=parse_selectors(args.ignore or (), "--ignore"),
        waivers=args.waivers,
        waivers_date=args.waivers_date,
        operator_declarations=getattr(args, "operator_declarations", None),
    )


def _oracles(text: str) -> tuple[str, ...]:
    """``--cross-check``'s oracle names; the cross-check is imported only by a check that asks for one."""
    from ..differential.run import parse_oracles

    return parse_oracles(text)


def write_outputs(
    args: argparse.Namespace,
    reports: Sequence[ModelReport],
    profile: str,
    exit_code: int,
    seconds: Mapping[str, float] | None = None,
) -> None:
    """Write the ``--junit`` and ``--sarif`` files the options ask for (their writers imported only then)."""
    if args.junit:
        from ..checking.formats import write_junit

        write_junit(args.junit, reports, profile, seconds)
    if args.sarif:
        from ..checking.formats import write_sarif

        write_sarif(args.sarif, reports, profile, exit_code, args.docs_url)


def nothing_to_check(args: argparse.Namespace, profile: str, fmt: str, stdout: TextIO) -> int:
    """``--changed-files`` when no changed path is a model or a file a model reads: exit 0, no text, and the
    empty report of the machine formats (stdout, ``--junit``, ``--sarif``), so a consumer always finds one."""
    if fmt == "json":
        stdout.write(json_report([], profile, EXIT_OK))
    elif fmt == "sarif":
        from ..checking.formats.sarif import sarif_report

        stdout.write(sarif_report([], profile, EXIT_OK, args.docs_url))
    write_outputs(args, [], profile, EXIT_OK)
    return EXIT_OK


def run_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Check every model named in ``args``; print the report; return the exit code."""
    options = options_from(args)
    fmt = output_format(args)
    if args.findings_only and fmt != "text":
        raise UsageError(f"--findings-only applies to the text report, not to --format {fmt}")
    models = models_for_changes(args.models) if args.changed_files else list(args.models)
    check_report_outputs(args, [m for m in models if m != STDIN_MODEL])
    if not models:
        return nothing_to_check(args, options.profile, fmt, stdout)
    run = check_models(model_arguments(models), options, progress_for(args, prog, stderr), freeze_gc=True)
    if fmt == "json":
        stdout.write(json_report(run.reports, options.profile, run.exit_code))
    elif fmt == "sarif":
        from ..checking.formats.sarif import sarif_report

        stdout.write(sarif_report(run.reports, options.profile, run.exit_code, args.docs_url))
    else:  # a model that could not be read is said once, as the one-line error on stderr below
        checked = [r for r in run.reports if r.error is None]
        text = text_report(checked, options.profile, args.findings_only) if checked else ""
        write_report(stdout, text, wanted(args.color, stdout))
    write_outputs(args, run.reports, options.profile, run.exit_code)
    if args.verbose:
        write_verbose(stderr, prog, run.reports)
    for r in run.reports:
        if r.error is not None:
            stderr.write(f"{prog}: {printable(r.error.one_line())}\n")
        for d in r.disagreements:
            stderr.write(f"{prog}: {r.path}: tool error: {d}\n")
    return run.exit_code
