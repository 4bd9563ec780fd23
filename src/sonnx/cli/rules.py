"""``sonnx rules [RULE-ID ...]``: the rule table, or the spec's text of some rules, as text or ``--json``.

Every word shown is the spec's (section 4 of ``spec/graph.rst``, through
:mod:`sonnx.rules.texts`): the table gives each rule's title, the short form;
naming rules prints their whole statement and rationale.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any, TextIO

from ..base.errors import UsageError
from ..rules import RULES, Rule
from .common import add_json, write_json

WIDTH = 88
"""The width the statements are wrapped to in text output."""


def add_rules_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "ids",
        nargs="*",
        metavar="RULE-ID",
        help="print the spec's statement and rationale of these rules (default: the table of every rule)",
    )
    add_json(p, "the rules")


def _record(r: Rule) -> dict[str, Any]:
    return {
        "id": r.id,
        "severity": r.severity.value,
        "strict_severity": None if r.strict_severity is None else r.strict_severity.value,
        "profile": r.profile,
        "title": r.title,
        "statement": r.statement,
        "rationale": r.rationale,
        "spec": r.spec,
        "section": r.text.number,
    }


def _chosen(ids: list[str]) -> tuple[Rule, ...]:
    by_id = {r.id: r for r in RULES}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise UsageError(f"no rule {', '.join(unknown)} (sonnx rules lists them)")
    return tuple(by_id[i] for i in dict.fromkeys(ids))


def _wrapped(text: str, indent: str) -> str:
    """``text`` wrapped paragraph by paragraph (a list item keeps a hanging indent)."""
    out = []
    for para in text.split("\n"):
        if not para:
            out.append("")
            continue
        hang = "  " if para.startswith("- ") else ""
        out.append(textwrap.fill(para, WIDTH, initial_indent=indent, subsequent_indent=indent + hang))
    return "\n".join(out)


def _full(r: Rule) -> str:
    severity = r.severity.value if r.strict_severity is None else (
        f"{r.severity.value}; {r.strict_severity.value} in sonnx-strict")
    parts = [
        f"{r.id}: {r.title} ({severity}; profile {r.profile})",
        f"  {r.spec}, section {r.text.number}",
        "",
        _wrapped(r.statement, "  "),
        "",
        "  Rationale (not normative):",
        _wrapped(r.rationale, "  ") if r.rationale is not None else "  none given in the spec",
    ]
    return "\n".join(parts) + "\n"


def run_rules_listing(args: argparse.Namespace, stdout: TextIO, _stderr: TextIO, _prog: str) -> int:
    """Print the rule table (ID, severity, profile, title), or the statement and rationale of the rules named."""
    chosen = _chosen(args.ids) if args.ids else RULES
    if args.json:
        write_json(stdout, [_record(r) for r in chosen])
        return 0
    if args.ids:
        stdout.write("\n".join(_full(r) for r in chosen))
        return 0
    for r in RULES:
        stdout.write(f"{r.id:<24} {r.severity.value:<8} {r.profile:<13} {r.title}\n")
        if r.strict_severity is not None:
            stdout.write(f"{'':<24} ({r.strict_severity.value} in sonnx-strict)\n")
    return 0
