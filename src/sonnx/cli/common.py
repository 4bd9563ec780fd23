"""What every subcommand shares: argument types, the progress and JSON options, one-line argument errors.

Every subcommand takes ``-q/--quiet``, ``--progress`` (progress goes to
stderr, by default only when stderr is a terminal) and ``-v/--verbose``
(progress, and for a check the engines behind each verdict) and, where its
result is a report, ``--json``. ``-v`` with ``-q`` is a usage error, as
``--progress`` with ``-q`` is. A ``MODEL`` given as ``-`` is read from standard
input (:func:`model_argument`) by the commands that name it so in their help.
The checking commands (``sonnx-check``, ``sonnx batch``) also take
``--format text|json|sarif``, ``--junit FILE`` and ``--sarif FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO, TextIO

from ..base.errors import UsageError
from ..base.files import refuse_overwrite
from ..base.progress import Progress
from ..checking.options import check_docs_url, check_seed, operator_pair
from ..differential.tolerance import Tolerance
from ..loader.memory import ModelBytes, read_stream
from .colour import add_color


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2 (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see --help)")


def seed(text: str) -> int:
    """A random seed: an integer from 0 to 2**63 - 1 (NumPy's generators take no negative seed)."""
    try:
        return check_seed(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected an integer") from None
    except UsageError:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected an integer from 0 to 2**63 - 1") from None


def add_seed(p: argparse.ArgumentParser, what: str = "the random inputs") -> None:
    p.add_argument("--seed", type=seed, default=0, help=f"seed of {what} (default 0)")


def add_progress(p: argparse.ArgumentParser) -> None:
    """``--progress`` / ``-q, --quiet``."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    g.add_argument("-q", "--quiet", dest="progress", action="store_false", help="never show progress")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show progress on stderr (as --progress) and, for a check, also on stderr after the report: the "
        "engines that ran (with the SMT solver's parameters) and which engine decided each verdict, with what it "
        "recorded; stdout is unchanged. Given twice, the same as once; not with -q",
    )


def add_json(p: argparse.ArgumentParser, what: str = "the report") -> None:
    p.add_argument("--json", action="store_true", help=f"print {what} as JSON")


FORMATS = ("text", "json", "sarif")


def add_report_outputs(p: argparse.ArgumentParser, what: str) -> None:
    """``--format text|json|sarif`` (``--json`` = ``--format json``), ``--junit``, ``--sarif``, ``--docs-url``."""
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help=f"how {what} is printed: text (default), json (sonnx's own schema-versioned format) or sarif "
        "(SARIF 2.1.0, for code-scanning services)",
    )
    g.add_argument("--json", action="store_true", help="the same as --format json")
    p.add_argument(
        "--junit", metavar="FILE", help="also write the verdicts as JUnit XML: one testcase per rule per model"
    )
    p.add_argument("--sarif", metavar="FILE", help="also write the verdicts as a SARIF 2.1.0 log")
    add_color(p)
    p.add_argument(
        "--docs-url",
        metavar="URL",
        help="base URL of the sonnx documentation site; SARIF rules then link to their specification "
        "(helpUri = URL/spec.html#<rule>, URL/operators.html#<rule> for the operator layer), and so do the "
        "rule IDs on the page of an --evidence bundle "
        "(recorded in its manifest)",
    )


def output_format(args: argparse.Namespace) -> str:
    """The format of stdout the options ask for (``--json`` is ``--format json``)."""
    return "json" if args.json else (args.format or "text")


def check_report_outputs(args: argparse.Namespace, inputs: list[str]) -> None:
    """Refuse, before any work, report files that would replace an input or each other, and a stray --docs-url."""
    files = [(o, f) for o, f in (("--junit", args.junit), ("--sarif", args.sarif)) if f]
    for option, path in files:
        refuse_overwrite(path, inputs, option)
        if os.path.isdir(path):
            raise UsageError(f"{option} {path}: that is a directory; name the file to write")
    if len(files) == 2 and os.path.abspath(files[0][1]) == os.path.abspath(files[1][1]):
        raise UsageError("--junit and --sarif name the same file")
    if args.docs_url is not None:
        if output_format(args) != "sarif" and not args.sarif and getattr(args, "evidence", None) is None:
            raise UsageError("--docs-url applies to SARIF output (--format sarif or --sarif FILE) and to --evidence")
        check_docs_url(args.docs_url)


def progress_for(args: argparse.Namespace, prog: str, stderr: TextIO) -> Progress:
    """The progress reporter the options ask for (by default: only when stderr is a terminal)."""
    verbose = bool(getattr(args, "verbose", False))
    if verbose and args.progress is False:
        raise UsageError("-v/--verbose shows what -q/--quiet hides: give one of them")
    show = True if verbose else (args.progress if args.progress is not None else stderr.isatty())
    return Progress(prog, show, stderr)


STDIN_MODEL = "-"
"""A ``MODEL`` argument that means: read the model's bytes from standard input."""

MODEL_HELP_STDIN = "; - reads the model from standard input (no external data; ./- names a file called -)"
"""The end of the help of a ``MODEL`` argument that :func:`model_argument` reads."""


def model_argument(text: str, stdin: BinaryIO | None = None) -> str | ModelBytes:
    """A ``MODEL`` argument: the path as given, or for ``-`` the bytes read from standard input (``stdin``: the
    process's own by default), bounded as :func:`sonnx.loader.memory.read_stream` bounds them.

    Those bytes are read as the file they came from would be, but they have
    no folder: a tensor kept in external data is refused rather than looked
    for relative to the current directory (:mod:`sonnx.loader.memory`).
    """
    if text != STDIN_MODEL:
        return text
    if stdin is None:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise UsageError("MODEL -: this process has no standard input to read the model from")
        stdin = stream
    return read_stream(stdin)


def model_arguments(texts: Sequence[str]) -> list[str | ModelBytes]:
    """Several ``MODEL`` arguments (:func:`model_argument`); standard input can be read once only."""
    if list(texts).count(STDIN_MODEL) > 1:
        raise UsageError("MODEL -: standard input can be read only once; give - once")
    return [model_argument(t) for t in texts]


def no_stdin(text: str, command: str) -> None:
    """Refuse ``-`` as the ``MODEL`` of ``command``, which works on the model's file (:class:`UsageError`)."""
    if text == STDIN_MODEL:
        raise UsageError(
            f"MODEL -: {command} works on the model's file; standard input is read by sonnx-check, sonnx run "
            "and sonnx crosscheck (./- names a file called -)"
        )


def add_tolerance(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tolerance",
        default="default",
        metavar="POLICY",
        help="tolerance policy of the cross-check: default (per dtype, overridable), or sonnx-wg (the SONNX working "
        "group's policy: structural outputs bit-exact, element-wise float32 within 1e-6 abs, 1e-5 rel and 2 ulp "
        "all at once; spec/operators.rst section 6)",
    )
    p.add_argument("--atol", type=float, metavar="X", help="absolute tolerance for floats (default: per dtype)")
    p.add_argument("--rtol", type=float, metavar="X", help="relative tolerance for floats (default: per dtype)")
    p.add_argument("--ulp", type=int, metavar="N", help="tolerance in ULPs for floats (default: per dtype)")
    p.add_argument(
        "--quant-steps",
        type=int,
        nargs="?",
        const=1,
        default=None,
        metavar="N",
        help="let an output written by DequantizeLinear differ by N times its constant scale, and one written by "
        "QuantizeLinear by N integer units (N defaults to 1 when the option is given; other outputs keep the "
        "float tolerance)",
    )


def tolerance_from(args: argparse.Namespace) -> Tolerance:
    return Tolerance(atol=args.atol, rtol=args.rtol, ulp=args.ulp, quant_steps=args.quant_steps,
                     policy=args.tolerance)


def list_items(text: str, option: str) -> list[str]:
    """The items of a list option: ``a,b,c``, or ``@file`` with one item a line and ``#`` comments."""
    if not text.startswith("@"):
        return [t.strip() for t in text.split(",") if t.strip()]
    try:
        with open(text[1:], encoding="utf-8") as fh:
            return [line.strip() for line in fh if line.strip() and not line.lstrip().startswith("#")]
    except OSError as exc:
        raise UsageError(f"{option}: cannot read {text[1:]}: {exc.strerror or exc}") from None


def operator_list(text: str, option: str) -> frozenset[tuple[str, str]]:
    """``Add,Relu,com.acme:Fused`` (or ``@file``, one a line, ``#`` comments) as (domain, operator) pairs."""
    items = list_items(text, option)
    if not items:
        raise UsageError(f"{option}: the operator list is empty")
    pairs = set()
    for item in items:
        pair = operator_pair(item)
        if not pair[1]:
            raise UsageError(f"{option}: {item!r} names no operator")
        pairs.add(pair)
    return frozenset(pairs)


def metadata_keys(text: str, option: str) -> tuple[str, ...]:
    """``key1,key2`` (or ``@file``, one a line, ``#`` comments) as metadata keys; an empty list requires none."""
    items = list_items(text, option)
    return tuple(dict.fromkeys(items))


def write_json(out: TextIO, data: Any) -> None:
    """One JSON document on ``out``: two-space indent, UTF-8 kept, final newline."""
    out.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
