"""The entry points ``sonnx-check`` and ``sonnx`` (with subcommands): parse, run one subcommand, print.

Each subcommand is one module of this package: an ``add_arguments`` function
and a ``run`` function that calls the pipeline below and prints its result.
Every error reaches the user as one line on stderr with a defined exit code;
no traceback escapes (:func:`guarded`).
"""

from __future__ import annotations

import argparse
import os
import select
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, TextIO

from ..base.errors import EXIT_UNUSABLE, SonnxError, UsageError
from ..base.text import LIVE_LINE, printable, safe_stream
from . import check
from .common import Parser

PROG_CHECK = "sonnx-check"

Runner = Callable[[argparse.Namespace, TextIO, TextIO, str], int]


def _lazy(module: str, function: str) -> Callable[..., Any]:
    """``function`` of the subcommand module ``module``, which is imported when the function is first called.

    ``sonnx-check`` needs only :mod:`.check`; the other subcommands' modules (and the layers they reach: the
    executor, the oracles, the evidence verifier, Dask) are imported by the subcommand that runs them.
    """

    def call(*args: Any) -> Any:
        return getattr(import_module(f"{__package__}.{module}"), function)(*args)

    call.__name__ = call.__qualname__ = function
    return call


SUBCOMMANDS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None], Runner], ...] = (
    ("check", "check models against the SONNX rules (same as sonnx-check)", check.add_check_arguments, check.run_check),
    (
        "batch",
        "check every model under directories and globs, in parallel (Dask or a process pool)",
        _lazy("batch", "add_batch_arguments"),
        _lazy("batch", "run_batch_command"),
    ),
    ("run", "execute a model with the NumPy executor", _lazy("run", "add_run_arguments"), _lazy("run", "run_run")),
    (
        "crosscheck",
        "compare the NumPy executor with onnx's reference and onnxruntime",
        _lazy("crosscheck", "add_crosscheck_arguments"),
        _lazy("crosscheck", "run_crosscheck"),
    ),
    (
        "evidence",
        "work with evidence bundles (verify)",
        _lazy("evidence", "add_evidence_arguments"),
        _lazy("evidence", "run_evidence"),
    ),
    (
        "rules",
        "list the rules, or print the spec's statement and rationale of some",
        _lazy("rules", "add_rules_arguments"),
        _lazy("rules", "run_rules_listing"),
    ),
    (
        "partition",
        "partition a model across execution providers, or verify a partition",
        _lazy("partition", "add_partition_arguments"),
        _lazy("partition", "run_partition"),
    ),
    (
        "rewrite",
        "apply verified graph rewrites, validated against the input",
        _lazy("rewrite", "add_rewrite_arguments"),
        _lazy("rewrite", "run_rewrite"),
    ),
    (
        "equiv",
        "compare two models: structure, numbers, and both check verdicts",
        _lazy("equiv", "add_equiv_arguments"),
        _lazy("equiv", "run_equiv"),
    ),
    (
        "qualify",
        "run the tool qualification suite here and write the kit (requirements, procedures, results)",
        _lazy("qualify", "add_qualify_arguments"),
        _lazy("qualify", "run_qualify"),
    ),
)
"""Every subcommand of ``sonnx``: name, help, its argument set-up, the function that runs it."""

EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "sonnx-check": (
        ("sonnx-check examples/cnn_block.onnx", "every rule of the sonnx profile, in text"),
        ("sonnx-check --profile sonnx-strict --json examples/strict_dense.onnx", "the strict profile, as JSON"),
        ("sonnx-check --evidence bundle examples/cnn_block.onnx", "also write an evidence bundle"),
        ("sonnx-check --engine both --orders 5 examples/cnn_block.onnx", "both engines, and 5 seeded schedules"),
        ("sonnx-check -v examples/cnn_block.onnx", "progress, then the engine behind each verdict, on stderr"),
        ("sonnx-check --json -", "the model piped on standard input (cat m.onnx | sonnx-check --json -)"),
    ),
    "check": (("sonnx check examples/cnn_block.onnx", "the same as sonnx-check examples/cnn_block.onnx"),),
    "batch": (
        ("sonnx batch models/ 'more/**/*.onnx' --jobs 2", "every model found, two at a time"),
        ("sonnx batch models/ --json --evidence bundles", "a JSON summary and one bundle per model"),
    ),
    "run": (
        ("sonnx run examples/cnn_block.onnx --output out.npz", "random inputs drawn from the declared types"),
        ("sonnx run examples/cnn_block.onnx --inputs in.npz --repeat 20 --threads 1", "timed runs on given inputs"),
        ("sonnx run - --output out.npz", "the model piped on standard input (cat m.onnx | sonnx run - ...)"),
    ),
    "crosscheck": (
        ("sonnx crosscheck examples/cnn_block.onnx", "sonnx's executor against the other runtimes"),
        ("sonnx crosscheck examples/cnn_block.onnx --oracles reference --ulp 4", "one oracle, a tolerance in ulps"),
    ),
    "evidence": (("sonnx evidence verify bundle", "re-derive every claim of a bundle sonnx-check wrote"),),
    "rules": (
        ("sonnx rules", "the table of every rule"),
        ("sonnx rules GRAPH-C1 GRAPH-R2", "the spec's statement and rationale of two rules"),
    ),
    "partition": (
        ("sonnx partition examples/cnn_block.onnx --provider GPU=Conv,Relu -o part.json", "produce a partition"),
        ("sonnx partition --check examples/cnn_block.onnx part.json", "verify a partition"),
    ),
    "rewrite": (
        ("sonnx rewrite examples/cnn_block.onnx out.onnx", "every verified pass, validated on random inputs"),
        ("sonnx rewrite --pass dropout --pass identity in.onnx out.onnx", "two passes only"),
    ),
    "equiv": (("sonnx equiv original.onnx optimized.onnx", "structure, numbers and both check verdicts"),),
    "qualify": (
        ("sonnx qualify kit", "the small suite: a first look at the kit in this environment"),
        ("sonnx qualify --suite full --jobs 2 kit", "every case, for the applicant's qualification data"),
    ),
}
"""Example command lines shown at the end of each command's help (``tests/cli/test_help.py`` parses them all)."""


def _epilog(command: str) -> str:
    return "examples:\n" + "\n".join(f"  {cmd}\n      {what}" for cmd, what in EXAMPLES[command])


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
        from ..base.build_info import build_identity, render_identity  # only --version reads the build's identity

        self.stream.write(render_identity(build_identity()))
        self.stream.flush()
        parser.exit(0)


EXIT_CLOSED_PIPE = 141
"""The exit code when the reader of standard output went away (``sonnx rules | head``): 128 + SIGPIPE, the status
a shell reports for any Unix tool that a closed pipe stopped. Nothing is printed: it is a normal end."""


def _reader_gone(stdout: TextIO) -> bool:
    """Whether standard output is a pipe or socket whose reader has closed it.

    Asked of the file descriptor itself (``poll`` reports POLLERR on the write end of a pipe with no reader),
    not of the buffer, which may be empty by then.
    """
    try:
        fd = stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def guarded(fn: Runner, args: argparse.Namespace, prog: str, stdout: TextIO, stderr: TextIO) -> int:
    """Run one subcommand; every exception becomes one line on stderr and an exit code.

    A closed standard output (the reader of a pipe went away) ends the run silently with
    :data:`EXIT_CLOSED_PIPE`; a broken pipe anywhere else (a worker's) is the tool defect it is.
    """
    try:
        return fn(args, stdout, stderr, prog)
    except BrokenPipeError as exc:
        if _reader_gone(stdout):
            return EXIT_CLOSED_PIPE
        return _defect(exc, prog, stderr)
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
        return _defect(exc, prog, stderr)
    finally:  # a progress line still shown in place goes before the shell's prompt comes back
        LIVE_LINE.clear()


def _defect(exc: Exception, prog: str, stderr: TextIO) -> int:
    """An exception no layer turned into a :class:`SonnxError`: one line naming it as a tool defect."""
    detail = printable(" ".join(str(exc).split()))
    stderr.write(f"{prog}: internal error: {type(exc).__name__}: {detail} (a tool defect; please report it)\n")
    return EXIT_UNUSABLE


def _known(parser: argparse.ArgumentParser, token: str) -> bool:
    """Whether ``token`` (``--name``, ``--name=value``, ``-x``) names an option of ``parser`` (abbreviations too)."""
    name = token.split("=", 1)[0]
    options: dict[str, Any] = parser._option_string_actions
    if name in options:
        return True
    if name.startswith("--"):
        return parser.allow_abbrev and any(o.startswith(name) for o in options)
    return name[:2] in options  # a short option with its value attached (-j2)


def _unknown_option(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The first argument that looks like an option and that neither ``parser`` nor the chosen subcommand knows.

    argparse reports a missing positional argument before an unknown option (``sonnx-check -V`` said that MODEL is
    missing); the unknown option is the mistake to name.
    """
    target = parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = next((a for a in argv if not a.startswith("-")), None)
            if chosen in action.choices:
                target = action.choices[chosen]
    for token in argv:
        if token == "--":
            return None
        if token.startswith("-") and token != "-" and not token[1:2].isdigit() and not _known(target, token):
            if target is parser or not _known(parser, token):
                return token.split("=", 1)[0]
    return None


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None, prog: str, stderr: TextIO):  # type: ignore[no-untyped-def]
    try:
        return parser.parse_args(argv)
    except UsageError as exc:
        unknown = _unknown_option(parser, sys.argv[1:] if argv is None else argv)
        why = f"unrecognized option {unknown} (see --help)" if unknown is not None else exc.one_line()
        stderr.write(f"{prog}: error: {why}\n")
        return None


def check_parser(out: TextIO) -> Parser:
    """The argument parser of ``sonnx-check`` (``--version`` prints to ``out``)."""
    parser = Parser(
        prog=PROG_CHECK,
        description="Check ONNX models against the SONNX graph rules.",
        epilog=_epilog(PROG_CHECK),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action=IdentityAction, stream=out)
    check.add_check_arguments(parser)
    return parser


def check_main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Entry point of ``sonnx-check``."""
    out, err = safe_stream(stdout or sys.stdout), safe_stream(stderr or sys.stderr)
    args = _parse(check_parser(out), argv, PROG_CHECK, err)
    if args is None:
        return EXIT_UNUSABLE
    return guarded(check.run_check, args, PROG_CHECK, out, err)


def sonnx_parser(out: TextIO, only: str | None = None) -> Parser:
    """The argument parser of ``sonnx`` and its subcommands (``--version`` prints to ``out``).

    ``only``: the subcommand the command line names, the one whose arguments are set up (each subcommand's
    module is imported by its set-up); every subcommand is still listed, with its help line. None: all of them.
    """
    parser = Parser(prog="sonnx", description="Formal checks of ONNX models under the SONNX profile.")
    parser.add_argument("-V", "--version", action=IdentityAction, stream=out)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name, help_text, add_arguments, runner in SUBCOMMANDS:
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text[0].upper() + help_text[1:] + ".",
            epilog=_epilog(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if only is None or only == name:
            add_arguments(p)
        p.set_defaults(func=runner, prog=f"sonnx {name}")
    return parser


def _named(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option, when that is a subcommand's name."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if any(first == name for name, *_ in SUBCOMMANDS) else None


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of ``sonnx`` (subcommands)."""
    out, err = safe_stream(stdout or sys.stdout), safe_stream(stderr or sys.stderr)
    args = _parse(sonnx_parser(out, _named(sys.argv[1:] if argv is None else argv)), argv, "sonnx", err)
    if args is None:
        return EXIT_UNUSABLE
    return guarded(args.func, args, args.prog, out, err)


def _exit(code: int) -> None:
    """Leave the process with ``code``; after a closed pipe, standard output is pointed at /dev/null first so that
    the interpreter's last flush at exit cannot raise again and print a traceback."""
    if code != EXIT_CLOSED_PIPE:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            code = EXIT_CLOSED_PIPE
    if code == EXIT_CLOSED_PIPE:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    sys.exit(code)


def console_check() -> None:
    _exit(check_main())


def console_main() -> None:
    _exit(main())
