"""GRAPH-ACYCLIC as SMT: a strict rank function over the operations exists.

Obligation (all scopes in one script): one integer rank per operation that
has a dependency edge, and ``rank(producer) < rank(consumer)`` for every edge
(required inputs include the names nested graphs capture). The script is
satisfiable exactly when every graph is acyclic (a difference-logic
problem; asserted in reverse consumer order, which z3's Bellman-Ford solver
handles in near-linear time).

* search mode: z3 finds the ranks; they are read back from the model and every
  edge is re-verified in Python before PROVED is reported;
* certificate mode: ranks from an untrusted Kahn sort are asserted as
  constants and z3 validates them; a cycle claimed by that sort is validated
  by asserting only its edges (unsatisfiable = a real cycle).

Witness of a cycle: per scope, the edges are guarded by assumption literals;
the unsat core is a set of edges that contains a cycle, and a shortest cycle
inside the core is reported (and re-checked unsatisfiable on its own).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ..witness import LIMIT, brief, first
from .certify import Edge, cycle, ranks, shortest_cycle
from .common import RuleResult, distinct, proved, record, unknown, violated
from .facts import ScopeFacts
from .smtlib import Obligation
from .solver import SolverSettings, model_values, solve

ID = "GRAPH-ACYCLIC"
LOGIC = "QF_IDL"


def rank_body(per_scope: Sequence[Tuple[int, List[Edge]]], values: Dict[int, List[int]] | None) -> List[str]:
    """SMT-LIB lines of the rank obligation over ``(scope, edges)`` pairs (also used for fused partitions).

    With ``values`` None, one integer rank ``r<scope>_<node>`` is declared per
    node on an edge and ``rank(a) < rank(b)`` asserted per edge ``(a, b, tensor)``;
    with ``values`` (scope -> rank of each node), the given ranks are written
    in place (certificate check), each distinct pair of ranks once.
    """
    body: List[str] = []
    for s, edges in per_scope:
        if values is None:
            used = sorted({e[0] for e in edges} | {e[1] for e in edges})
            body.extend(f"(declare-fun r{s}_{j} () Int)" for j in used)
            body.extend(f"(assert (< r{s}_{a} r{s}_{b}))" for a, b, _ in reversed(edges))
        else:  # certificate: the given ranks are written in place; z3 only evaluates each edge constraint
            r = values[s]
            pairs = dict.fromkeys((r[a], r[b]) for a, b, _ in reversed(edges))
            body.extend(f"(assert (< {ra} {rb}))" for ra, rb in pairs)
    return body if values is None else distinct(body)


def search_obligation(facts: Sequence[ScopeFacts]) -> Tuple[Obligation, List[Tuple[int, List[Edge]]]]:
    per_scope = [(f.index, f.edges()) for f in facts]
    ob = Obligation(
        ID,
        "acyclic.search",
        LOGIC,
        rank_body(per_scope, None),
        "sat",
        "search",
        "a strict rank over the operations of every graph exists (rank of producer < rank of consumer)",
    )
    return ob, per_scope


def _cycle_obligation(s: int, cyc: List[Edge], name: str) -> Obligation:
    return Obligation(
        ID,
        name,
        LOGIC,
        rank_body([(s, cyc)], None),
        "sat",
        "certificate",
        f"the claimed cycle of scope {s}: its edges alone admit no strict ranking",
    )


def _diagnose(facts: Sequence[ScopeFacts], settings: SolverSettings) -> Tuple[List[Tuple[ScopeFacts, List[Edge]]], str]:
    """Per scope, find a cycle from an unsat core of guarded edge constraints; minimise it."""
    found: List[Tuple[ScopeFacts, List[Edge]]] = []
    for f in facts:
        edges = f.edges()
        if not edges:
            continue
        used = sorted({e[0] for e in edges} | {e[1] for e in edges})
        body = [f"(declare-fun r{j} () Int)" for j in used]
        body += [f"(declare-fun g{k} () Bool)" for k in range(len(edges))]
        body += [f"(assert (=> g{k} (< r{a} r{b})))" for k, (a, b, _) in reversed(list(enumerate(edges)))]
        guards = [f"g{k}" for k in range(len(edges))]
        ans = solve("\n".join(body), settings, difference_logic=True, assumptions=guards)
        if ans.result == "unknown":
            return found, ans.reason
        if ans.result == "sat":
            continue
        core = [edges[int(c[1:])] for c in ans.core or []]
        cyc = shortest_cycle(core)
        if cyc is None:
            return found, f"the unsat core of scope {f.path} contains no cycle (a tool defect)"
        check = solve("\n".join(rank_body([(f.index, cyc)], None)), settings, difference_logic=True)
        if check.result != "unsat":
            return found, f"the minimised cycle of scope {f.path} was not refuted on its own ({check.result})"
        found.append((f, cyc))
    return found, ""


def _witness(cyclic: List[Tuple[ScopeFacts, List[Edge]]], mode: str) -> Tuple[str, Dict[str, Any]]:
    f, cyc = cyclic[0]
    ops = f.graph.operations
    steps = [{"index": a, "operation": ops[a].label, "tensor": t} for a, _, t in cyc[:LIMIT]]
    labels = [ops[a].label for a, _, _ in cyc]
    if len(cyc) == 1:
        what = f"operation {labels[0]} reads its own output {cyc[0][2]!r}"
    else:
        what = f"a cycle of {len(cyc)} operations ({brief(labels)})"
    extra = f"; {len(cyclic) - 1} more graph(s) have cycles" if len(cyclic) > 1 else ""
    paths = [c[0].path for c in cyclic]
    return f"in graph {f.path}: {what}{extra}", {
        "scope": f.path,
        "length": len(cyc),
        "cycle": steps,
        "cyclic_graphs": first(paths),
        "cyclic_graph_count": len(paths),
    }


def _search(facts: Sequence[ScopeFacts], settings: SolverSettings) -> RuleResult:
    ob, per_scope = search_obligation(facts)
    ans = solve(ob.script(), settings, difference_logic=True)
    record(ob, ans)
    if ans.result == "unknown":
        return RuleResult(unknown(ID, ans.reason, "search"), [ob])
    if ans.result == "sat":
        names = [f"r{s}_{j}" for s, edges in per_scope for j in {e[0] for e in edges} | {e[1] for e in edges}]
        vals = model_values(ans, names)
        for s, edges in per_scope:
            for a, b, t in edges:
                ra, rb = vals.get(f"r{s}_{a}"), vals.get(f"r{s}_{b}")
                if not isinstance(ra, int) or not isinstance(rb, int) or not ra < rb:
                    return RuleResult(
                        unknown(ID, f"z3's ranks fail re-verification on edge {a}->{b} ({t!r}) of scope {s}", "search"),
                        [ob],
                    )
        return RuleResult(proved(ID, "search"), [ob])
    cyclic, why = _diagnose(facts, settings)
    if why or not cyclic:
        return RuleResult(
            unknown(ID, why or "the obligation is unsat but no scope has a cycle (a tool defect)", "search"), [ob]
        )
    summary, data = _witness(cyclic, "search")
    return RuleResult(violated(ID, summary, data, "search"), [ob])


def _certificate(facts: Sequence[ScopeFacts], settings: SolverSettings) -> RuleResult:
    per_scope = [(f.index, f.edges()) for f in facts]
    values: Dict[int, List[int]] = {}
    cyclic: List[Tuple[ScopeFacts, List[Edge]]] = []
    for f, (s, edges) in zip(facts, per_scope, strict=True):
        r = ranks(f.n, edges)
        if r is None:
            c = cycle(f.n, edges)
            if c is None:
                return _search(facts, settings)
            cyclic.append((f, c))
        else:
            values[s] = r
    if not cyclic:
        ob = Obligation(
            ID,
            "acyclic.certificate",
            LOGIC,
            rank_body(per_scope, values),
            "sat",
            "certificate",
            "the given ranks are a strict ranking of every dependency edge of every graph",
        )
        ans = solve(ob.script(), settings, difference_logic=True)
        record(ob, ans)
        if ans.result == "sat":
            return RuleResult(proved(ID, "certificate"), [ob])
        if ans.result == "unknown":
            return RuleResult(unknown(ID, ans.reason, "certificate"), [ob])
        return _search(facts, settings)  # certificate rejected: decide by search
    obs: List[Obligation] = []
    model_edges = {(f.index, e) for f, _ in cyclic for e in f.edges()}
    for f, c in cyclic:
        if any((f.index, e) not in model_edges for e in c):
            return _search(facts, settings)
        ob = _cycle_obligation(f.index, c, f"acyclic.cycle{f.index}")
        ob.holds_when = "sat"
        ans = solve(ob.script(), settings, difference_logic=True)
        record(ob, ans)
        obs.append(ob)
        if ans.result == "unknown":
            return RuleResult(unknown(ID, ans.reason, "certificate"), obs)
        if ans.result != "unsat":
            return _search(facts, settings)
    summary, data = _witness(cyclic, "certificate")
    return RuleResult(violated(ID, summary, data, "certificate"), obs)


def prove(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    return _certificate(facts, settings) if mode == "certificate" else _search(facts, settings)
