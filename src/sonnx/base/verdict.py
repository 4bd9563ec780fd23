"""Verdicts: the one result type of every check.

A verdict is PROVED, VIOLATED with a witness, UNKNOWN with a reason, or
TESTED with how much was tried. PROVED means a proof covers every case.
TESTED is what a sampled check (some schedules, some input sets) gives when
nothing it tried failed: its ``details["tested"]`` says what was tried, and it
is never reported as PROVED. A check that could not establish its property
returns UNKNOWN; it never returns PROVED by default. Severity says what a violation means for the exit code:
an ``error`` violation fails the check, a ``warning`` is reported only.

Two statuses are given by the check after the rules have run, never by a rule
(spec/graph.rst, section 9.1): WAIVED, a VIOLATED or UNKNOWN verdict that
entries of a waivers file cover (it keeps that verdict, ``original``, and the
entries, ``details["waivers"]``; it is never PROVED), and NOT CHECKED, a rule
the user's selection left out (``details["selection"]`` says which selection).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .text import printable

JSONValue = Any


class Status(enum.Enum):
    """The values a verdict can take."""

    PROVED = "PROVED"
    VIOLATED = "VIOLATED"
    UNKNOWN = "UNKNOWN"
    TESTED = "TESTED"
    WAIVED = "WAIVED"
    NOT_CHECKED = "NOT CHECKED"


class Severity(enum.Enum):
    """How a violation of a rule counts toward the exit code."""

    ERROR = "error"
    WARNING = "warning"


WARNING = "WARNING"
"""The word every output shows for a VIOLATED verdict of severity ``warning`` (see :func:`label`)."""


def label(status: str, severity: str) -> str:
    """The word a report shows for a verdict: its status, except WARNING for a violated warning-severity rule.

    The status stays VIOLATED (the rule does not hold; the witness says where) and the severity says that it does
    not fail the check; the label is the one word the text report, the JSON report (``label``), the evidence
    bundle's page, JUnit and ``evidence verify`` all print for that pair, computed here from the two values so
    that no output words a warning its own way.
    """
    return WARNING if status == Status.VIOLATED.value and severity == Severity.WARNING.value else status


@dataclass(frozen=True)
class Witness:
    """Evidence for a violation.

    ``summary`` is one human line; ``data`` is the same evidence as JSON-ready
    values (lists of operations, tensors, chains) in a stable order, so that a
    reviewer or another tool can re-check it against the model.
    """

    summary: str
    data: Mapping[str, JSONValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """The outcome of one rule on one model.

    Build it with :meth:`proved`, :meth:`violated` or :meth:`unknown`, which
    keep the invariant that only a VIOLATED verdict has a witness and only an
    UNKNOWN verdict has a reason.
    """

    rule_id: str
    status: Status
    severity: Severity = Severity.ERROR
    witness: Witness | None = None
    reason: str | None = None
    engine: str = "direct"
    details: Mapping[str, JSONValue] = field(default_factory=dict)
    """What the check did, for any status (schedules run, solver mode...): JSON-ready, stable order."""
    original: Verdict | None = None
    """The VIOLATED or UNKNOWN verdict a WAIVED verdict stands for (None for every other status)."""
    assumes: tuple[str, ...] = ()
    """Facts the verdict rests on that the check took as given, not established (a user's operator declarations):
    every output shows them beside the status (``PROVED, assuming ...``)."""

    def __post_init__(self) -> None:
        if (self.status is Status.VIOLATED) != (self.witness is not None):
            raise ValueError("a verdict has a witness exactly when it is VIOLATED")
        if (self.status is Status.UNKNOWN) != (self.reason is not None):
            raise ValueError("a verdict has a reason exactly when it is UNKNOWN")
        if self.status is Status.TESTED and not self.details.get("tested"):
            raise ValueError("a TESTED verdict says what was tried (details['tested'])")
        if (self.status is Status.WAIVED) != (self.original is not None):
            raise ValueError("a verdict keeps an original verdict exactly when it is WAIVED")
        if self.original is not None:
            if self.original.status not in (Status.VIOLATED, Status.UNKNOWN) or self.original.rule_id != self.rule_id:
                raise ValueError("only a VIOLATED or UNKNOWN verdict of the same rule can be waived")
            if not self.details.get("waivers"):
                raise ValueError("a WAIVED verdict names the waivers that cover it (details['waivers'])")
        if self.status is Status.NOT_CHECKED and not self.details.get("selection"):
            raise ValueError("a NOT CHECKED verdict says which selection left the rule out (details['selection'])")

    @classmethod
    def proved(cls, rule_id: str, severity: Severity = Severity.ERROR, engine: str = "direct") -> Verdict:
        """The rule holds for the model (established, never assumed)."""
        return cls(rule_id, Status.PROVED, severity, engine=engine)

    @classmethod
    def violated(
        cls, rule_id: str, witness: Witness, severity: Severity = Severity.ERROR, engine: str = "direct"
    ) -> Verdict:
        """The rule fails; ``witness`` says where, in terms a reviewer can check in the model by hand."""
        return cls(rule_id, Status.VIOLATED, severity, witness=witness, engine=engine)

    @classmethod
    def unknown(cls, rule_id: str, reason: str, severity: Severity = Severity.ERROR, engine: str = "direct") -> Verdict:
        """The rule could not be established; ``reason`` says why (never counted as a pass)."""
        return cls(rule_id, Status.UNKNOWN, severity, reason=reason, engine=engine)

    @classmethod
    def tested(
        cls,
        rule_id: str,
        tried: str,
        details: Mapping[str, JSONValue] | None = None,
        severity: Severity = Severity.ERROR,
        engine: str = "direct",
    ) -> Verdict:
        """A sampled check that found nothing wrong on what it ``tried`` (e.g. "3 of more than 1,000 orders")."""
        return cls(rule_id, Status.TESTED, severity, engine=engine, details={"tested": tried, **(details or {})})

    @classmethod
    def waived(cls, original: Verdict, waivers: list[JSONValue]) -> Verdict:
        """``original`` (VIOLATED or UNKNOWN) accepted by the waiver entries ``waivers`` (JSON records)."""
        return cls(
            original.rule_id, Status.WAIVED, original.severity, engine=original.engine,
            details={"waivers": list(waivers)}, original=original,
        )

    @classmethod
    def not_checked(
        cls, rule_id: str, selection: Mapping[str, JSONValue], severity: Severity = Severity.ERROR
    ) -> Verdict:
        """The rule is outside the user's ``selection`` (its ``select`` and ``ignore``): no claim is made on it."""
        return cls(rule_id, Status.NOT_CHECKED, severity, engine="none", details={"selection": dict(selection)})

    @property
    def fails(self) -> bool:
        """True when this verdict alone makes the check exit with 1."""
        return self.status is Status.VIOLATED and self.severity is Severity.ERROR

    def to_json(self) -> dict[str, JSONValue]:
        """A JSON-ready dict with a fixed key order."""
        out: dict[str, JSONValue] = {
            "rule": self.rule_id,
            "status": self.status.value,
            "severity": self.severity.value,
            "label": self.label,
            "engine": self.engine,
        }
        if self.witness is not None:
            out["witness"] = {"summary": self.witness.summary, **dict(self.witness.data)}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.details:
            out["details"] = dict(self.details)
        if self.original is not None:
            out["original"] = self.original.to_json()
        if self.assumes:
            out["assumes"] = list(self.assumes)
        return out

    @property
    def label(self) -> str:
        """The word the reports show for this verdict (:func:`label`): WARNING for a violated warning rule."""
        return label(self.status.value, self.severity.value)

    @property
    def shown_status(self) -> str:
        """The status with what it assumes: ``PROVED`` or ``PROVED, assuming <fact>; <fact>``."""
        return self.status.value + (f", assuming {'; '.join(self.assumes)}" if self.assumes else "")

    def __repr__(self) -> str:
        """One line: rule, status, severity, engine, then the witness's summary or the reason (not the data)."""
        why = self.witness.summary if self.witness is not None else self.reason
        tail = "" if why is None else f": {printable(why)}"
        return f"<Verdict {self.rule_id} {self.status.value} ({self.severity.value}, {self.engine}){tail}>"


class Outcome(enum.StrEnum):
    """One word for a whole model's check (:attr:`sonnx.checking.report.ModelReport.outcome`).

    A ``str`` enum: it compares equal to its word (``report.outcome == "PROVED"``) and is written as the word
    in text and JSON. Exit code 0: PROVED, TESTED, WAIVED; 1: VIOLATED; 2: UNKNOWN, PARTIAL, ERROR
    (spec/graph.rst, section 9.1).
    """

    PROVED = "PROVED"
    TESTED = "TESTED"
    WAIVED = "WAIVED"
    VIOLATED = "VIOLATED"
    UNKNOWN = "UNKNOWN"
    PARTIAL = "PARTIAL"
    ERROR = "ERROR"
