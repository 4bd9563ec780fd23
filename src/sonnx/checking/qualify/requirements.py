"""The tool operational requirements (TORs) the qualification kit verifies.

One TOR per rule of :data:`sonnx.rules.registry.RULES`, worded from the rule's
own title and statement as the spec gives them (:attr:`Rule.title`,
:attr:`Rule.statement`), so that a rule added to the spec gains its TOR without
an edit here; then the TORs of the tool's own behaviour, which spec/graph.rst
section 9 (a conforming checker's verdicts) and the evidence and engine pages
state: UNKNOWN is never a pass, the exit codes, an unusable input, evidence
bundles that verify, the two engines agreeing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...rules.registry import RULES
from ..verdict_text import spec_sections


@dataclass(frozen=True)
class Requirement:
    """One TOR: a stable ID, what the tool must do, and where the requirement comes from."""

    id: str
    title: str
    text: str
    source: str
    """The spec section (``spec/graph.rst#graph-c2``) or document the TOR derives from."""
    rule: str | None = None
    """The rule of the registry this TOR derives from; None for a TOR of the tool's behaviour."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "text": self.text, "source": self.source, "rule": self.rule}


UNKNOWN_NEVER_PASSES = "TOR-UNKNOWN-NEVER-PASSES"
EXIT_CODES = "TOR-EXIT-CODES"
UNUSABLE_INPUT = "TOR-UNUSABLE-INPUT"
EVIDENCE_VERIFIES = "TOR-EVIDENCE-VERIFIES"
ENGINES_AGREE = "TOR-ENGINES-AGREE"
CROSSCHECK_TESTED = "TOR-CROSSCHECK-TESTED"

TOOL_REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        UNKNOWN_NEVER_PASSES,
        "UNKNOWN is never a pass",
        "When a rule's verdict cannot be established, sonnx-check reports it UNKNOWN with a reason, and a check "
        "whose verdicts are all PROVED or UNKNOWN never exits with 0.",
        "spec/graph.rst section 9.1 (a checker SHALL NOT treat an undecided rule as satisfied)",
    ),
    Requirement(
        EXIT_CODES,
        "Exit codes",
        "sonnx-check exits with 0 when every error-severity rule is PROVED (warnings do not fail), with 1 when an "
        "error-severity rule is VIOLATED, and with 2 when the input is unusable or some verdict is not established.",
        "spec/graph.rst section 9.1 (verdicts and exit codes)",
    ),
    Requirement(
        UNUSABLE_INPUT,
        "An unusable input is exit 2 with one line",
        "A file that is not a readable ONNX model gives no verdict: the check reports one line saying why and "
        "exits with 2.",
        "spec/graph.rst section 9.1; docs/threat_model.rst",
    ),
    Requirement(
        EVIDENCE_VERIFIES,
        "Evidence bundles verify",
        "An evidence bundle written by sonnx-check --evidence is re-verified by sonnx evidence verify in the same "
        "environment: the check is replayed and every file is rendered again, with no difference.",
        "docs/evidence.rst",
    ),
    Requirement(
        ENGINES_AGREE,
        "The SMT and direct engines agree",
        "With --engine both, the SMT engine runs beside the direct checks and every rule that both decide gets the "
        "same verdict from each; a disagreement is reported as a tool error (exit 2), never resolved silently.",
        "spec/graph.rst section 9.2 (engines); docs/smt.rst",
    ),
    Requirement(
        CROSSCHECK_TESTED,
        "Cross-checks against onnxruntime are TESTED, never PROVED",
        "With --cross-check onnxruntime, the executor's outputs are compared with onnxruntime's on one input set "
        "(drawn, or given in a file); agreement within tolerance is TESTED, saying what was tried, never PROVED.",
        "src/sonnx/base/verdict.py and src/sonnx/differential/verdicts.py (TESTED); docs/evidence.rst",
    ),
)
"""The TORs of the tool's own behaviour, in the order the kit lists them after the rules' TORs."""


def rule_tor_id(rule_id: str) -> str:
    """The TOR ID of a rule (``GRAPH-C2`` -> ``TOR-GRAPH-C2``)."""
    return f"TOR-{rule_id}"


def rule_requirements() -> tuple[Requirement, ...]:
    """One TOR per rule of the registry, in table order, worded from the spec's entry of the rule."""
    sections = spec_sections()
    out = []
    for rule in RULES:
        statement = " ".join(rule.statement.split())
        text = (
            f"For a model that violates {rule.id} ({rule.title}), sonnx-check reports {rule.id} VIOLATED with a "
            f"witness naming the offending operations, tensors or entries; for a model that satisfies it, PROVED. "
            f"The rule, as the spec states it: {statement}"
        )
        source = f"{rule.spec} ({sections.get(rule.id, rule.id)})"
        out.append(Requirement(rule_tor_id(rule.id), rule.title, text, source, rule.id))
    return tuple(out)


def requirements() -> tuple[Requirement, ...]:
    """Every TOR: the rules' in registry order, then the tool's own."""
    return (*rule_requirements(), *TOOL_REQUIREMENTS)
