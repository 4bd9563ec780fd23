"""``sonnx rules``: the rule table, as text or ``--json``."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..rules import RULES
from .common import add_json, write_json


def add_rules_arguments(p: argparse.ArgumentParser) -> None:
    add_json(p, "the rules")


def run_rules_listing(args: argparse.Namespace, stdout: TextIO, _stderr: TextIO, _prog: str) -> int:
    """Print the rule table: ID, severity, profile, title, statement."""
    if args.json:
        write_json(
            stdout,
            [
                {"id": r.id, "severity": r.severity.value,
                 "strict_severity": None if r.strict_severity is None else r.strict_severity.value,
                 "profile": r.profile, "title": r.title, "statement": r.statement, "spec": r.spec}
                for r in RULES
            ],
        )
        return 0
    for r in RULES:
        stdout.write(f"{r.id:<24} {r.severity.value:<8} {r.profile:<13} {r.title}\n")
        if r.strict_severity is not None:
            stdout.write(f"{'':<24} ({r.strict_severity.value} in sonnx-strict)\n")
        stdout.write(f"{'':<24} {r.statement}\n")
    return 0
