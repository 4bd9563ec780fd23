"""``sonnx evidence verify DIR``: re-check an evidence bundle written by ``sonnx-check --evidence``.

Exit codes: 0 every statement of the bundle was re-derived (or taken on trust
with ``--trust``); 1 a difference was found (the first ones are listed on
stdout); 2 the bundle cannot be read as a bundle, or it makes a claim this
machine cannot re-derive and the reviewer did not trust.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..checking.replay import trust_set, verify_bundle
from .common import Parser, add_json, add_progress, progress_for, write_json


def add_evidence_arguments(p: argparse.ArgumentParser) -> None:
    """The ``evidence`` subcommand and its own subcommand ``verify``."""
    sub = p.add_subparsers(dest="evidence_command", metavar="ACTION", parser_class=Parser)
    sub.required = True
    v = sub.add_parser("verify", help="re-hash, re-solve and re-derive everything an evidence bundle records")
    v.add_argument("bundle", metavar="DIR", help="the bundle directory")
    v.add_argument(
        "--trust",
        metavar="KINDS",
        default="",
        help="kinds of claim to take on trust when they cannot be re-derived here, comma-separated: "
        "build (the bundle was made by another build or platform), date (the creation date), crosscheck "
        "(figures of a runtime not installed here); each is listed as taken on trust, never as confirmed",
    )
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
    kinds = [k.strip() for k in args.trust.split(",") if k.strip()]
    say = progress_for(args, prog, stderr)
    result = verify_bundle(args.bundle, say, trust=trust_set(kinds), key=args.key)
    if args.json:
        write_json(stdout, result.to_json())
    else:
        stdout.write("\n".join(result.lines()) + "\n")
    return result.exit_code
