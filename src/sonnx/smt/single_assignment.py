"""GRAPH-C1 as SMT: every tensor has one definition, across graphs.

The rule as a formula over the raw facts: a function ``P`` from tensor ids to
definitions exists such that every definition fact names ``P(t)``. A write
fact ``(o, k, t)`` is the definition ``S + K*o + k`` (``S`` the number of
graphs, ``K`` one more than the highest output position, so every write has
its own number); the graph inputs and initializers of graph ``s`` are the
definition ``s`` (an input with a default value is one definition); a
binding fact ``(t, u)`` (a nested graph's name bound to the nearest enclosing
definition: a capture or a shadow) says ``P(t) = P(u)``: one name, one
variable. Two writes of a tensor, a write of a graph input or initializer,
or a nested graph defining a name an enclosing graph defines make the
formula unsatisfiable; the solver finds the conflict by congruence on ``P``.
Python only lists the facts.

* search mode: sat = PROVED (the model is the producer map), unsat = VIOLATED.
* certificate mode: an untrusted producer map (each tensor's first
  definition) is written in place of ``P(t)`` in each fact's instance; z3
  evaluates them; sat = PROVED.
* violations, both modes: an untrusted grouping proposes the conflicting facts
  per tensor (as the direct rule lists them); the solver refutes each group
  on its own (checked under an assumption literal per group), and the
  exported obligation is all groups together (unsat).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ..model.structure import brief, first
from .common import RuleResult, conj, facts_lines, op_ref, proved, record, rejected, unknown, violated
from .facts import ScopeFacts, scope_of_tensor
from .smtlib import Obligation
from .solver import Session, SolverSettings, solve

ID = "GRAPH-C1"
LOGIC = "QF_UFLIA"


def _consts(facts: Sequence[ScopeFacts]) -> Tuple[int, int]:
    k = 1 + max((max(f.wr_k) for f in facts if len(f.wr_k)), default=0)
    return len(facts), k


def _rule(s: int, k: int) -> List[str]:
    return [
        "; raw facts: (wr o k t) operation o writes tensor t at output k; (gi s k t) t is input k of graph s;",
        ";   (iv s t) t has an initial value in graph s; (bd t u) name t of a nested graph is bound to u,",
        ";   the nearest enclosing graph's definition of that name (a capture or a shadow)",
        "; rule: P(t) is t's one definition: graph s's inputs and initializers define s,",
        f";   write (o k t) defines {s} + {k}*o + k",
        "(declare-fun P (Int) Int)",
        f"(define-fun wr ((o Int) (k Int) (t Int)) Bool (= (P t) (+ {s} (* {k} o) k)))",
        "(define-fun gi ((s Int) (k Int) (t Int)) Bool (= (P t) s))",
        "(define-fun iv ((s Int) (t Int)) Bool (= (P t) s))",
        "(define-fun bd ((t Int) (u Int)) Bool (= (P t) (P u)))",
    ]


def _facts(facts: Sequence[ScopeFacts]) -> List[str]:
    out: List[str] = []
    for f in facts:
        s = f.index
        out.extend(f"(gi {s} {k} {t})" for k, t in f.inputs)
        out.extend(f"(iv {s} {t})" for t in f.initialized)
        out.extend(f"(wr {o} {k} {t})" for o, k, t in f.writes())
        out.extend(f"(bd {t} {u})" for t, u in f.captures + f.shadows)
    return out


def certificate_map(facts: Sequence[ScopeFacts]) -> Dict[int, int]:
    """Untrusted producer map: each tensor's first definition (a bound name without one: the outer one's)."""
    s_count, k_count = _consts(facts)
    p: Dict[int, int] = {}
    for f in facts:
        for _, t in f.inputs:
            p.setdefault(t, f.index)
        for t in f.initialized:
            p.setdefault(t, f.index)
        for o, k, t in f.writes():
            p.setdefault(t, s_count + k_count * o + k)
        for t, u in f.captures + f.shadows:
            if u in p:
                p.setdefault(t, p[u])
    return p


def certificate_body(facts: Sequence[ScopeFacts], p: Dict[int, int]) -> List[str]:
    s_count, k_count = _consts(facts)
    items: Dict[str, None] = {}
    for f in facts:
        s = f.index
        for _, t in f.inputs:
            items[f"(= {p[t]} {s})"] = None
        for t in f.initialized:
            items[f"(= {p[t]} {s})"] = None
        for o, k, t in f.writes():
            items[f"(= {p[t]} {s_count + k_count * o + k})"] = None
        for t, u in f.captures + f.shadows:
            items[f"(= {p[t]} {p[u]})"] = None
    return [
        "; certificate: an untrusted producer map P written in place in each raw fact's instance",
        f"; (gi s k t), (iv s t): P(t) = s; (wr o k t): P(t) = {s_count} + {k_count}*o + k; (bd t u): P(t) = P(u)",
        *conj(items),
    ]


Group = Tuple[str, ScopeFacts, int, List[str]]
"""(kind, scope, tensor id, the raw facts that conflict)."""


def conflicts(facts: Sequence[ScopeFacts]) -> List[Group]:
    """Untrusted: per tensor, the definition facts that cannot share one P (in the direct rule's order)."""
    out: List[Group] = []
    for f in facts:
        s = f.index
        writes: Dict[int, List[str]] = {}
        for o, k, t in f.writes():
            writes.setdefault(t, []).append(f"(wr {o} {k} {t})")
        inputs = {t: f"(gi {s} {k} {t})" for k, t in reversed(f.inputs)}
        inits = {t: f"(iv {s} {t})" for t in f.initialized}
        for t in sorted((t for t, w in writes.items() if len(w) > 1), key=f.name):
            out.append(("assigned more than once", f, t, writes[t]))
        for kind, seeds in (("assigns a graph input", inputs), ("assigns an initialized tensor", inits)):
            for t in sorted((t for t in seeds if t in writes), key=f.name):
                if kind == "assigns an initialized tensor" and t in inputs:
                    continue
                out.append((kind, f, t, [seeds[t], writes[t][0]]))
        for t, u in sorted(f.shadows, key=lambda p: f.name(p[0])):
            own = inputs.get(t) or inits.get(t) or writes[t][0]
            g = scope_of_tensor(facts, u)
            outer = _first_definition(g, u)
            out.append(("shadows an outer name", f, t, [own, f"(bd {t} {u})", outer]))
    return out


def _first_definition(g: ScopeFacts, u: int) -> str:
    for k, t in g.inputs:
        if t == u:
            return f"(gi {g.index} {k} {t})"
    if u in g.initialized:
        return f"(iv {g.index} {u})"
    for o, k, t in g.writes():
        if t == u:
            return f"(wr {o} {k} {t})"
    raise AssertionError(f"tensor {u} has no definition in graph {g.path}")


def _describe(facts: Sequence[ScopeFacts], grp: Group) -> Dict[str, Any]:
    kind, f, t, _ = grp
    nm = f.name(t)
    ops = f.graph.operations
    producers = [{**op_ref(f.path, o - f.op_base, ops[o - f.op_base]), "output": k} for o, k, x in f.writes() if x == t]
    out: Dict[str, Any] = {"kind": kind, "scope": f.path, "tensor": nm, "producers": producers}
    for t2, u in f.shadows:
        if t2 == t:
            out["outer_scope"] = scope_of_tensor(facts, u).path
    return out


def _violation(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str, obs: List[Obligation]) -> RuleResult:
    groups = conflicts(facts)
    s_count, k_count = _consts(facts)
    guarded = list(_rule(s_count, k_count))
    for g_i, (_, _, _, lines) in enumerate(groups):
        guarded.append(f"(declare-fun g{g_i} () Bool)")
        guarded.extend(f"(assert (=> g{g_i} {x}))" for x in lines)
    ob = Obligation(
        ID,
        "c1.conflicts",
        LOGIC,
        [
            "; counter-certificate: definition facts grouped per tensor by an untrusted search",
            *_rule(s_count, k_count),
            *facts_lines(x for grp in groups for x in grp[3]),
        ],
        "sat",
        "certificate",
        "the listed definition facts admit one definition per tensor (unsat: some tensor has two)",
    )
    ans = solve(ob.script(), settings)
    record(ob, ans)
    obs.append(ob)
    if ans.result == "unknown":
        return RuleResult(unknown(ID, ans.reason, mode), obs)
    if ans.result != "unsat":
        return RuleResult(rejected(ID, ob, "conflicting definitions", mode).verdict, obs)
    session = Session("\n".join(guarded), settings)
    found: List[Dict[str, Any]] = []
    for g_i, grp in enumerate(groups):
        a = session.check([f"g{g_i}"])
        if a.result == "unknown":
            return RuleResult(unknown(ID, a.reason, mode), obs)
        if a.result == "unsat":
            found.append(_describe(facts, grp))
    if not found:
        return RuleResult(unknown(ID, "no conflict group was refuted on its own (a tool defect)", mode), obs)
    shown = [f"{x['tensor']!r} ({x['kind']}, in {x['scope']})" for x in found]
    data: Dict[str, Any] = {"count": len(found), "violations": first(found)}
    return RuleResult(violated(ID, f"{len(found)} single-assignment violation(s): {brief(shown, 3)}", data, mode), obs)


def prove(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    if mode == "certificate":
        if conflicts(facts):
            return _violation(facts, settings, mode, [])
        return check_certificate(facts, certificate_map(facts), settings)
    s_count, k_count = _consts(facts)
    ob = Obligation(
        ID,
        "c1.producer_map",
        LOGIC,
        _rule(s_count, k_count) + facts_lines(_facts(facts)),
        "sat",
        "search",
        "every tensor has one definition: P exists with every definition fact naming P(t)",
    )
    ans = solve(ob.script(), settings)
    record(ob, ans)
    if ans.result == "sat":
        return RuleResult(proved(ID, mode), [ob])
    if ans.result == "unknown":
        return RuleResult(unknown(ID, ans.reason, mode), [ob])
    return _violation(facts, settings, mode, [ob])


def check_certificate(facts: Sequence[ScopeFacts], p: Dict[int, int], settings: SolverSettings) -> RuleResult:
    ob = Obligation(
        ID,
        "c1.certificate",
        "QF_LIA",
        certificate_body(facts, p),
        "sat",
        "certificate",
        "the given producer map names the definition of every definition fact",
    )
    ans = solve(ob.script(), settings)
    record(ob, ans)
    if ans.result == "sat":
        return RuleResult(proved(ID, "certificate"), [ob])
    if ans.result == "unknown":
        return RuleResult(unknown(ID, ans.reason, "certificate"), [ob])
    return rejected(ID, ob, "producer map", "certificate")
