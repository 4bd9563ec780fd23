"""Rule selection (``--select`` / ``--ignore``): which rules of the profile a check reports on.

A selector is a rule ID or a prefix of whole hyphen-separated parts of one:
``GRAPH-C1`` selects GRAPH-C1, GRAPH-C1-SOURCES and GRAPH-C1-SHADOWING;
``GRAPH`` selects every GRAPH rule; ``GRAPH-C`` selects nothing, since ``C`` is
not a whole part (so ``GRAPH-R1`` can never reach a later ``GRAPH-R10``). A
selector that matches no rule of the profile is a usage error.

As in ruff, each rule is decided by the most specific selector that matches
it (the one with the most parts); ``--ignore`` wins a tie with ``--select``,
and without ``--select`` every rule of the profile is selected. So
``--select GRAPH --ignore GRAPH-C1 --select GRAPH-C1-SOURCES`` checks GRAPH-C1-SOURCES
but neither GRAPH-C1 nor GRAPH-C1-SHADOWING.

Selection changes what is *reported*, not what runs: the rules read each
other's results (GRAPH-C1's tensor table, the SMT encodings' ``needs``,
GRAPH-DETERMINISM's premises) and the two engines are compared on every rule,
so the pipeline still evaluates them all and then replaces the verdict of each
rule left out by NOT CHECKED (spec/graph.rst, section 9.1). A NOT CHECKED verdict
never counts as a pass: a check with one is not PROVED (its outcome is
PARTIAL, exit 2; see :mod:`sonnx.checking.report`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..base.errors import UsageError
from ..base.verdict import Verdict
from ..rules import rules_for


def parse_selectors(values: Iterable[str], flag: str) -> tuple[str, ...]:
    """Comma-separated selectors from one or more ``flag`` values, in order, each once; blanks refused."""
    out: list[str] = []
    for value in values:
        if not isinstance(value, str):
            raise UsageError(f"{flag}: expected rule IDs or prefixes, got {value!r}")
        for item in value.split(","):
            item = item.strip()
            if not item:
                raise UsageError(f"{flag}: an empty rule ID in {value!r}")
            if item not in out:
                out.append(item)
    return tuple(out)


def matches(selector: str, rule_id: str) -> bool:
    """True when ``selector`` is ``rule_id`` or a prefix of whole hyphen-separated parts of it."""
    return rule_id == selector or rule_id.startswith(selector + "-")


def _specificity(selector: str) -> int:
    return selector.count("-") + 1


def check_selectors(profile: str, select: Sequence[str] | None, ignore: Sequence[str]) -> None:
    """Refuse a selector that matches no rule of ``profile`` (one line naming it)."""
    ids = [r.id for r in rules_for(profile)]
    for flag, selectors in (("--select", select or ()), ("--ignore", ignore)):
        for s in selectors:
            if not any(matches(s, rid) for rid in ids):
                raise UsageError(
                    f"{flag} {s!r}: matches no rule of the profile {profile} (a rule ID, or a prefix of whole "
                    "parts of one such as GRAPH-C1 or GRAPH)"
                )


def left_out(profile: str, select: Sequence[str] | None, ignore: Sequence[str]) -> list[str]:
    """The rule IDs of ``profile`` that the selection leaves out, in rule-table order."""
    out = []
    for rule in rules_for(profile):
        best_select = max((_specificity(s) for s in select if matches(s, rule.id)), default=-1) if select else 0
        best_ignore = max((_specificity(s) for s in ignore if matches(s, rule.id)), default=-1)
        if best_ignore >= best_select:
            out.append(rule.id)
    return out


def selection_record(select: Sequence[str] | None, ignore: Sequence[str]) -> dict[str, Any]:
    """The selection as reports and bundles state it."""
    return {"select": None if select is None else list(select), "ignore": list(ignore)}


def apply_selection(
    verdicts: Sequence[Verdict], profile: str, select: Sequence[str] | None, ignore: Sequence[str]
) -> tuple[Verdict, ...]:
    """``verdicts`` with the verdict of every rule the selection leaves out replaced by NOT CHECKED.

    Verdicts that are no rule of the profile (EXEC-ORDERS, the cross-checks) are asked for by their own
    options and are kept as they are.
    """
    dropped = set(left_out(profile, select, ignore))
    record = selection_record(select, ignore)
    return tuple(
        Verdict.not_checked(v.rule_id, record, v.severity) if v.rule_id in dropped else v for v in verdicts
    )


__all__ = ["apply_selection", "check_selectors", "left_out", "matches", "parse_selectors", "selection_record"]
