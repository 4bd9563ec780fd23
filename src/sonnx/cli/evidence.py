"""``sonnx evidence verify DIR``: re-check an evidence bundle written by ``sonnx-check --evidence``.

Exit codes: 0 the bundle verifies; 1 a difference was found (the first ones
are listed on stdout); 2 the bundle cannot be read as a bundle.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..replay import verify_bundle
from .common import Parser, add_json, add_progress, progress_for, write_json


def add_evidence_arguments(p: argparse.ArgumentParser) -> None:
    """The ``evidence`` subcommand and its own subcommand ``verify``."""
    sub = p.add_subparsers(dest="evidence_command", metavar="ACTION", parser_class=Parser)
    sub.required = True
    v = sub.add_parser("verify", help="re-hash, re-solve and re-derive everything an evidence bundle records")
    v.add_argument("bundle", metavar="DIR", help="the bundle directory")
    v.add_argument(
        "--key",
        metavar="PUB",
        help="also check the bundle's signature (attestation.intoto.jsonl) with this Ed25519 public key (PEM); "
        "a bundle that is not signed by it does not verify",
    )
    v.set_defaults(prog="sonnx evidence verify")
    add_json(p=v, what="what was verified, or the differences,")
    add_progress(v)


def run_evidence(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Run ``sonnx evidence verify``; print what was verified or the differences."""
    result = verify_bundle(args.bundle, progress_for(args, prog, stderr), key=args.key)
    if args.json:
        write_json(stdout, result.to_json())
    else:
        stdout.write("\n".join(result.lines()) + "\n")
    return result.exit_code
