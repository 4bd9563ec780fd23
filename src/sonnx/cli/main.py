"""The entry points ``sonnx-check`` and ``sonnx`` (with subcommands): parse, run one subcommand, print.

Each subcommand is one module of this package: an ``add_arguments`` function
and a ``run`` function that calls the pipeline below and prints its result.
Every error reaches the user as one line on stderr with a defined exit code;
no traceback escapes (:func:`guarded`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ..base.build_info import build_identity, render_identity
from ..base.errors import EXIT_UNUSABLE, SonnxError, UsageError
from ..base.text import printable, safe_stream
from . import batch, check, crosscheck, equiv, evidence, partition, qualify, rewrite, rules, run
from .common import Parser

PROG_CHECK = "sonnx-check"

Runner = Callable[[argparse.Namespace, TextIO, TextIO, str], int]

SUBCOMMANDS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None], Runner], ...] = (
    ("check", "check models against the SONNX rules (same as sonnx-check)", check.add_check_arguments, check.run_check),
    (
        "batch",
        "check every model under directories and globs, in parallel (Dask or a process pool)",
        batch.add_batch_arguments,
        batch.run_batch_command,
    ),
    ("run", "execute a model with the NumPy executor", run.add_run_arguments, run.run_run),
    (
        "crosscheck",
        "compare the NumPy executor with onnx's reference and onnxruntime",
        crosscheck.add_crosscheck_arguments,
        crosscheck.run_crosscheck,
    ),
    ("evidence", "work with evidence bundles (verify)", evidence.add_evidence_arguments, evidence.run_evidence),
    (
        "rules",
        "list the rules, or print the spec's statement and rationale of some",
        rules.add_rules_arguments,
        rules.run_rules_listing,
    ),
    (
        "partition",
        "partition a model across execution providers, or verify a partition",
        partition.add_partition_arguments,
        partition.run_partition,
    ),
    (
        "rewrite",
        "apply verified graph rewrites, validated against the input",
        rewrite.add_rewrite_arguments,
        rewrite.run_rewrite,
    ),
    (
        "equiv",
        "compare two models: structure, numbers, and both check verdicts",
        equiv.add_equiv_arguments,
        equiv.run_equiv,
    ),
    (
        "qualify",
        "run the tool qualification suite here and write the kit (requirements, procedures, results)",
        qualify.add_qualify_arguments,
        qualify.run_qualify,
    ),
)
"""Every subcommand of ``sonnx``: name, help, its argument set-up, the function that runs it."""


class IdentityAction(argparse.Action):
    """``--version``: print the identity of the running build (version, commit, package digest, peers), exit 0.

    The identity is computed only when the option is given: it hashes the
    package's files and may ask git for the commit.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, stream: TextIO, **kwargs: Any) -> None:
        kwargs.setdefault("help", "print the version, commit and digest of this build and its libraries' versions")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.stream = stream

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None
    ) -> None:
        self.stream.write(render_identity(build_identity()))
        self.stream.flush()
        parser.exit(0)


def guarded(fn: Runner, args: argparse.Namespace, prog: str, stdout: TextIO, stderr: TextIO) -> int:
    """Run one subcommand; every exception becomes one line on stderr and an exit code."""
    try:
        return fn(args, stdout, stderr, prog)
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
    parser = Parser(prog=PROG_CHECK, description="Check ONNX models against the SONNX graph rules.")
    parser.add_argument("--version", action=IdentityAction, stream=out)
    check.add_check_arguments(parser)
    args = _parse(parser, argv, PROG_CHECK, err)
    if args is None:
        return EXIT_UNUSABLE
    return guarded(check.run_check, args, PROG_CHECK, out, err)


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of ``sonnx`` (subcommands)."""
    out, err = safe_stream(stdout or sys.stdout), safe_stream(stderr or sys.stderr)
    parser = Parser(prog="sonnx", description="Formal checks of ONNX models under the SONNX profile.")
    parser.add_argument("--version", action=IdentityAction, stream=out)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name, help_text, add_arguments, runner in SUBCOMMANDS:
        p = sub.add_parser(name, help=help_text)
        add_arguments(p)
        p.set_defaults(func=runner, prog=f"sonnx {name}")
    args = _parse(parser, argv, "sonnx", err)
    if args is None:
        return EXIT_UNUSABLE
    return guarded(args.func, args, args.prog, out, err)


def console_check() -> None:
    sys.exit(check_main())


def console_main() -> None:
    sys.exit(main())
