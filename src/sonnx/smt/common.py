"""Shared pieces of the rule encodings: result type, verdict helpers, naming."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List

from ..model.graph import Operation
from ..verdict import Severity, Verdict, Witness
from .smtlib import Obligation
from .solver import Answer, SolverSettings, solve

ENGINE = "smt"


@dataclass
class RuleResult:
    verdict: Verdict
    obligations: List[Obligation] = field(default_factory=list)


def proved(rule_id: str, mode: str, severity: Severity = Severity.ERROR) -> Verdict:
    return Verdict.proved(rule_id, severity, engine=f"{ENGINE}/{mode}")


def violated(
    rule_id: str, summary: str, data: Dict[str, Any], mode: str, severity: Severity = Severity.ERROR
) -> Verdict:
    return Verdict.violated(rule_id, Witness(summary, {**data, "mode": mode}), severity, engine=ENGINE)


def unknown(rule_id: str, reason: str, mode: str, severity: Severity = Severity.ERROR) -> Verdict:
    return Verdict.unknown(rule_id, f"{reason} [smt/{mode}]", severity, engine=ENGINE)


def record(ob: Obligation, answer: Answer) -> None:
    """Keep z3's answer in the obligation (it becomes the expected answer of the exported file)."""
    ob.answer = answer.result


def settle(
    rule_id: str, ob: Obligation, settings: SolverSettings, mode: str, proof: str = "unsat"
) -> tuple[Answer, RuleResult | None]:
    """Solve ``ob`` and record the answer; the rule's result when that answer settles it alone.

    ``proof`` is the answer that proves the rule (``unsat`` for "no violation
    exists", ``sat`` for "this certificate is consistent"); ``unknown`` gives
    UNKNOWN. Any other answer returns None: the caller reads its witness from
    the answer.
    """
    ans = solve(ob.script(), settings)
    record(ob, ans)
    if ans.result == proof:
        return ans, RuleResult(proved(rule_id, mode), [ob])
    if ans.result == "unknown":
        return ans, RuleResult(unknown(rule_id, ans.reason, mode), [ob])
    return ans, None


def certificate_or_search(
    rule_id: str, ob: Obligation, settings: SolverSettings, search: Callable[[], RuleResult]
) -> RuleResult:
    """Settle a certificate obligation (``sat`` proves the rule, ``unknown`` is UNKNOWN); when z3 refutes the
    certificate, decide by ``search``, keeping the certificate's obligation first among the obligations."""
    _, settled = settle(rule_id, ob, settings, "certificate", proof="sat")
    if settled is not None:
        return settled
    res = search()
    res.obligations.insert(0, ob)
    return res


def distinct(items: Iterable[str]) -> List[str]:
    """``items`` without repetitions, first occurrences in order.

    Used on certificate obligations only: there every assertion is ground (the
    certificate's numbers are written in place), and asserting a formula twice
    says nothing more than asserting it once, so dropping repeats leaves the
    obligation equivalent. At a million operations most firing-time, distance
    and rank assertions repeat (measured: 979 distinct distance equations out
    of 100,000 on a random DAG), and z3's parser pays for every byte.
    """
    return list(dict.fromkeys(items))


def op_ref(path: str, j: int, op: Operation) -> Dict[str, Any]:
    return {"scope": path, "index": j, "operation": op.label}


def or_all(terms: List[str]) -> str:
    if not terms:
        return "false"
    if len(terms) == 1:
        return terms[0]
    return "(or " + " ".join(terms) + ")"


def and_all(terms: List[str]) -> str:
    if not terms:
        return "true"
    if len(terms) == 1:
        return terms[0]
    return "(and " + " ".join(terms) + ")"
