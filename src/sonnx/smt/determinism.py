"""GRAPH-R2 and GRAPH-DETERMINISM as SMT: two separate findings.

Classification of each operation (deterministic, nondeterministic, unknown)
is the direct engine's (:func:`shared_classes`): the table of
:mod:`sonnx.rules.determinism_table` and the evaluation of its conditions are a
trusted base shared by both engines, stated as such in the spec.

GRAPH-R2 (syntactic): one Boolean ``n`` per operation of a kind the table
flags (operations of deterministic kinds have ``n`` false and are left out),
asserted from the classification; an unknown operation is left
unconstrained. Obligation ``r2.certain`` (unknown ones forced false): some
``n`` holds; satisfiable = VIOLATED, the model lists the offenders. Otherwise
``r2.possible`` (unknown ones free): satisfiable = UNKNOWN, unsatisfiable =
PROVED.

GRAPH-DETERMINISM (semantic): two runs of each graph on equal inputs.
Values are an uninterpreted sort; each deterministic operation is an
uninterpreted function per output (so equal arguments give equal results by
congruence); each nondeterministic operation, or a control-flow operation
whose nested graph is not deterministic, gives a fresh value in each run.
Only tensors in the forward cone of such sources get two copies (the others
are the same term in both runs). Obligation: some graph output differs
between the runs. Unsatisfiable = deterministic. Satisfiable = the model
shows which output differs; following differing inputs back gives the
nondeterministic operation and its path to that output. Nested graphs are
decided first (bottom up); unknown-determinism operations are sources only in
a second check, whose satisfiability gives UNKNOWN. A random operation that
feeds only a dead node breaks R2 but not graph determinism.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import z3

from ..model.graph import Model
from ..rules import graph_r2 as rules_det
from ..rules.base import CheckContext
from ..verdict import Status, Verdict
from ..witness import brief, first
from .common import RuleResult, op_ref, or_all, proved, record, unknown, violated
from .facts import ScopeFacts
from .smtlib import Obligation
from .solver import SolverSettings, solve

ID_R2 = "GRAPH-R2"
ID_SEM = "GRAPH-DETERMINISM"
DET, NONDET, UNK = "det", "nondet", "unknown"


def shared_classes(model: Model) -> Dict[Tuple[int, int], Tuple[str, str]]:
    """Class of every operation that is not plainly deterministic: (scope, op) -> (class, reason).

    This is the direct rule's classification (:func:`sonnx.rules.graph_r2.operation_classes`):
    the table of :mod:`sonnx.rules.determinism_table` and the evaluation of its conditions are the trusted
    base both engines share, so a wrong table entry cannot show up as a disagreement between them.
    What the solver decides on top of it is stated in this module's docstring.
    """
    ctx = CheckContext(model)
    mapped = {rules_det.NONDET: NONDET, rules_det.UNKNOWN: UNK}
    return {k: (mapped[c], r) for k, (c, r) in rules_det.operation_classes(ctx).items()}


def prove_r2(
    facts: Sequence[ScopeFacts], classes: Dict[Tuple[int, int], Tuple[str, str]], settings: SolverSettings, mode: str
) -> RuleResult:
    decl = [f"(declare-fun n{s}_{j} () Bool)" for (s, j) in classes]
    facts_det = [f"(assert (not n{s}_{j}))" for (s, j), (c, _) in classes.items() if c == DET]
    facts_nd = [f"(assert n{s}_{j})" for (s, j), (c, _) in classes.items() if c == NONDET]
    unk_false = [f"(assert (not n{s}_{j}))" for (s, j), (c, _) in classes.items() if c == UNK]
    goal = f"(assert {or_all([f'n{s}_{j}' for (s, j) in classes])})"
    certain = Obligation(
        ID_R2,
        "r2.certain",
        "QF_UF",
        decl + facts_det + facts_nd + unk_false + [goal],
        "unsat",
        mode,
        "some operation certainly applies a nondeterministic operator",
    )
    ans = solve(certain.script(), settings)
    record(certain, ans)
    if ans.result == "unknown":
        return RuleResult(unknown(ID_R2, ans.reason, mode), [certain])
    if ans.result == "sat":
        m = ans.solver.model()
        bad: List[Dict[str, Any]] = []
        for (s, j), (_, reason) in classes.items():
            if z3.is_true(m.eval(z3.Bool(f"n{s}_{j}", m.ctx), model_completion=True)):
                f = facts[s]
                bad.append({**op_ref(f.path, j, f.graph.operations[j]), "reason": reason})
        n_unknown = sum(1 for c, _ in classes.values() if c == UNK)
        shown = [f"{b['operation']} in {b['scope']}" for b in bad]
        return RuleResult(
            violated(
                ID_R2,
                f"{len(bad)} nondeterministic operation(s): {brief(shown)}; {bad[0]['reason']}",
                {"count": len(bad), "nondeterministic": first(bad), "unknown_count": n_unknown},
                mode,
            ),
            [certain],
        )
    possible = Obligation(
        ID_R2,
        "r2.possible",
        "QF_UF",
        decl + facts_det + facts_nd + [goal],
        "unsat",
        mode,
        "some operation may apply a nondeterministic operator (unknown ones unconstrained)",
    )
    ans2 = solve(possible.script(), settings)
    record(possible, ans2)
    if ans2.result == "unsat":
        return RuleResult(proved(ID_R2, mode), [certain, possible])
    if ans2.result == "unknown":
        return RuleResult(unknown(ID_R2, ans2.reason, mode), [certain, possible])
    reasons = list(dict.fromkeys(r for c, r in classes.values() if c == UNK))
    n = sum(1 for c, _ in classes.values() if c == UNK)
    return RuleResult(
        unknown(ID_R2, f"determinism of {n} operation(s) not established: {brief(reasons, 3)}", mode),
        [certain, possible],
    )


# -- semantic graph determinism ------------------------------------------------------


class _Scope:
    """Outcome for one graph: status and, if not deterministic, the witness."""

    def __init__(self, status: str, witness: Dict[str, Any] | None = None, reason: str = "") -> None:
        self.status = status
        self.witness = witness
        self.reason = reason


def _semantic_obligation(f: ScopeFacts, sources: Dict[int, str]) -> Tuple[Obligation, Dict[str, Tuple[str, str]]]:
    """Two-run obligation for scope ``f``; returns it and, per cone tensor, its two constants."""
    s = f.index
    cone: set[str] = set()
    in_cone_ops: set[int] = set()
    succ = f.successors()
    stack = list(sources)
    seen_ops = set(stack)
    while stack:
        j = stack.pop()
        in_cone_ops.add(j)
        for o in f.outs[j]:
            if o:
                cone.add(o)
        for k, _ in succ[j]:
            if k not in seen_ops:
                seen_ops.add(k)
                stack.append(k)
    body = ["(declare-sort V 0)"]
    single: Dict[str, str] = {}
    pair: Dict[str, Tuple[str, str]] = {}

    def term(t: str, run: int) -> str:
        if t in cone:
            return pair[t][run]
        v = single.get(t)
        if v is None:
            v = single[t] = f"x{s}_{len(single)}"
            body.append(f"(declare-fun {v} () V)")
        return v

    for t in sorted(cone):
        k = len(pair)
        pair[t] = (f"a{s}_{k}", f"b{s}_{k}")
        body.append(f"(declare-fun a{s}_{k} () V)")
        body.append(f"(declare-fun b{s}_{k} () V)")
    for j in sorted(in_cone_ops):
        if j in sources:
            continue  # fresh values in each run: no constraint
        args = list(f.req[j])
        for q, o in enumerate(f.outs[j]):
            if not o:
                continue
            fn = f"F{s}_{j}_{q}"
            if args:
                body.append(f"(declare-fun {fn} ({' '.join('V' for _ in args)}) V)")
            else:
                body.append(f"(declare-fun {fn} () V)")
            for run in (0, 1):
                call = f"({fn} {' '.join(term(a, run) for a in args)})" if args else fn
                body.append(f"(assert (= {term(o, run)} {call}))")
    diffs = [f"(not (= {pair[o][0]} {pair[o][1]}))" for o in dict.fromkeys(f.graph.outputs) if o in cone]
    body.append(f"(assert {or_all(diffs)})")
    ob = Obligation(
        ID_SEM,
        f"determinism.scope{s}",
        "QF_UF",
        body,
        "unsat",
        "search",
        f"two runs of graph {f.path} on equal inputs give different values to some graph output",
    )
    return ob, pair


def _path(f: ScopeFacts, m: Any, pair: Dict[str, Tuple[str, str]], sources: Dict[int, str], out: str) -> Dict[str, Any]:
    ops = f.graph.operations

    def differs(t: str) -> bool:
        if t not in pair:
            return False
        a, b = (m.eval(z3.Const(v, z3.DeclareSort("V", m.ctx)), model_completion=True) for v in pair[t])
        return not a.eq(b)

    steps: List[Dict[str, Any]] = []
    cur = out
    while True:
        p = f.producers(cur)[0]
        steps.append({"tensor": cur, **op_ref(f.path, p, ops[p])})
        if p in sources:
            break
        nxt = next((t for t in f.req[p] if differs(t)), None)
        if nxt is None or len(steps) > f.n:
            break
        cur = nxt
    steps.reverse()
    src = steps[0]
    return {
        "scope": f.path,
        "output": out,
        "source": {k: src[k] for k in ("scope", "index", "operation")},
        "source_reason": sources.get(src["index"], ""),
        "path": steps,
    }


def _check_scope(
    f: ScopeFacts, sources: Dict[int, str], settings: SolverSettings, obs: List[Obligation], export: bool
) -> Tuple[str, Dict[str, Any] | None, str]:
    if not sources and not export:
        return "det", None, ""  # empty cone: the obligation is the empty disjunction, false
    ob, pair = _semantic_obligation(f, sources)
    ans = solve(ob.script(), settings)
    record(ob, ans)
    obs.append(ob)
    if ans.result == "unknown":
        return "unknown", None, ans.reason
    if ans.result == "unsat":
        return "det", None, ""
    m = ans.solver.model()
    for o in dict.fromkeys(f.graph.outputs):
        if o in pair:
            a, b = (m.eval(z3.Const(v, z3.DeclareSort("V", m.ctx)), model_completion=True) for v in pair[o])
            if not a.eq(b):
                return "nondet", _path(f, m, pair, sources, o), ""
    return "unknown", None, "the model of the violation shows no differing output (a tool defect)"


def prove_semantic(
    facts: Sequence[ScopeFacts],
    classes: Dict[Tuple[int, int], Tuple[str, str]],
    structure: Dict[str, Verdict],
    settings: SolverSettings,
) -> RuleResult:
    for rid in ("GRAPH-ACYCLIC", "GRAPH-C1"):
        v = structure.get(rid)
        if v is None or v.status is not Status.PROVED:
            return RuleResult(
                unknown(
                    ID_SEM,
                    f"graph determinism is stated for graphs where {rid} holds, and the SMT engine did not prove it",
                    "search",
                )
            )
    children: Dict[int, List[Tuple[int, int]]] = {}
    by_graph = {id(f.graph): f.index for f in facts}
    for f in facts:
        for j, op in enumerate(f.graph.operations):
            if op.attributes:
                for _, g in op.subgraphs:
                    if id(g) in by_graph:
                        children.setdefault(by_graph[id(g)], []).append((f.index, j))
    result: Dict[int, Tuple[str, Dict[str, Any] | None, str]] = {}
    obs: List[Obligation] = []
    body_class: Dict[Tuple[int, int], Tuple[str, str]] = {}
    for f in reversed(list(facts)):  # nested graphs before the graphs holding them
        certain: Dict[int, str] = {}
        maybe: Dict[int, str] = {}
        for j in range(f.n):
            c, r = classes.get((f.index, j), (DET, ""))
            bc, br = body_class.get((f.index, j), (DET, ""))
            if NONDET in (c, bc):
                certain[j] = r if c == NONDET else br
            elif UNK in (c, bc):
                maybe[j] = r if c == UNK else br
        st, wit, why = _check_scope(f, certain, settings, obs, export=f.index == 0)
        if st == "det" and maybe:
            st2, wit2, why2 = _check_scope(f, {**certain, **maybe}, settings, obs, export=False)
            st, wit, why = (
                ("unknown", wit2, why2 or "an operation of unknown determinism may reach an output")
                if st2 == "nondet"
                else (st2, wit2, why2)
            )
        result[f.index] = (st, wit, why)
        if f.parent >= 0 and st != "det":
            for holder in children.get(f.index, []):
                prev = body_class.get(holder, (DET, ""))
                new = (
                    (NONDET, f"nested graph {f.path} is not deterministic")
                    if st == "nondet"
                    else (UNK, f"determinism of nested graph {f.path} not established")
                )
                if prev[0] != NONDET:
                    body_class[holder] = new
    st, wit, why = result[0]
    if st == "det":
        return RuleResult(proved(ID_SEM, "search"), obs)
    if st == "unknown":
        return RuleResult(unknown(ID_SEM, why, "search"), obs)
    assert wit is not None
    src = wit["source"]
    nested = [result[i][1] for i in sorted(result) if i != 0 and result[i][0] == "nondet"]
    data = {**wit, "nested": first([n for n in nested if n is not None], 10)}
    return RuleResult(
        violated(
            ID_SEM,
            f"graph output {wit['output']!r} can differ between two runs on equal inputs: "
            f"{src['operation']} (#{src['index']} in {src['scope']}) reaches it through "
            f"{len(wit['path'])} step(s)",
            data,
            "search",
        ),
        obs,
    )
