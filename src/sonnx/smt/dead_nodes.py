"""GRAPH-R1 and GRAPH-R1-TRANSITIVE as SMT.

GRAPH-R1 (violation search): one Boolean ``u`` per tensor an operation
assigns, with the fact the model gives (the tensor is a required input of an
operation of the same graph, or a graph output), and the assertion that some
operation has every output unused (an operation without outputs is dead).
Unsatisfiable means no dead operation; a model lists all of them.
Certificate mode writes the usage facts in place (``true``/``false``) in the
assertion that no operation is dead: satisfiable = PROVED; otherwise the
search obligation gives the witness.

GRAPH-R1-TRANSITIVE (violation search): the distance-to-output equations of
:mod:`.fixpoint` (unique solution: the least fixpoint of "contributes") and
the assertion that some operation has distance ``INF``. Certificate mode
asserts the distances of an untrusted backward breadth-first search with
"no INF" (satisfiable = proved; repeated ground assertions written once, see
:func:`.common.distinct`), else falls back to search.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ..witness import brief, first
from .common import RuleResult, and_all, certificate_or_search, distinct, op_ref, or_all, settle, unknown, violated
from .facts import ScopeFacts, total_operations
from .fixpoint import capped_step, distances, nested
from .smtlib import Obligation
from .solver import SolverSettings, model_values

ID = "GRAPH-R1"
ID_T = "GRAPH-R1-TRANSITIVE"


def _used_names(f: ScopeFacts) -> set[str]:
    used: set[str] = set(f.graph.outputs)
    for names in f.req:
        used.update(names)
    return used


def _certificate_r1(facts: Sequence[ScopeFacts]) -> Obligation:
    """Certificate mode: the usage facts written in place; satisfiable = no operation is dead = PROVED.

    When it is not satisfiable (some operation is dead), the search
    obligation finds the witness.
    """
    terms: List[str] = []
    for f in facts:
        used = _used_names(f)
        for outs in f.outs:
            facts_of = list(dict.fromkeys("true" if o in used else "false" for o in outs if o))
            terms.append(f"(not {or_all(facts_of)})")
    return Obligation(
        ID,
        "r1.certificate",
        "QF_UF",
        [f"(assert (not {or_all(terms)}))"],
        "sat",
        "certificate",
        "with each output's usage written in place, no operation has every output unused",
    )


def prove_r1(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    if mode == "certificate":
        return certificate_or_search(ID, _certificate_r1(facts), settings, lambda: _search_r1(facts, settings, mode))
    return _search_r1(facts, settings, mode)


def _search_r1(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    body: List[str] = []
    dead_terms: List[str] = []
    uvars: List[Tuple[ScopeFacts, int, List[str]]] = []
    for f in facts:
        used = _used_names(f)
        tid: Dict[str, str] = {}
        for t in f.entries:
            v = tid[t] = f"u{f.index}_{len(tid)}"
            body.append(f"(declare-fun {v} () Bool)")
            body.append(f"(assert {v})" if t in used else f"(assert (not {v}))")
        for j, outs in enumerate(f.outs):
            vs = list(dict.fromkeys(tid[o] for o in outs if o))
            dead_terms.append(and_all([f"(not {v})" for v in vs]))
            uvars.append((f, j, vs))
    body.append(f"(assert {or_all(dead_terms)})")
    ob = Obligation(
        ID,
        "r1.dead_operation",
        "QF_UF",
        body,
        "unsat",
        mode,
        "some operation has no output that is a required input of its graph or a graph output",
    )
    ans, settled = settle(ID, ob, settings, mode)
    if settled is not None:
        return settled
    vals = model_values(ans, [v for _, _, vs in uvars for v in vs], "Bool")
    found: List[Dict[str, Any]] = []
    for f, j, vs in uvars:
        if all(vals.get(v) is False for v in vs):
            op = f.graph.operations[j]
            found.append({**op_ref(f.path, j, op), "outputs": [o for o in op.output_mapping if o]})
    if not found:
        return RuleResult(unknown(ID, "the model of the violation names no dead operation (a tool defect)", mode), [ob])
    shown = [f"{x['operation']} (#{x['index']} in {x['scope']})" for x in found]
    return RuleResult(
        violated(
            ID,
            f"{len(found)} dead operation(s), none of whose outputs is used: {brief(shown)}",
            {"count": len(found), "dead": first(found)},
            mode,
        ),
        [ob],
    )


def _transitive_body(
    facts: Sequence[ScopeFacts], inf: int, cert: bool
) -> Tuple[List[str], List[Tuple[ScopeFacts, int, str]]]:
    body: List[str] = []
    dvars: List[Tuple[ScopeFacts, int, str]] = []
    for f in facts:
        s = f.index
        outs = set(f.graph.outputs)
        succ = f.successors()
        sources = [j for j, os_ in enumerate(f.outs) if any(o in outs for o in os_ if o)]
        src = set(sources)
        dist = distances(f.n, succ, sources, inf) if cert else None
        if dist is None:
            body.extend(f"(declare-fun d{s}_{j} () Int)" for j in range(f.n))
            name = [f"d{s}_{j}" for j in range(f.n)]
        else:  # certificate: the given distances are written in place of the unknowns
            name = [str(x) for x in dist]
        seen: set[Tuple[str, Tuple[str, ...]]] = set()
        for j in range(f.n):
            v = name[j]
            if j in src:
                body.append(f"(assert (= {v} 0))")
            else:
                nxt = list(dict.fromkeys(name[k] for k, _ in succ[j]))
                if cert:  # ground: an equation already written for the same numbers would repeat it
                    key = (v, tuple(nxt))
                    if key in seen:
                        dvars.append((f, j, v))
                        continue
                    seen.add(key)
                if not nxt:
                    body.append(f"(assert (= {v} {inf}))")
                else:
                    m = nested("<=", nxt)
                    body.append(f"(assert {capped_step(v, m, inf)})")
            dvars.append((f, j, v))
    return body, dvars


def _search_t(facts: Sequence[ScopeFacts], settings: SolverSettings) -> RuleResult:
    inf = total_operations(facts) + 1
    body, dvars = _transitive_body(facts, inf, cert=False)
    body.append(f"(assert {or_all([f'(= {v} {inf})' for _, _, v in dvars])})")
    ob = Obligation(
        ID_T,
        "r1t.non_contributing",
        "QF_LIA",
        body,
        "unsat",
        "search",
        "with the distances to a graph output (unique solution of the equations), some operation reaches no output",
    )
    ans, settled = settle(ID_T, ob, settings, "search")
    if settled is not None:
        return settled
    vals = model_values(ans, [v for _, _, v in dvars])
    found = [op_ref(f.path, j, f.graph.operations[j]) for f, j, v in dvars if vals.get(v) == inf]
    if not found:
        return RuleResult(
            unknown(ID_T, "the model names no non-contributing operation (a tool defect)", "search"), [ob]
        )
    shown = [f"{x['operation']} (#{x['index']} in {x['scope']})" for x in found]
    return RuleResult(
        violated(
            ID_T,
            f"{len(found)} operation(s) contribute to no graph output: {brief(shown)}",
            {"count": len(found), "non_contributing": first(found)},
            "search",
        ),
        [ob],
    )


def prove_transitive(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    if mode != "certificate":
        return _search_t(facts, settings)
    inf = total_operations(facts) + 1
    body, dvars = _transitive_body(facts, inf, cert=True)
    body.append(f"(assert (not {or_all(distinct([f'(= {v} {inf})' for _, _, v in dvars]))}))")
    ob = Obligation(
        ID_T,
        "r1t.certificate",
        "QF_LIA",
        distinct(body),
        "sat",
        "certificate",
        "the given distances solve the contribution equations and every operation reaches a graph output",
    )
    return certificate_or_search(ID_T, ob, settings, lambda: _search_t(facts, settings))
