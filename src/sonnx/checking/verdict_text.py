"""One verdict as the reports word it: its rule's title and spec section, and its lines in the text report.

These depend on a verdict alone, never on a whole :class:`~sonnx.checking.report.ModelReport`, so the
report, the JUnit and SARIF writers, the evidence page and the qualification kit all word a verdict the same
way (spec/graph.rst, section 9.1: the statuses and what each shows).
"""

from __future__ import annotations

import re
from typing import Any

from ..base.text import printable
from ..base.verdict import Status, Verdict
from ..rules import RULES

MAX_TEXT_ITEMS = 8
"""Witness lists are cut after this many items in the text report (the JSON report keeps them whole)."""

SPEC_PAGES = {"spec/graph.rst": "spec.html", "spec/operators.rst": "operators.html"}
"""Where the documentation site publishes each spec file (``docs/spec.rst`` includes ``spec/graph.rst``,
``docs/operators.rst`` includes ``spec/operators.rst``)."""


def html_anchor(label: str) -> str:
    """The HTML id Sphinx gives the reST label ``label`` (``GRAPH-R1`` -> ``graph-r1``)."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def spec_sections() -> dict[str, str]:
    """Each rule of the table with its section on the documentation site: ID -> ``spec.html#<anchor>``.

    Every rule is stated under a label that is its ID (spec/graph.rst, "Verification rules"). The verdicts that
    are no rule of the spec (EXEC-ORDERS and the cross-checks, tests on the samples stated) have no section.
    """
    return {r.id: f"{SPEC_PAGES[r.spec]}#{html_anchor(r.id)}" for r in RULES if r.spec in SPEC_PAGES}


def titles() -> dict[str, str]:
    """The title of every verdict a check can give: the rule table's, EXEC-ORDERS and the cross-checks'."""
    from ..differential.verdicts import TITLES as CROSSCHECK_TITLES
    from ..execution.names import ID as ORDERS_ID
    from ..execution.names import TITLE as ORDERS_TITLE

    return {**{r.id: r.title for r in RULES}, ORDERS_ID: ORDERS_TITLE, **CROSSCHECK_TITLES}


def rule_column() -> int:
    """The width of the text report's rule column: the longest ID a check can report, plus one space.

    With the space that follows the column, every title stands at least two spaces after its ID, the longest
    included, and the column is the same for every model and every selection, so reports line up.
    """
    return max(len(rule_id) for rule_id in titles()) + 1


def format_item(value: Any, nested: bool = False) -> str:
    """Witness data as compact text: dicts as ``k=v``, lists cut after MAX_TEXT_ITEMS items."""
    if isinstance(value, dict):
        body = ", ".join(f"{k}={format_item(v, True)}" for k, v in value.items())
        return f"({body})" if nested else body
    if isinstance(value, list):
        shown = [format_item(v, True) for v in value[:MAX_TEXT_ITEMS]]
        more = f" ... ({len(value) - MAX_TEXT_ITEMS} more)" if len(value) > MAX_TEXT_ITEMS else ""
        return "[" + "; ".join(shown) + more + "]"
    return str(value)


def verdict_lines(v: Verdict, title: str, width: int = 22) -> list[str]:
    """The text lines of one verdict: status, rule (in a column ``width`` wide), title, then witness or reason."""
    lines = [f"  {v.label:<9} {v.rule_id:<{width}} {title}"]
    for fact in v.assumes:  # never silent: a verdict resting on a declaration says so under its status
        lines.append(f"            assuming: {printable(fact)}")
    # every field may hold names from the model: one line each, controls escaped (sonnx.base.text)
    if v.witness is not None:
        lines.append(f"            witness: {printable(v.witness.summary)}")
        for key, value in v.witness.data.items():
            lines.append(f"              {key}: {printable(format_item(value))}")
    if v.reason is not None:
        lines.append(f"            reason: {printable(v.reason)}")
    for key, value in v.details.items():
        if v.status is Status.WAIVED and key == "waivers":
            lines.extend(waiver_lines(value))
            continue
        lines.append(f"            {key}: {printable(format_item(value))}")
    if v.original is not None:
        lines.extend("  " + line for line in verdict_lines(v.original, "(the finding waived)", width)[1:])
    return lines


def waiver_lines(entries: Any) -> list[str]:
    """The lines that say who waived a finding, when and why (one entry each)."""
    out = []
    for e in entries:
        until = f", expires {e['expires']}" if e.get("expires") else ""
        out.append(
            f"            waived by {printable(e['id'])} ({printable(e['covers'])}): {printable(e['author'])}, "
            f"{e['date']}{until}: {printable(e['justification'])}"
        )
    return out


def is_finding(v: Verdict) -> bool:
    """Whether a findings-only report shows ``v``: every verdict but a PROVED one that assumes nothing.

    VIOLATED (errors and warnings), UNKNOWN, TESTED, WAIVED and NOT CHECKED are all shown, with their witness
    or reason, and so is a PROVED verdict that rests on a declaration (spec/graph.rst, section 9.1): only an
    unconditional proof is left out.
    """
    return v.status is not Status.PROVED or bool(v.assumes)
