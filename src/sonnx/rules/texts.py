"""Each rule's title, statement and rationale, as the spec words them.

The words of a rule exist once, in its entry of ``spec/graph.rst`` section 4
or of the operator layer's page ``spec/operators.rst``
(the heading's title, the normative statement, the ``[*Rationale:* ...]``
paragraph). ``tools/rule_texts.py`` renders them as plain text into the package
data file ``sonnx/data/rule_texts.json``, which this module reads, so that an
installed sonnx shows the spec's own words without the source tree. No rule
module words its rule a second time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..base.errors import ToolError

DATA_FILE = "rule_texts.json"
SCHEMA = "sonnx-rule-texts/1"


@dataclass(frozen=True)
class RuleText:
    """One rule's words in the spec, in plain text."""

    number: str
    """The spec section of the rule (``4.0.4``)."""
    title: str
    """The heading's title, a short form for tables and one-line descriptions."""
    statement: str
    """The normative statement: paragraphs separated by a blank line, a list item on a line of its own."""
    rationale: str | None
    """The non-normative rationale, None while the spec gives none."""
    severity: str
    strict_severity: str | None
    page: str = "spec/graph.rst"
    """The spec page that states the rule: ``spec/graph.rst`` (graph layer) or ``spec/operators.rst``."""


@cache
def _document() -> dict[str, Any]:
    text = resources.files("sonnx.data").joinpath(DATA_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    if data.get("schema") != SCHEMA:
        raise ToolError(f"sonnx/data/{DATA_FILE}: schema {data.get('schema')!r}, expected {SCHEMA!r}")
    return data


def spec_version() -> str | None:
    """The version of the spec the texts were taken from."""
    value = _document().get("spec_version")
    return value if isinstance(value, str) else None


@cache
def rule_text(rule_id: str) -> RuleText:
    """The spec's words for ``rule_id``; a rule the packaged texts lack is a defect of the build (ToolError)."""
    entry = _document()["rules"].get(rule_id)
    if entry is None:
        raise ToolError(f"sonnx/data/{DATA_FILE} has no text for rule {rule_id} (regenerate it: make rule-texts)")
    return RuleText(
        number=entry["number"],
        title=entry["title"],
        statement=entry["statement"],
        rationale=entry["rationale"],
        severity=entry["severity"],
        strict_severity=entry["strict_severity"],
        page=entry["page"],
    )
