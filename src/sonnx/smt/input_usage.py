"""GRAPH-C2 as SMT: no graph input is left unread.

Obligation (violation search): one Boolean ``u`` per graph input of every
graph, with the fact the model gives (``u`` holds when some operation of that
graph requires the input, explicitly or through a nested graph's captures),
and the assertion that some non-exempt input has ``u`` false. Unsatisfiable
means every input is read (PROVED); a model lists every unread input. The
first two inputs of a ``Loop`` body are exempt (imposed by the operator).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ..witness import brief, first
from .common import RuleResult, or_all, settle, unknown, violated
from .facts import ScopeFacts
from .smtlib import Obligation
from .solver import SolverSettings, model_values

ID = "GRAPH-C2"
LOGIC = "QF_UF"


def _loop_bodies(facts: Sequence[ScopeFacts]) -> set[int]:
    bodies: set[int] = set()
    for f in facts:
        for op in f.graph.operations:
            if op.attributes and op.operator == "Loop" and op.domain in ("", "ai.onnx"):
                a = op.attribute("body")
                if a is not None and a.type == "GRAPH":
                    bodies.add(id(a.value))
    return bodies


def prove(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    loops = _loop_bodies(facts)
    body: List[str] = []
    targets: List[str] = []
    where: Dict[str, Tuple[ScopeFacts, str, int]] = {}
    for f in facts:
        if not f.inputs:
            continue
        read: set[str] = set()
        for names in f.req:
            read.update(names)
        exempt = set(f.inputs[:2]) if id(f.graph) in loops else set()
        first_pos: Dict[str, int] = {}
        for k, nm in enumerate(f.inputs):
            first_pos.setdefault(nm, k)
        for nm, k in first_pos.items():
            v = f"u{f.index}_{k}"
            body.append(f"(declare-fun {v} () Bool)")
            body.append(f"(assert {v})" if nm in read else f"(assert (not {v}))")
            if nm not in exempt:
                targets.append(f"(not {v})")
                where[v] = (f, nm, k)
    body.append(f"(assert {or_all(targets)})")
    ob = Obligation(
        ID,
        "c2.unread_input",
        LOGIC,
        body,
        "unsat",
        mode,
        "some graph input (Loop-imposed ones excepted) is required by no operation of its graph",
    )
    ans, settled = settle(ID, ob, settings, mode)
    if settled is not None:
        return settled
    vals = model_values(ans, list(where), "Bool")
    found: List[Dict[str, Any]] = [
        {"scope": f.path, "input": nm, "position": k} for v, (f, nm, k) in where.items() if vals.get(v) is False
    ]
    if not found:
        return RuleResult(unknown(ID, "the model of the violation names no unread input (a tool defect)", mode), [ob])
    shown = [f"{x['input']!r} (in {x['scope']})" for x in found]
    return RuleResult(
        violated(
            ID,
            f"{len(found)} graph input(s) read by no operation: {brief(shown)}",
            {"count": len(found), "unused": first(found)},
            mode,
        ),
        [ob],
    )
