"""The command line: ``sonnx-check`` and ``sonnx`` (with subcommands).

Exit codes (the same for every subcommand that checks something):

* 0: every rule of the selected profile holds (warnings may be printed);
* 1: a rule of error severity is violated; the witness is printed;
* 2: an input is unusable, an option is wrong, a verdict is UNKNOWN, or the
  tool itself failed. Never a pass.

Every error reaches the user as one line on stderr; no traceback escapes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence, TextIO

from . import __version__
from .check import ModelReport, check_file
from .cli_args import seed
from .cli_crosscheck import TITLES as CROSSCHECK_TITLES
from .cli_crosscheck import CheckExtras, add_check_options, add_crosscheck_arguments, run_crosscheck
from .cli_evidence import add_evidence_arguments, run_evidence
from .cli_run import add_run_arguments, run_run
from .errors import EXIT_UNUSABLE, SonnxError, UsageError
from .inputs import load_inputs
from .orders import TITLE as ORDERS_TITLE
from .orders import check_orders
from .progress import Progress
from .report import json_report, text_report
from .rules import PROFILE_SONNX, PROFILES, RULES, CheckConfig
from .text import printable, safe_stream

PROG_CHECK = "sonnx-check"


def _parse_operator_set(text: str) -> frozenset[tuple[str, str]]:
    """``Add,Relu,com.acme:Fused`` (or ``@file`` with one per line) as (domain, operator) pairs."""
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as fh:
                items = [line.strip() for line in fh if line.strip() and not line.startswith("#")]
        except OSError as exc:
            raise UsageError(f"--operators: cannot read {text[1:]}: {exc.strerror or exc}") from None
    else:
        items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise UsageError("--operators: the operator set is empty")
    pairs = set()
    for item in items:
        domain, _, name = item.rpartition(":")
        domain = "" if domain in ("", "ai.onnx") else domain
        if not name:
            raise UsageError(f"--operators: {item!r} names no operator")
        pairs.add((domain, name))
    return frozenset(pairs)


def add_check_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``sonnx-check`` (shared with ``sonnx check``)."""
    p.add_argument("models", nargs="+", metavar="MODEL", help="ONNX model file(s) to check")
    p.add_argument("--json", action="store_true", help="print the report as schema-versioned JSON")
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
        choices=("auto", "direct", "smt", "both"),
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
    p.add_argument("--seed", type=seed, default=0, help="seed of the random inputs and schedules (default 0)")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values for --orders, keyed by graph-input name")
    add_check_options(p)  # --cross-check, --atol/--rtol/--ulp, --evidence (cli_crosscheck.py)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    g.add_argument("-q", "--quiet", dest="progress", action="store_false", help="never show progress")


def export_stems(paths: Sequence[str]) -> list[str]:
    """A distinct file-name stem per model for ``--smt-dir`` (``m``, ``m-2``... when two files share a stem)."""
    used: set[str] = set()
    out = []
    for path in paths:
        stem = Path(path).stem or "model"
        candidate, k = stem, 2
        while candidate in used:
            candidate, k = f"{stem}-{k}", k + 1
        used.add(candidate)
        out.append(candidate)
    return out


def run_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Check every model named in ``args``; print the report; return the exit code."""
    allowed = _parse_operator_set(args.operators) if args.operators else None
    if allowed is not None and args.profile != "sonnx-strict":
        raise UsageError("--operators only applies with --profile sonnx-strict")
    config = CheckConfig(profile=args.profile, allowed_operators=allowed, engine=args.engine, smt_dir=args.smt_dir)
    if args.smt_dir and args.engine == "direct":
        raise UsageError("--smt-dir needs --engine smt or both")
    show = args.progress if args.progress is not None else stderr.isatty()
    progress = Progress(prog, show, stderr)
    if args.orders < 0:
        raise UsageError("--orders must be at least 0")
    if args.structure_only and (args.orders or args.cross_check):
        flag = "--orders" if args.orders else "--cross-check"
        raise UsageError(f"{flag} executes the model, which reads its weights; --structure-only never reads them")
    extras = CheckExtras.from_args(args)
    reports: list[ModelReport] = []
    stems = export_stems(args.models)
    for path, stem in zip(args.models, stems, strict=True):
        reports.append(
            check_file(
                path, config, read_weights=not args.structure_only, progress=progress, freeze_gc=True, export_stem=stem
            )
        )
        if args.orders and reports[-1].model is not None:
            progress(f"running {args.orders} schedules")
            model = reports[-1].model
            feeds = load_inputs(model, args.inputs, [], args.seed)
            reports[-1].verdicts.append(check_orders(model, args.orders, args.seed, feeds))
        extras.after_model(reports[-1], progress)
    code = max(r.exit_code for r in reports)
    extras.finish(reports, code, progress)
    progress("done")
    titles = {r.id: r.title for r in RULES}
    titles["EXEC-ORDERS"] = ORDERS_TITLE
    titles.update(CROSSCHECK_TITLES)
    if args.json:
        stdout.write(json_report(reports, args.profile, code))
    else:
        stdout.write(text_report(reports, titles, args.profile))
    for r in reports:
        if r.error is not None:
            stderr.write(f"{prog}: {printable(r.error.one_line())}\n")
        for d in r.disagreements:
            stderr.write(f"{prog}: {r.path}: tool error: {d}\n")
    return code


def run_rules_listing(_args: argparse.Namespace, stdout: TextIO, _stderr: TextIO, _prog: str) -> int:
    """Print the rule table: ID, severity, profile, title, statement."""
    for r in RULES:
        stdout.write(f"{r.id:<22} {r.severity.value:<8} {r.profile:<13} {r.title}\n")
        stdout.write(f"{'':<22} {r.statement}\n")
    return 0


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2 (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see --help)")


def _guarded(fn: object, args: argparse.Namespace, prog: str, stdout: TextIO, stderr: TextIO) -> int:
    try:
        return fn(args, stdout, stderr, prog)  # type: ignore[operator]
    except SonnxError as exc:
        stderr.write(f"{prog}: error: {printable(exc.one_line())}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        stderr.write(f"{prog}: interrupted\n")
        return 130
    except RecursionError:
        stderr.write(f"{prog}: internal error: recursion limit exceeded (a tool defect; please report it)\n")
        return EXIT_UNUSABLE
    except MemoryError:
        stderr.write(f"{prog}: error: not enough memory for this model or its inputs on this machine\n")
        return EXIT_UNUSABLE
    except Exception as exc:
        detail = printable(" ".join(str(exc).split()))
        stderr.write(f"{prog}: internal error: {type(exc).__name__}: {detail} (a tool defect; please report it)\n")
        return EXIT_UNUSABLE


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None, prog: str, stderr: TextIO):  # type: ignore[no-untyped-def]
    try:
        return parser.parse_args(argv)
    except UsageError as exc:
        stderr.write(f"{prog}: error: {exc.one_line()}\n")
        return None


def check_main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Entry point of ``sonnx-check``."""
    out, err = safe_stream(stdout or sys.stdout), safe_stream(stderr or sys.stderr)
    parser = _Parser(prog=PROG_CHECK, description="Check ONNX models against the SONNX graph rules.")
    parser.add_argument("--version", action="version", version=f"sonnx {__version__}")
    add_check_arguments(parser)
    args = _parse(parser, argv, PROG_CHECK, err)
    if args is None:
        return EXIT_UNUSABLE
    return _guarded(run_check, args, PROG_CHECK, out, err)


def _no_arguments(_p: argparse.ArgumentParser) -> None:
    return None


def _subcommands() -> list[tuple[str, str, Callable[[argparse.ArgumentParser], None], Callable[..., int]]]:
    """Every subcommand of ``sonnx``: name, help, its argument set-up, the function that runs it."""
    from .cli_partition import add_partition_arguments, run_partition
    from .cli_rewrite import add_equiv_arguments, add_rewrite_arguments, run_equiv, run_rewrite

    return [
        ("check", "check models against the SONNX rules (same as sonnx-check)", add_check_arguments, run_check),
        ("run", "execute a model with the NumPy executor", add_run_arguments, run_run),
        (
            "crosscheck",
            "compare the NumPy executor with onnx's reference and onnxruntime",
            add_crosscheck_arguments,
            run_crosscheck,
        ),
        (
            "evidence",
            "work with evidence bundles (verify)",
            lambda p: add_evidence_arguments(p, _Parser),
            run_evidence,
        ),
        ("rules", "list the rules and their statements", _no_arguments, run_rules_listing),
        (
            "partition",
            "partition a model across execution providers, or verify a partition",
            add_partition_arguments,
            run_partition,
        ),
        ("rewrite", "apply verified graph rewrites, validated against the input", add_rewrite_arguments, run_rewrite),
        ("equiv", "compare two models: structure, numbers, and both check verdicts", add_equiv_arguments, run_equiv),
    ]


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of ``sonnx`` (subcommands)."""
    out, err = safe_stream(stdout or sys.stdout), safe_stream(stderr or sys.stderr)
    parser = _Parser(prog="sonnx", description="Formal checks of ONNX models under the SONNX profile.")
    parser.add_argument("--version", action="version", version=f"sonnx {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, help_text, add_arguments, run in _subcommands():
        p = sub.add_parser(name, help=help_text)
        add_arguments(p)
        p.set_defaults(func=run, prog=f"sonnx {name}")
    args = _parse(parser, argv, "sonnx", err)
    if args is None:
        return EXIT_UNUSABLE
    return _guarded(args.func, args, args.prog, out, err)


def _console_check() -> None:
    sys.exit(check_main())


def _console_main() -> None:
    sys.exit(main())
