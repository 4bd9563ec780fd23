"""GRAPH-C1 as SMT: a producer map exists (each name has exactly one definition, across scopes).

Obligation: for every name a graph defines, an integer constant ``p`` (the
name's producer), and one equation ``p = id`` for each place that defines the
name: each output-mapping entry has its own id, the graph input and the
initializer of a name share one id (an input with a default value is allowed).
In a nested graph, a name that an enclosing graph also defines is tied to the
outer constant (``p_inner = p_outer``): one name, one assignment, across
scopes. The script is satisfiable exactly when single assignment holds; its
model is the producer map.

Certificate mode: the untrusted producer map (each name's first definition)
is written in place of the unknowns, one ground conjunction per name; z3
evaluates them (satisfiable = the map is a solution = PROVED), else the rule
is decided by the search obligation. An equation that the substitution turns
into ``(= c c)`` (each name's first definition) is true and is not written,
so for a graph where every name has one definition and no outer twin the
certificate obligation is empty: the map satisfies every equation by
construction.

Witness: each name's equations are guarded by an assumption literal; unsat
cores name the conflicting names one after the other (each found name is
dropped and the check repeated), up to a bound.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ..witness import LIMIT, brief, first
from .common import RuleResult, and_all, op_ref, proved, record, settle, unknown, violated
from .facts import ScopeFacts
from .smtlib import Obligation
from .solver import Session, SolverSettings, solve

ID = "GRAPH-C1"
LOGIC = "QF_LIA"
MAX_ROUNDS = 10 * LIMIT


def _encode(
    facts: Sequence[ScopeFacts], guarded: bool, cert: bool = False
) -> Tuple[List[str], Dict[str, Tuple[int, str]]]:
    """The producer-map constraints; with ``cert`` the map is given (each name's first definition)."""
    body: List[str] = []
    guards: Dict[str, Tuple[int, str]] = {}
    var: Dict[Tuple[int, str], str] = {}
    next_id = 0
    for f in facts:
        names = sorted(set(f.entries) | f.inputs_set | f.initialized)
        for k, nm in enumerate(names):
            # certificate: the given producer (the first definition's id) is written in place of the unknown
            v = str(next_id) if cert else f"p{f.index}_{k}"
            var[(f.index, nm)] = v
            if not cert:
                body.append(f"(declare-fun {v} () Int)")
            eqs: List[str] = []
            if nm in f.inputs_set or nm in f.initialized:
                eqs.append(f"(= {v} {next_id})")
                next_id += 1
            for _ in f.entries.get(nm, ()):
                eqs.append(f"(= {v} {next_id})")
                next_id += 1
            outer = f.outer.get(nm) if f.parent >= 0 else None
            if outer is not None:
                eqs.append(f"(= {v} {var[(outer, nm)]})")
            if guarded:
                g = f"a{f.index}_{k}"
                guards[g] = (f.index, nm)
                body.append(f"(declare-fun {g} () Bool)")
                body.append(f"(assert (=> {g} (and {' '.join(eqs)} true)))")
            elif cert:
                # with the map written in place, the name's first equation reads (= c c): true, so omitted
                rest = [e for e in eqs if e != f"(= {v} {v})"]
                if rest:
                    body.append(f"(assert {and_all(rest)})")
            else:
                body.extend(f"(assert {e})" for e in eqs)
    return body, guards


def _describe(facts: Sequence[ScopeFacts], s: int, nm: str) -> Dict[str, Any]:
    f = facts[s]
    ops = f.graph.operations
    entries = f.entries.get(nm, [])
    producers = [{**op_ref(f.path, j, ops[j]), "output": k} for j, k in entries]
    if len(entries) > 1:
        kind = "assigned more than once"
    elif entries and nm in f.inputs_set:
        kind = "assigns a graph input"
    elif entries and nm in f.initialized:
        kind = "assigns an initialized tensor"
    else:
        kind = "shadows an outer name"
    out: Dict[str, Any] = {"kind": kind, "scope": f.path, "tensor": nm, "producers": producers}
    if f.parent >= 0 and nm in f.outer:
        out["outer_scope"] = facts[f.outer[nm]].path
    return out


def prove(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    if mode == "certificate":
        cbody, _ = _encode(facts, guarded=False, cert=True)
        cob = Obligation(
            ID,
            "c1.certificate",
            LOGIC,
            cbody,
            "sat",
            mode,
            "the given producer map (first definition of each name) satisfies every definition equation",
        )
        cans = solve(cob.script(), settings)
        record(cob, cans)
        if cans.result == "sat":
            return RuleResult(proved(ID, mode), [cob])
        if cans.result == "unknown":
            return RuleResult(unknown(ID, cans.reason, mode), [cob])
    body, _ = _encode(facts, guarded=False)
    ob = Obligation(
        ID,
        "c1.producer_map",
        LOGIC,
        body,
        "sat",
        mode,
        "every name defined in a graph (or visible from an enclosing graph) has exactly one producer",
    )
    _, settled = settle(ID, ob, settings, mode, proof="sat")
    if settled is not None:
        return settled
    gbody, guards = _encode(facts, guarded=True)
    session = Session("\n".join(gbody), settings)
    live = list(guards)
    found: List[Dict[str, Any]] = []
    complete = False
    for _ in range(MAX_ROUNDS):
        a = session.check(live)
        if a.result == "sat":
            complete = True
            break
        if a.result == "unknown" or not a.core:
            return RuleResult(unknown(ID, a.reason or "empty unsat core (a tool defect)", mode), [ob])
        core = [guards[c] for c in a.core]
        inner = [
            c for c, sn in zip(a.core, core, strict=True) if facts[sn[0]].parent >= 0 and sn[1] in facts[sn[0]].outer
        ]
        blamed = inner[0] if inner else a.core[0]
        found.append(_describe(facts, *guards[blamed]))
        live.remove(blamed)
    if not found:
        return RuleResult(unknown(ID, "unsat, but no conflicting name was isolated (a tool defect)", mode), [ob])
    shown = [f"{x['tensor']!r} ({x['kind']}, in {x['scope']})" for x in found]
    data: Dict[str, Any] = {"count": len(found), "violations": first(found)}
    if not complete:
        data["count_is_lower_bound"] = True
    return RuleResult(violated(ID, f"{len(found)} single-assignment violation(s): {brief(shown, 3)}", data, mode), [ob])
