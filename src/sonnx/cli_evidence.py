"""``sonnx evidence verify DIR``: re-check an evidence bundle written by ``sonnx-check --evidence``.

Exit codes: 0 the bundle verifies; 1 a difference was found (the first ones
are listed on stdout); 2 the bundle cannot be read as a bundle.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .progress import Progress


def add_evidence_arguments(p: argparse.ArgumentParser, parser_class: type[argparse.ArgumentParser]) -> None:
    """The ``evidence`` subcommand and its own subcommand ``verify``."""
    sub = p.add_subparsers(dest="evidence_command", metavar="ACTION", parser_class=parser_class)
    sub.required = True
    v = sub.add_parser("verify", help="re-hash, re-solve and re-derive everything an evidence bundle records")
    v.add_argument("bundle", metavar="DIR", help="the bundle directory")
    v.set_defaults(prog="sonnx evidence verify")
    g = v.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    g.add_argument("-q", "--quiet", dest="progress", action="store_false", help="never show progress")


def run_evidence(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Run ``sonnx evidence verify``; print what was verified or the differences."""
    from .evidence.verify import verify_bundle

    show = args.progress if args.progress is not None else stderr.isatty()
    result = verify_bundle(args.bundle, Progress(prog, show, stderr))
    stdout.write("\n".join(result.lines()) + "\n")
    return result.exit_code
