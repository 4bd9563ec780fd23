"""Agreement between the direct engine and the SMT engine.

The two engines are separate implementations of the same rules: the direct
engine's graph algorithms, and the SMT engine's formulas over the model's raw
facts. They share the loaded model, the walk over nested graphs and, for
GRAPH-R2, the determinism table (a trusted base: a wrong entry is wrong in
both, and agreement cannot show it). For each rule both decide,
:func:`combine` gives one verdict:

* same status: the direct verdict (its witness), with engine ``direct+smt/...``;
* PROVED against VIOLATED, or PROVED against UNKNOWN: UNKNOWN with reason
  ``engines disagree: direct says X, smt says Y`` -- a tool error, never a
  pass; disagreements are also returned so that the check exits with 2;
* VIOLATED against UNKNOWN: the established violation is kept, with its
  witness (the model does not conform either way; the check exits with 1);
* both UNKNOWN: UNKNOWN with both reasons, or the one reason once
  (``direct and smt [smt/<mode>]: ...``) when both engines give the same
  words.

Rules only the direct engine decides keep its verdict. A verdict of the SMT
engine for a rule outside the selected rule table is returned apart, as an
extra finding, so that the verdict list stays aligned with the table. (Every
rule the SMT engine proves now has a direct check too, GRAPH-DETERMINISM
included; the mechanism remains for a future SMT-only property.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..base.verdict import Status, Verdict


def _disagree(d: Verdict, s: Verdict) -> Verdict:
    why = f"engines disagree: direct says {d.status.value}, smt says {s.status.value}"
    extra = [r for r in (d.reason and f"direct: {d.reason}", s.reason and f"smt: {s.reason}") if r]
    if extra:
        why += " (" + "; ".join(extra) + ")"
    return Verdict.unknown(d.rule_id, why, d.severity, engine="direct+smt")


_MODE_TAG = re.compile(r" \[smt/[a-z]+\]$")
"""The tag the SMT engine puts after an UNKNOWN reason, naming its mode (``[smt/search]``)."""


def _both_unknown(direct: str, smt: str) -> str:
    """Both engines' reasons; one reason once when they say the same (the SMT engine's mode tag aside)."""
    tag = _MODE_TAG.search(smt)
    if tag is not None and smt[: tag.start()] == direct:
        return f"direct and smt{tag.group(0)}: {direct}"
    return f"direct: {direct}; smt: {smt}"


def agree(d: Verdict, s: Verdict) -> tuple[Verdict, str | None]:
    """The combined verdict of one rule, and the disagreement (None when the engines agree)."""
    if d.status is s.status:
        if d.status is Status.UNKNOWN:
            why = _both_unknown(d.reason or "", s.reason or "")
            return Verdict.unknown(d.rule_id, why, d.severity, "direct+smt"), None
        return replace(d, engine=f"direct+{s.engine}"), None
    if Status.VIOLATED in (d.status, s.status) and Status.UNKNOWN in (d.status, s.status):
        return (d if d.status is Status.VIOLATED else replace(s, severity=d.severity)), None
    v = _disagree(d, s)
    return v, f"{d.rule_id}: {v.reason}"


def combine(direct: Sequence[Verdict], smt: Sequence[Verdict]) -> tuple[list[Verdict], list[Verdict], list[str]]:
    """``--engine both``: (verdicts aligned with ``direct``, SMT-only findings, disagreements)."""
    by_id: dict[str, Verdict] = {v.rule_id: v for v in smt}
    out: list[Verdict] = []
    disagreements: list[str] = []
    for d in direct:
        s = by_id.pop(d.rule_id, None)
        if s is None:
            out.append(d)
            continue
        v, why = agree(d, s)
        out.append(v)
        if why is not None:
            disagreements.append(why)
    return out, list(by_id.values()), disagreements


def smt_only(direct: Sequence[Verdict], smt: Sequence[Verdict]) -> tuple[list[Verdict], list[Verdict]]:
    """``--engine smt``: SMT verdicts, direct ones for rules without an encoding; and the SMT-only findings.

    A verdict keeps the severity of the rule under the checked profile, which the direct verdict carries (the
    encodings do not know the profile: GRAPH-ARITY is a warning in ``sonnx``, an error in ``sonnx-strict``).
    """
    by_id: dict[str, Verdict] = {v.rule_id: v for v in smt}
    out = [replace(by_id.pop(d.rule_id), severity=d.severity) if d.rule_id in by_id else d for d in direct]
    return out, list(by_id.values())
