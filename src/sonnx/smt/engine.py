"""Run every SMT encoding on a model: one verdict per rule, engine ``smt``.

The rule IDs are those of the direct engine (GRAPH-ACYCLIC, GRAPH-C1,
GRAPH-C2, GRAPH-C3, GRAPH-R1, GRAPH-R1-TRANSITIVE, GRAPH-R2,
GRAPH-DETERMINISM, GRAPH-FUNCTION-SHADOWING and GRAPH-ARITY; the direct
engine decides GRAPH-DETERMINISM by reachability, this one by two-run
congruence). The rules about shapes (STRICT-BROADCAST, the shape part of
GRAPH-IF-BRANCHES) are not structural and have no encoding.

Mode: ``search`` (the solver finds the proof) for models of at most
``settings.search_limit`` operations (all graphs together; 1,000 by
default: measured on random DAGs, the search for GRAPH-R1-TRANSITIVE takes
3.5 s at 1,000 operations and 126 s at 3,000; GRAPH-C3 2 s at 3,000),
``certificate`` above it (an untrusted algorithm proposes ranks,
firing times, distances...; Python writes each raw fact's instance of the
rule with those numbers in place and z3 evaluates the instances; a rejected
certificate is UNKNOWN, a tool defect, and nothing falls back to search).
Violations in either mode are confirmed by a counter-certificate that z3
checks against the raw facts. The mode that produced each verdict is in its
``engine`` string (``smt/search``, ``smt/certificate``) for PROVED verdicts,
in the witness data (``mode``) for VIOLATED ones and in the reason for
UNKNOWN ones.

An exception inside an encoding becomes UNKNOWN for that rule, never a pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..caching import gc_paused
from ..model.graph import Model
from ..verdict import Severity, Verdict
from . import (
    graph_acyclic,
    graph_arity,
    graph_c1,
    graph_c2,
    graph_c3,
    graph_determinism,
    graph_function_shadowing,
    graph_r1,
    graph_r1_transitive,
    graph_r2,
)
from .common import RuleResult, unknown
from .facts import ScopeFacts, model_facts, total_operations
from .smtlib import Obligation
from .solver import SolverSettings, settings_report

RULE_IDS = (
    graph_acyclic.ID,
    graph_c1.ID,
    graph_c2.ID,
    graph_c3.ID,
    graph_r1.ID,
    graph_r1_transitive.ID,
    graph_r2.ID_R2,
    graph_determinism.ID_SEM,
    graph_function_shadowing.ID,
    graph_arity.ID,
)
"""Rules the SMT engine decides, in report order."""


@dataclass
class SmtRun:
    verdicts: list[Verdict]
    obligations: list[Obligation] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    mode: str = "search"


def choose_mode(facts: list[ScopeFacts], settings: SolverSettings) -> str:
    return "search" if total_operations(facts) <= settings.search_limit else "certificate"


def run_smt(
    model: Model,
    settings: SolverSettings | None = None,
    mode: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> SmtRun:
    """Prove every rule of :data:`RULE_IDS` on ``model`` with z3.

    The cyclic garbage collector is paused meanwhile: the encodings build
    millions of tuples and strings, none in a reference cycle, and each
    collection would rescan the whole model (measured at a million
    operations: all proofs 60.8 s with the collector, 54.9 s without).
    """
    with gc_paused():
        return _run_smt(model, settings, mode, progress)


def _run_smt(
    model: Model,
    settings: SolverSettings | None,
    mode: str | None,
    progress: Callable[[str], None] | None,
) -> SmtRun:
    st = settings or SolverSettings()
    say = progress or (lambda _m: None)
    facts = model_facts(model)
    chosen = mode or choose_mode(facts, st)
    verdicts: list[Verdict] = []
    obligations: list[Obligation] = []
    by_id: dict[str, Verdict] = {}
    classes: list[Any] = [None]

    def run(rule_id: str, fn: Callable[[], RuleResult]) -> None:
        say(f"smt: proving {rule_id} ({chosen})")
        try:
            res = fn()
            v = res.verdict
            obligations.extend(res.obligations)
        except RecursionError:
            v = unknown(rule_id, "the encoding exceeded Python's recursion limit (a tool defect)", chosen)
        except Exception as exc:
            v = unknown(rule_id, f"internal error in the SMT encoding: {type(exc).__name__}: {exc}", chosen)
        if v.rule_id != rule_id:
            v = unknown(rule_id, f"the encoding answered for {v.rule_id!r} (a tool defect)", chosen)
        verdicts.append(v)
        by_id[rule_id] = v

    def r2() -> RuleResult:
        res, classes[0] = graph_r2.prove_r2(model, facts, st, chosen)
        return res

    run(graph_acyclic.ID, lambda: graph_acyclic.prove(facts, st, chosen))
    run(graph_c1.ID, lambda: graph_c1.prove(facts, st, chosen))
    run(graph_c2.ID, lambda: graph_c2.prove(facts, st, chosen))
    run(graph_c3.ID, lambda: graph_c3.prove(facts, st, chosen))
    run(graph_r1.ID, lambda: graph_r1.prove_r1(facts, st, chosen))
    run(graph_r1_transitive.ID, lambda: graph_r1_transitive.prove_transitive(facts, st, chosen))
    run(graph_r2.ID_R2, r2)
    run(graph_determinism.ID_SEM, lambda: graph_determinism.prove_semantic(facts, classes[0], by_id, st))
    run(graph_function_shadowing.ID, lambda: graph_function_shadowing.prove_shadowing(model, st, chosen))
    run(graph_arity.ID, lambda: graph_arity.prove_arity(model, st, chosen))
    params = settings_report(st)
    params["mode"] = chosen
    return SmtRun(verdicts, obligations, params, chosen)


SEVERITY = Severity.ERROR
