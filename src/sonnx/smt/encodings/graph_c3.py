"""GRAPH-C3 as SMT: every graph output is in the least set of defined tensors.

The rule as Horn clauses over the raw facts, with Booleans ``D`` (tensor
defined) and ``F`` (operation fires): every graph input, initializer and
captured name (capture fact: an enclosing graph defines it) is defined; an
operation fires when every tensor of its read facts is defined; a write fact
``(o, k, t)`` defines ``t`` when ``o`` fires. Horn clauses only ever force
``D`` true, and exactly for the tensors of the least fixpoint, so "some graph
output has ``D`` false" is satisfiable exactly when some output never gets a
value. Python only lists the facts; the solver's propagation does the joins.

* search mode: the clauses plus that disjunction; unsat = PROVED. A model is
  a counter-certificate found by the solver: its undefined tensors are closed
  (every writer of one has an undefined input); the witness follows them
  back from the output, and lists every undefined output (each found output
  excluded by an assumption literal, check repeated).
* certificate mode: an untrusted propagation gives firing times ``f`` and,
  per defined tensor, its time ``h`` and the fact defining it (a write of an
  operation with ``f <= h``, or a graph input, initializer or capture fact).
  Written in place in the instances: per read fact of a fired operation
  ``h(t) < f(o)``; per defined tensor, the named fact's tensor is ``t``
  (and for a write ``(o k t)``, ``f(o) <= h(t)``). The comparisons are an
  obligation of their own, written as GRAPH-ACYCLIC writes its ranks'
  (:mod:`sonnx.smt.ground`): on a model both rules accept, the two texts are
  the same and z3 solves it once.
  Times decrease along every justification, so the defined tensors are in
  the least fixpoint; a graph output without a record is not accepted.
  sat = PROVED.
* violations in certificate mode (no fallback to search): a counter-
  certificate, a set ``S`` of tensors given as ``(S t)`` units for every
  tensor, and per operation that never fires one of its read facts whose
  tensor is in ``S``. Checks: no seed fact's tensor is in ``S``; every write
  fact of a tensor in ``S`` comes from an operation whose named read is in
  ``S``; the claimed outputs are in ``S``. Such an ``S`` contains no defined
  tensor (induction on the fixpoint). Written as a refutation: the units and
  "some check fails" are unsat exactly when every check holds (z3's unit
  propagation decides it in linear time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.witness import LIMIT, brief, first
from ...rules.graph_c3 import ID
from .. import ground
from ..arrays import I64, as_np, distinct_mixed
from ..certify import CAPTURE, INIT, INPUT, WRITE, Derivation, blocked_reads, derivation, index_of
from ..common import (
    Encoding,
    Group,
    Proof,
    ProofContext,
    RuleResult,
    ask_one,
    certificate_groups,
    facts_lines,
    or_all,
    settled,
    unknown,
    violated,
)
from ..counter import NONE, TENSOR, Builder, Checks, key, refute, sizes
from ..facts import ScopeFacts
from ..smtlib import Obligation
from ..solver import Answer, Session, SolverSettings
from ..undefined_chain import chain, step_record

NOTE = (
    "; raw facts: (gi s k t) t is input k of graph s; (iv s t) t has an initial value; (cp t u) nested-graph"
    " name t is captured from u; (rd o k t) o reads t at input k; (wr o k t) o writes t at output k;"
    " (go s k t) t is output k of graph s"
)


def _horn(facts: Sequence[ScopeFacts]) -> list[str]:
    out = [
        NOTE,
        "; rule: Horn clauses of the definedness fixpoint; D t: t is defined, F o: o fires",
        "(declare-fun D (Int) Bool)",
        "(declare-fun F (Int) Bool)",
        "(define-fun gi ((s Int) (k Int) (t Int)) Bool (D t))",
        "(define-fun iv ((s Int) (t Int)) Bool (D t))",
        "(define-fun cp ((t Int) (u Int)) Bool (D t))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (D t))",
        "(define-fun wr ((o Int) (k Int) (t Int)) Bool (=> (F o) (D t)))",
        "(define-fun go ((s Int) (k Int) (t Int)) Bool (not (D t)))",
    ]
    lines: list[str] = []
    for f in facts:
        s = f.index
        lines.extend(f"(gi {s} {k} {t})" for k, t in f.inputs)
        lines.extend(f"(iv {s} {t})" for t in f.initialized)
        lines.extend(f"(cp {t} {u})" for t, u in f.captures)
        for j in range(f.n):
            reads = " ".join(f"(rd {o} {k} {t})" for o, k, t in f.reads_of(j))
            lines.append(f"(=> (and {reads} true) (F {f.op_base + j}))")
        lines.extend(f"(wr {o} {k} {t})" for o, k, t in f.writes())
    out.extend(facts_lines(lines))
    goal = [f"(go {f.index} {k} {t})" for f in facts for k, t in f.outputs]
    out.append("; violation: some graph output is not defined")
    out.append(f"(assert {or_all(goal)})")
    return out


def _outputs(facts: Sequence[ScopeFacts]) -> list[tuple[ScopeFacts, int]]:
    return [(f, t) for f in facts for t in dict.fromkeys(t for _, t in f.outputs)]


def _report(found: list[tuple[ScopeFacts, int]], undefined: Any, mode: str, obs: list[Obligation]) -> RuleResult:
    f0, t0 = found[0]
    steps, end = chain(f0, undefined, t0)
    root = f0.name(steps[-1][0])
    name = f0.name(t0)
    shown = [f"{f.name(t)!r} (in {f.path})" for f, t in found]
    return RuleResult(
        violated(
            ID,
            f"{len(found)} graph output(s) never get a value: {brief(shown, 3)}; "
            f"{name!r} traces back to {root!r} ({end})",
            {
                "count": len(found),
                "undefined": [{"scope": f.path, "output": f.name(t)} for f, t in first(found)],
                "chain_scope": f0.path,
                "chain": [step_record(f0, x) for x in steps[:LIMIT]],
                "chain_length": len(steps),
                "root": root,
                "ends": end,
            },
            mode,
        ),
        obs,
    )


def _d_values(ans: Answer, ids: Any) -> dict[int, bool]:
    import z3

    m = ans.solver.model()
    d = z3.Function("D", z3.IntSort(ans.ctx), z3.BoolSort(ans.ctx))
    return {t: z3.is_true(m.eval(d(z3.IntVal(t, ans.ctx)), model_completion=True)) for t in ids}


def _search(facts: Sequence[ScopeFacts], settings: SolverSettings) -> Proof:
    ob = Obligation(
        ID,
        "c3.undefined_output",
        "QF_UFLIA",
        _horn(facts),
        "unsat",
        "search",
        "in the least fixpoint of the definedness clauses, some graph output is not defined",
    )
    ans = yield from ask_one(ob, local=True)
    done = settled(ID, ob, ans, "search")
    if done is not None:
        return done
    outs = _outputs(facts)
    guards = "".join(f"(declare-fun y{t} () Bool)(assert (=> y{t} (D {t})))\n" for _, t in outs)
    session = Session(ob.script() + guards, settings)
    found: list[tuple[ScopeFacts, int]] = []
    seen_by: dict[int, dict[int, bool]] = {}
    a = ans
    while a.result == "sat":
        vals = _d_values(a, [t for _, t in outs])
        new = [(f, t) for f, t in outs if not vals[t] and (f, t) not in found]
        if not new:
            return RuleResult(unknown(ID, "the model shows no new undefined output (a tool defect)", "search"), [ob])
        for f, t in new:
            seen_by[t] = _d_values(a, range(f.t_base, f.t_base + f.n_tensors))
        found.extend(new)
        a = session.check([f"y{t}" for _, t in found])
    if a.result == "unknown":
        return RuleResult(unknown(ID, a.reason, "search"), [ob])
    order = {(f.index, t): i for i, (f, t) in enumerate(outs)}
    found.sort(key=lambda p: order[(p[0].index, p[1])])
    model = seen_by[found[0][1]]
    return _report(found, lambda t: not model.get(t, True), "search", [ob])


Times = dict[int, Derivation]


def _first_bad(bad: np.ndarray, ids: np.ndarray) -> None:
    """A missing or unusable record makes the certificate unusable: KeyError naming the first id concerned."""
    if bad.any():
        raise KeyError(int(ids[np.flatnonzero(bad)[0]]))


def certificate_body(facts: Sequence[ScopeFacts], cert: Times) -> list[Group]:
    """Instances with the untrusted times in place; a missing record makes the certificate unusable (KeyError).

    Three conjunctions. The order (:func:`.ground.comparisons`, as
    GRAPH-ACYCLIC writes its ranks), per scope: per read fact of a fired
    operation ``(< h(t) f(o))``, in fact order; per tensor defined by a
    write ``(o k t)`` ``(<= f(o) h(t))``, in write-fact order. The writes
    (:func:`.ground.equalities`, as GRAPH-R1 writes its named uses): per
    tensor defined by a write, that the write's tensor is ``t``. The other
    records, per scope: per tensor defined by a graph input, initializer or
    capture (ascending ids) that the named fact's tensor is ``t``; per graph
    output ``(<= 0 h(t))``.
    """
    kinds, left, right = [], [], []
    rec_kinds, rec_left, rec_right = [], [], []
    eq_left, eq_right = [], []

    for f in facts:
        c, ix = cert[f.index], index_of(f)
        fire, time, how, fact = (as_np(x) for x in (c.fire, c.time, c.how, c.fact))
        _first_bad((fire != -1) & (fire < 1), np.arange(f.n))
        fired = np.flatnonzero(fire[ix.rd_j] != -1)
        x = ix.rd_x[fired]
        _first_bad(time[x] == -1, x + f.t_base)
        defined = np.flatnonzero(time != -1)
        kind, k = how[defined], fact[defined]
        named = np.zeros(len(defined), I64)  # the tensor of the fact named for each defined tensor
        for code, tensors in (
            (INPUT, as_np([t for _, t in f.inputs])),
            (INIT, as_np(f.initialized)),
            (CAPTURE, as_np([t for t, _ in f.captures])),
            (WRITE, as_np(f.wr_t)),
        ):
            at = np.flatnonzero(kind == code)
            named[at] = tensors[k[at]]
        _first_bad((kind < INPUT) | (kind > WRITE), defined + f.t_base)
        writes = np.flatnonzero(kind == WRITE)
        writes = writes[np.argsort(k[writes], kind="stable")]  # in the order of their write facts
        writer = fire[ix.wr_j[k[writes]]]
        _first_bad(writer == -1, defined[writes] + f.t_base)
        kinds += [np.full(len(x), ground.READ, I64), np.full(len(writes), ground.WRITE, I64)]
        left += [time[x], writer]
        right += [fire[ix.rd_j[fired]], time[defined[writes]]]
        out = as_np([t for _, t in f.outputs]) - f.t_base
        _first_bad(time[out] == -1, out + f.t_base)
        seeds = np.flatnonzero(kind != WRITE)
        eq_left.append(defined[writes] + f.t_base)
        eq_right.append(named[writes])
        rec_kinds += [np.full(len(seeds), EQ, I64), np.full(len(out), LE, I64)]
        rec_left += [defined[seeds] + f.t_base, np.zeros(len(out), I64)]
        rec_right += [named[seeds], time[out]]
    joined = [np.concatenate(c) for c in (kinds, left, right)]
    records = distinct_mixed(TEMPLATES, *(np.concatenate(c) for c in (rec_kinds, rec_left, rec_right)))
    return [
        (
            "c3.certificate.order",
            list(ground.HEAD),
            ground.comparisons(*joined),
            "the given firing times f(o) and definition times h(t) (the numbers of the comparisons) satisfy"
            " h(t) < f(o) for every read fact of a fired operation and f(o) <= h(t) for every write that defines t",
        ),
        (
            "c3.certificate.writes",
            list(ground.EQUALITY_HEAD),
            ground.equalities(np.concatenate(eq_left), np.concatenate(eq_right)),
            "the write fact named as defining each tensor a write defines is a write of that tensor",
        ),
        (
            "c3.certificate",
            [
                "; certificate: per tensor t defined without a write by the untrusted propagation, the fact it names",
                ";   as defining t (a graph input, initializer or capture fact, its tensor in place) is a fact of t;",
                ";   every graph output has a record (its time h in place, at least 0); identical instances once",
            ],
            records,
            "the fact named as defining each tensor defined without a write is a fact of that tensor, and every"
            " graph output is defined",
        ),
    ]


EQ, LE = 0, 1
TEMPLATES = ["(= {} {})", "(<= {} {})"]


def check_certificate(facts: Sequence[ScopeFacts], cert: Times) -> Proof:
    return certificate_groups(
        ID,
        lambda: certificate_body(facts, cert),
        "definedness certificate",
        missing="the definedness certificate is incomplete at",
    )


Blocked = dict[int, tuple[set[int], dict[int, int], list[int]]]
"""scope -> (S: undefined tensors, blocked read per never-firing local operation, claimed undefined outputs)."""

GI, IV, CP, BW_FALSE, BW_READ, GO = range(6)
COUNTER = [
    "(gi {} {} {})",
    "(iv {} {})",
    "(cp {} {})",
    "(bw (wr {} {} {}) false)",
    "(bw (wr {} {} {}) (rd {} {} {}))",
    "(go {} {} {})",
]
"""The checks of the never-defined set, one template per kind of fact (the meaning is in the obligation's head)."""


def counter_body(facts: Sequence[ScopeFacts], cc: Blocked) -> Checks:
    """Checks per scope in fact order: seeds (inputs, initializers, captures), every write, the claimed outputs."""
    _, n_tensors = sizes(facts)
    members = np.zeros(n_tensors, bool)
    build = Builder(COUNTER, 6)
    order: list[np.ndarray] = []
    for f in facts:
        s = f.index
        inside, blocked, outs = cc[s]
        members[as_np(sorted(inside))] = True
        order.append(key(TENSOR, np.arange(f.t_base, f.t_base + f.n_tensors)))
        gi = as_np([x for pair in f.inputs for x in pair]).reshape(-1, 2)
        build.add(GI, [np.full(len(gi), s, I64), gi[:, 0], gi[:, 1]], [key(TENSOR, gi[:, 1])])
        iv = as_np(f.initialized)
        build.add(IV, [np.full(len(iv), s, I64), iv], [key(TENSOR, iv)])
        cp = as_np([x for pair in f.captures for x in pair]).reshape(-1, 2)
        build.add(CP, [cp[:, 0], cp[:, 1]], [key(TENSOR, cp[:, 0])])
        wr_o, wr_t = as_np(f.wr_o), as_np(f.wr_t)
        named = np.full(f.n, -1, I64)  # the named read fact of each operation that never fires
        if blocked:
            named[as_np(list(blocked))] = as_np(list(blocked.values()))
        r = named[wr_o - f.op_base]
        has = r >= 0
        r = np.where(has, r, 0)
        rd_o, rd_k, rd_t = (as_np(x)[r] if len(x) else np.zeros(len(r), I64) for x in (f.rd_o, f.rd_k, f.rd_t))
        build.add(
            np.where(has, BW_READ, BW_FALSE),
            [wr_o, as_np(f.wr_k), wr_t, rd_o, rd_k, rd_t],
            [key(TENSOR, wr_t), np.where(has, key(TENSOR, rd_t), NONE)],
        )
        go = as_np([x for pair in f.outputs if pair[1] in outs for x in pair]).reshape(-1, 2)
        build.add(GO, [np.full(len(go), s, I64), go[:, 0], go[:, 1]], [key(TENSOR, go[:, 1])])
    head = [
        NOTE,
        "; counter-certificate from an untrusted propagation: S (units for every tensor) never gets a value, and",
        ";   each operation that never fires names one read fact; check: no seed in S, every write of a tensor",
        ";   in S is by an operation whose named read is in S, the claimed outputs are in S.",
        ";   Refutation: unsat = every check holds",
        "(declare-fun S (Int) Bool)",
        "(define-fun gi ((s Int) (k Int) (t Int)) Bool (not (S t)))",
        "(define-fun iv ((s Int) (t Int)) Bool (not (S t)))",
        "(define-fun cp ((t Int) (u Int)) Bool (not (S t)))",
        "(define-fun wr ((o Int) (k Int) (t Int)) Bool (S t))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (S t))",
        "(define-fun bw ((w Bool) (r Bool)) Bool (=> w r))",
        "(define-fun go ((s Int) (k Int) (t Int)) Bool (S t))",
    ]
    return build.checks(head, ("", "S"), (np.zeros(0, bool), members), np.concatenate(order))


def check_counter(facts: Sequence[ScopeFacts], cc: Blocked) -> Proof:
    obs: list[Obligation] = []
    failed = yield from refute(
        ID,
        "c3.never_defined",
        counter_body(facts, cc),
        "the claimed set of never-defined tensors fails a check (unsat: it is closed and holds the claimed outputs)",
        "never-defined set",
        "certificate",
        obs,
    )
    if failed is not None:
        return failed
    found = [(f, t) for f in facts for t in dict.fromkeys(t for _, t in f.outputs) if t in cc[f.index][2]]
    members = set().union(*(cc[f.index][0] for f in facts))
    return _report(found, lambda t: t in members, "certificate", obs)


def prove(ctx: ProofContext) -> Proof:
    facts, settings, mode = ctx.facts, ctx.settings, ctx.mode
    if mode != "certificate":
        return (yield from _search(facts, settings))
    cert: Times = {}
    cc: Blocked = {}
    bad = False
    for f in facts:
        ix = index_of(f)
        der = cert[f.index] = derivation(f, ix)
        undefined = der.time == -1
        outs = [t for _, t in f.outputs if undefined[t - f.t_base]]
        members = set((np.flatnonzero(undefined) + f.t_base).tolist())
        cc[f.index] = (members, blocked_reads(f, ix, der), outs)
        bad = bad or bool(outs)
    if bad:
        return (yield from check_counter(facts, cc))
    return (yield from check_certificate(facts, cert))


ENCODING = Encoding(ID, prove)
"""GRAPH-C3 in the table of :mod:`sonnx.smt.registry`."""
