"""GRAPH-DETERMINISM as SMT: two runs of each graph on equal inputs, with the classes GRAPH-R2 decided.

GRAPH-DETERMINISM: two runs of each graph on equal inputs. Values are an
uninterpreted sort ``V``; a graph input, initializer, captured name or
unwritten tensor has one value shared by both runs; a write of a
deterministic operation is an uninterpreted function of the written
tensor's id and the values it reads (so equal arguments give equal results
by congruence); a source, an operation of class 2 by the classification or a
control-flow operation whose nested graph is not deterministic, writes a
value of its own in each run, and every tensor downstream of one has a value
per run. Every operation of the graph is encoded. Which tensors are
run-dependent is proposed by an untrusted search; z3 refuses the script when
a run-independent definition reads a run-dependent value (that name is not
declared), so a wrong proposal is UNKNOWN, never a pass. Tensor values are
definitions in a dependency order, an untrusted Kahn order that z3 checks by
refusing any use before a definition. Obligation: some graph output differs
between the runs; unsat = deterministic; on sat, the witness's output is one
the solver confirms can differ on its own (an assumption literal per
run-dependent output). Nested graphs are decided
first (bottom up); operations of class 1 (or holding a nested graph of
unknown determinism) are sources only in a second check, whose
satisfiability gives UNKNOWN. A graph without any source (every operation
of class 0 in the solver's GRAPH-R2 answer, no nested graph in doubt) gets no
two-run obligation: a graph of functions computes a function of its inputs
(spec 3.7), and the GRAPH-R2 obligations are where the solver decided that
there is no source. The path of the witness, from the source to
the differing output, is found by an untrusted search over the facts. The
rule is stated for graphs where GRAPH-ACYCLIC, GRAPH-C1, GRAPH-C1-SOURCES
and GRAPH-C1-SHADOWING hold; otherwise UNKNOWN.
"""


from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...base.verdict import Status
from ...base.witness import first, op_ref
from ...rules.graph_acyclic import ID as ACYCLIC
from ...rules.graph_c1 import ID as C1
from ...rules.graph_c1_shadowing import ID as C1_SHADOWING
from ...rules.graph_c1_sources import ID as C1_SOURCES
from ...rules.graph_determinism import ID
from ...rules.graph_r2 import ID as R2
from .. import common
from ..arrays import expand
from ..certify import index_of, ranks_of
from ..common import (
    Asking,
    Classes,
    Encoding,
    Proof,
    ProofContext,
    RuleResult,
    ask_one,
    or_all,
    proved,
    unknown,
    violated,
)
from ..facts import ScopeFacts
from ..smtlib import Obligation
from ..solver import Answer, recheck
from .graph_r2 import DET, NONDET, UNK


def run_dependent(f: ScopeFacts, sources: dict[int, str]) -> set[int]:
    """Untrusted: the tensors written downstream of a source (their definitions take the run as a parameter)."""
    ix = index_of(f)
    out: set[int] = set()
    stack = sorted(sources)
    seen = set(stack)
    while stack:
        j = stack.pop()
        for i in range(f.wr_ptr[j], f.wr_ptr[j + 1]):
            t = ix.wr_t[i]
            out.add(t)
            for r in ix.readers(t):
                b = ix.rd_o[r] - f.op_base
                if b not in seen:
                    seen.add(b)
                    stack.append(b)
    return out


Part = tuple[int, int, set[int]]
"""(k, n, operations): part k of n of a graph's operations, whole weakly connected components."""


def parts_of(f: ScopeFacts) -> list[list[int]]:
    """The graph's operations in weakly connected components (a reader joined to the writers of what it reads).

    Components are taken in the order of their first operation and put
    together, whole, into parts of at most :data:`.common.PART` operations
    (a larger component is a part of its own). A part is closed under the
    dependencies of its operations: every definition its outputs need is in it.
    """
    ix = index_of(f)
    parent = list(range(f.n))

    def root(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    owner, at = expand(ix.w_ptr, ix.rd_x)
    for a, b in zip(ix.rd_j[owner].tolist(), ix.wr_j[ix.w_idx[at]].tolist(), strict=True):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for j in range(f.n):
        groups.setdefault(root(j), []).append(j)
    parts: list[list[int]] = []
    for ops in groups.values():  # in the order of their first operation
        if parts and len(parts[-1]) + len(ops) <= common.PART:
            parts[-1].extend(ops)
        else:
            parts.append(list(ops))
    return parts


def two_runs(
    f: ScopeFacts, order: list[int], sources: dict[int, str], part: Part | None = None
) -> tuple[Obligation, list[int]]:
    """Two-run obligation for graph ``f`` (operations in ``order``); returns it and the outputs with a ``d<t>``.

    Those are the run-dependent outputs (one value per run); the others have
    one value for both runs (z3 refuses the script if a run-independent
    definition reads a run-dependent value, whose name it does not know), so
    their disjunct ``(distinct v v)`` is false in every model.

    With ``part``, only its operations and the graph outputs they write (an
    unwritten output has one value, never two). Definitions are macros, so
    the whole obligation is the disjunction of its parts' goals over the same
    free symbols: it is unsat exactly when every part is, and an output can
    differ in the whole exactly when it can in its part.
    """
    written = set(f.wr_t)
    dep = run_dependent(f, sources)
    if part is not None:
        members = part[2]
        order = [j for j in order if j in members]
        mine = {f.wr_t[i] for j in order for i in range(f.wr_ptr[j], f.wr_ptr[j + 1])}
        read = {f.rd_t[r] for j in order for r in range(f.rd_ptr[j], f.rd_ptr[j + 1])}
        free = sorted(t for t in read if t not in written)
    else:
        free = [t for t in range(f.t_base, f.t_base + f.n_tensors) if t not in written]
    arities = sorted({f.rd_ptr[j + 1] - f.rd_ptr[j] for j in (order if part is not None else range(f.n))})
    body = [
        f"; two runs ra, rb of graph {f.path} on equal inputs",
        ";   a tensor no write fact writes (graph input, initializer, capture, undefined): one value v<t>;",
        ";   write (o k t) of a deterministic operation: (Fn t <values read>), n = number of o's read facts",
        ";   (t names the write: one writer per tensor is the rule's premise, GRAPH-C1);",
        ";   write (o k t) of a source: (S t ra) in run a, (S t rb) in run b;",
        ";   a run-dependent tensor has one value per run, va<t> and vb<t>, the others one value v<t>: which",
        ";   are run-dependent is proposed by an untrusted search, and z3 checks it (a v<t> that reads a",
        ";   run-dependent value names a va/vb as v<x>, which is not declared); definitions follow an untrusted",
        ";   dependency order, checked by z3 too (no use before a definition)",
        "(declare-sort V 0)",
        "(declare-fun ra () V)",
        "(declare-fun rb () V)",
        "(declare-fun S (Int V) V)",
        *(f"(declare-fun F{n} (Int{' V' * n}) V)" for n in arities),
    ]
    body.extend(f"(declare-fun v{t} () V)" for t in free)
    rd_ptr, rd_t, wr_ptr, wr_t = f.rd_ptr, f.rd_t, f.wr_ptr, f.wr_t
    for j in order:
        w = range(wr_ptr[j], wr_ptr[j + 1])
        if j in sources:
            for i in w:
                t = wr_t[i]
                body.append(f"(define-fun va{t} () V (S {t} ra))")
                body.append(f"(define-fun vb{t} () V (S {t} rb))")
            continue
        a, b = rd_ptr[j], rd_ptr[j + 1]
        reads = rd_t[a:b]
        n = b - a
        runs = [("a", "".join(f" va{x}" if x in dep else f" v{x}" for x in reads))]
        if any(x in dep for x in reads):
            runs.append(("b", "".join(f" vb{x}" if x in dep else f" v{x}" for x in reads)))
        for i in w:
            t = wr_t[i]
            if t in dep:
                pairs = runs if len(runs) == 2 else [("a", runs[0][1]), ("b", runs[0][1])]
                body.extend(f"(define-fun v{r}{t} () V (F{n} {t}{args}))" for r, args in pairs)
            else:
                body.append(f"(define-fun v{t} () V (F{n} {t}{runs[0][1]}))")
    outs = list(dict.fromkeys(t for _, t in f.outputs))
    if part is not None:
        outs = [t for t in outs if t in mine]
    body.append("; violation: some graph output differs between the runs (d<t>: output t differs)")
    goal: list[str] = []
    for t in outs:
        if t in dep:
            body.append(f"(declare-fun d{t} () Bool)")
            body.append(f"(assert (= d{t} (distinct va{t} vb{t})))")
            goal.append(f"d{t}")
        else:
            goal.append(f"(distinct v{t} v{t})")
    body.append(f"(assert {or_all(goal)})")
    name, meaning = f"determinism.scope{f.index}", f"two runs of graph {f.path} on equal inputs give different values"
    if part is None:
        meaning += " to some graph output"
    else:
        name += f".part{part[0]}"
        meaning += f" to some graph output of part {part[0] + 1} of {part[1]} (whole weakly connected components)"
    ob = Obligation(ID, name, "QF_UFLIA", body, "unsat", "search", meaning)
    return ob, [t for t in outs if t in dep]


def _path(f: ScopeFacts, sources: dict[int, str], out: int) -> dict[str, Any]:
    """Untrusted: a shortest chain of facts from a source to the writer of ``out`` (the witness's path)."""
    ix = index_of(f)
    parent: dict[int, tuple[int, int] | None] = {j: None for j in sorted(sources)}
    queue = deque(sorted(sources))
    goal = {ix.wr_o[i] - f.op_base for i in ix.writers(out)}
    hit = next((j for j in queue if j in goal), None)
    while queue and hit is None:
        a = queue.popleft()
        for i in range(f.wr_ptr[a], f.wr_ptr[a + 1]):
            for r in ix.readers(ix.wr_t[i]):
                b = ix.rd_o[r] - f.op_base
                if b not in parent:
                    parent[b] = (a, ix.wr_t[i])
                    queue.append(b)
                    if b in goal:
                        hit = b
    ops = f.graph.operations
    steps: list[dict[str, Any]] = []
    cur, tensor = (hit if hit is not None else next(iter(goal))), out
    while True:
        steps.append({"tensor": f.name(tensor), **op_ref(f.path, cur, ops[cur])})
        p = parent.get(cur)
        if p is None:
            break
        cur, tensor = p
    steps.reverse()
    src = steps[0]
    return {
        "scope": f.path,
        "output": f.name(out),
        "source": {k: src[k] for k in ("scope", "index", "operation")},
        "source_reason": sources.get(src["index"], ""),
        "path": steps,
    }


def _check_scope(
    f: ScopeFacts, order: list[int], sources: dict[int, str], obs: list[Obligation]
) -> Asking[tuple[str, dict[str, Any] | None, str]]:
    """Solve the graph's two-run obligation, in parts of whole components (:func:`parts_of`) on large graphs.

    Parts are solved one after the other in this process (``local``: a sat
    answer is checked again under assumptions), and a part's z3 context is
    freed at once unless it is sat, so memory is that of one part.
    """
    groups = parts_of(f)
    made = (
        [two_runs(f, order, sources)]
        if len(groups) == 1
        else [two_runs(f, order, sources, (k, len(groups), set(g))) for k, g in enumerate(groups)]
    )
    sat: dict[int, Answer] = {}
    unknown_reason, any_sat = "", False
    for ob, outs in made:
        ans = yield from ask_one(ob, local=True)
        obs.append(ob)
        if ans.result == "sat":
            any_sat = True
            sat.update((t, ans) for t in outs)
        else:
            ans.solver = None  # frees the part's z3 context
            if ans.result == "unknown" and not unknown_reason:
                unknown_reason = ans.reason
    # The witness's output: the first run-dependent output, in output order, that the solver confirms can differ
    # on its own (sat under the assumption d<t>). No model is asked for: building one costs time quadratic in the
    # length of the longest run-dependent chain (benchmarks/README.md, "Figures behind choices in the code").
    for t in dict.fromkeys(t for _, t in f.outputs):
        if t in sat:
            again = recheck(sat[t], [f"d{t}"])
            if again.result == "sat":
                return "nondet", _path(f, sources, t), ""
            if again.result == "unknown":
                return "unknown", None, again.reason
    if unknown_reason:
        return "unknown", None, unknown_reason
    if any_sat:
        return "unknown", None, "the solver confirms no differing output on its own (a tool defect)"
    return "det", None, ""


def prove(ctx: ProofContext) -> Proof:
    """Two runs of each graph, once GRAPH-ACYCLIC and the three C1 rules are proved, from GRAPH-R2's classes."""
    r2 = ctx.needed.get(R2)
    return (yield from _two_runs(ctx.facts, None if r2 is None else r2.classes, ctx.needed))


def _two_runs(facts: Sequence[ScopeFacts], classes: Classes | None, structure: Mapping[str, RuleResult]) -> Proof:
    for rid in (ACYCLIC, C1, C1_SOURCES, C1_SHADOWING):
        given = structure.get(rid)
        v = None if given is None else given.verdict
        if v is None or v.status is not Status.PROVED:
            why = f"graph determinism is stated for graphs where {rid} holds, and the SMT engine did not prove it"
            return RuleResult(unknown(ID, why, "search"))
    if classes is None:
        return RuleResult(unknown(ID, "the classification of the operations is not known (GRAPH-R2)", "search"))
    holders: dict[int, tuple[int, int]] = {}
    by_graph = {id(f.graph): f.index for f in facts}
    for f in facts:
        for j, op in enumerate(f.graph.operations):
            if op.attributes:
                for _, g in op.subgraphs:
                    if id(g) in by_graph:
                        holders[by_graph[id(g)]] = (f.index, j)
    result: dict[int, tuple[str, dict[str, Any] | None, str]] = {}
    obs: list[Obligation] = []
    body_class: dict[tuple[int, int], tuple[int, str]] = {}
    marked: dict[int, set[tuple[int, int]]] = {}
    for key in classes:
        marked.setdefault(key[0], set()).add(key)
    for f in reversed(list(facts)):  # nested graphs before the graphs holding them
        certain: dict[int, str] = {}
        maybe: dict[int, str] = {}
        for key in sorted(marked.get(f.index, ())):
            c, r = max(classes.get(key, (DET, "")), body_class.get(key, (DET, "")))
            if c == NONDET:
                certain[key[1]] = r
            elif c == UNK:
                maybe[key[1]] = r
        if not certain and not maybe:
            # No source: the GRAPH-R2 obligations (decided by the solver) put every operation of this graph in
            # the deterministic class, and no nested graph of it is in doubt. A graph of functions computes a
            # function of its inputs (spec 3.7, proofs/order_independence.py), so there is nothing to solve.
            result[f.index] = ("det", None, "")
            continue
        rk = ranks_of(f)
        if rk is None:
            return RuleResult(
                unknown(ID, f"no dependency order found for graph {f.path} (a tool defect)", "search"), obs
            )
        order = np.argsort(rk[0], kind="stable").tolist()  # by rank, then storage order
        st, wit, why = (yield from _check_scope(f, order, certain, obs)) if certain else ("det", None, "")
        if st == "det" and maybe:
            st2, wit2, why2 = yield from _check_scope(f, order, {**certain, **maybe}, obs)
            st, wit, why = (
                ("unknown", wit2, why2 or "an operation of unknown determinism may reach an output")
                if st2 == "nondet"
                else (st2, wit2, why2)
            )
        result[f.index] = (st, wit, why)
        if f.parent >= 0 and st != "det" and f.index in holders:
            holder = holders[f.index]
            new = (
                (NONDET, f"nested graph {f.path} is not deterministic")
                if st == "nondet"
                else (UNK, f"determinism of nested graph {f.path} not established")
            )
            body_class[holder] = max(body_class.get(holder, (DET, "")), new)
            marked.setdefault(holder[0], set()).add(holder)
    st, wit, why = result[0]
    if st == "det":
        return RuleResult(proved(ID, "search"), obs)
    if st == "unknown":
        return RuleResult(unknown(ID, why, "search"), obs)
    assert wit is not None
    src = wit["source"]
    nested = [result[i][1] for i in sorted(result) if i != 0 and result[i][0] == "nondet"]
    data = {**wit, "nested": first([n for n in nested if n is not None], 10)}
    return RuleResult(
        violated(
            ID,
            f"graph output {wit['output']!r} can differ between two runs on equal inputs: "
            f"{src['operation']} (#{src['index']} in {src['scope']}) reaches it through "
            f"{len(wit['path'])} step(s)",
            data,
            "search",
        ),
        obs,
    )


ENCODING = Encoding(ID, prove, needs=(ACYCLIC, C1, C1_SOURCES, C1_SHADOWING, R2))
"""GRAPH-DETERMINISM in the table of :mod:`sonnx.smt.registry`; it reads GRAPH-ACYCLIC, the C1 rules and GRAPH-R2."""
