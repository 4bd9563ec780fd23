"""GRAPH-C3 as SMT: the definedness fixpoint gives every graph output a value.

Obligation (violation search): the firing-time equations of
:mod:`.fixpoint` for every graph (seeds: graph inputs, initializers, and in a
nested graph the captured names an enclosing graph defines), and the
assertion that some graph output has time ``INF`` (never defined). The
equations have one solution, so unsatisfiable means every output is defined
(PROVED), and a model gives exactly the undefined outputs and, following
undefined inputs back from the first one, the chain to its root.

Certificate mode: the times from an untrusted propagation are written in
place of the firing-time constants, and each tensor's time is replaced by its
defining term (the minimum of its producers' times, ``0`` when seeded,
``INF`` with no producer), so the script is one ground equation per
operation plus "no output is INF" (repeated ground assertions written once,
see :func:`.common.distinct`): z3 evaluates every equation, and
satisfiable means the certificate is the solution (the equations have only
one) and the rule holds. Otherwise the rule is decided in search mode.
[Substituting the tensor equations is what keeps the script near 60 bytes per
operation: z3's parser costs about 1 s per MB, measured.]
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ..witness import LIMIT, brief, first
from .common import RuleResult, certificate_or_search, distinct, or_all, settle, unknown, violated
from .facts import ScopeFacts, total_operations
from .fixpoint import capped_step, firing_times, nested
from .smtlib import Obligation
from .solver import SolverSettings, model_values

ID = "GRAPH-C3"
LOGIC = "QF_LIA"


class _Enc:
    def __init__(self, facts: Sequence[ScopeFacts]) -> None:
        self.facts = facts
        self.inf = total_operations(facts) + 1
        self.tid: List[Dict[str, int]] = []
        self.outputs: List[Tuple[ScopeFacts, str, str]] = []

    def hvar(self, s: int, t: str, seeded: frozenset[str]) -> str:
        if t in seeded:
            return "0"
        ids = self.tid[s]
        k = ids.get(t)
        if k is None:
            k = ids[t] = len(ids)
        return f"h{s}_{k}"

    def body(self) -> List[str]:
        out: List[str] = []
        inf = self.inf
        for f in self.facts:
            self.tid.append({})
            seeded = f.seeded()
            s = f.index
            prods = f.producer_lists()
            for names in f.req:
                for t in names:
                    self.hvar(s, t, seeded)
            for o in f.graph.outputs:
                self.hvar(s, o, seeded)
            out.extend(f"(declare-fun h{s}_{k} () Int)" for k in self.tid[s].values())
            out.extend(f"(declare-fun f{s}_{j} () Int)" for j in range(f.n))
            for j, names in enumerate(f.req):
                v = f"f{s}_{j}"
                hs = list(dict.fromkeys(self.hvar(s, t, seeded) for t in names if t not in seeded))
                if not hs:
                    out.append(f"(assert (= {v} 1))")
                else:
                    m = nested(">=", hs)
                    out.append(f"(assert (= {v} (ite (>= {m} {inf}) {inf} (+ {m} 1))))")
            for o in dict.fromkeys(f.graph.outputs):
                if o not in seeded:
                    self.outputs.append((f, o, self.hvar(s, o, seeded)))
            for t, k in list(self.tid[s].items()):
                v = f"h{s}_{k}"
                ps = prods.get(t, [])
                rhs = nested("<=", [f"f{s}_{p}" for p in ps]) if ps else str(inf)
                out.append(f"(assert (= {v} {rhs}))")
        return out


def _search(facts: Sequence[ScopeFacts], settings: SolverSettings) -> RuleResult:
    enc = _Enc(facts)
    body = enc.body()
    body.append(f"(assert {or_all([f'(= {v} {enc.inf})' for _, _, v in enc.outputs])})")
    ob = Obligation(
        ID,
        "c3.undefined_output",
        LOGIC,
        body,
        "unsat",
        "search",
        "with the least firing times (unique solution of the equations), some graph output is never defined",
    )
    ans, settled = settle(ID, ob, settings, "search")
    if settled is not None:
        return settled
    vals = model_values(ans, [v for _, _, v in enc.outputs])
    found = [(f, o) for f, o, v in enc.outputs if vals.get(v) == enc.inf]
    if not found:
        return RuleResult(
            unknown(ID, "the model of the violation has no undefined output (a tool defect)", "search"), [ob]
        )
    f0, name = found[0]
    steps, end = _chain(ans, enc, f0, name)
    root = steps[-1]["tensor"]
    shown = [f"{nm!r} (in {f.path})" for f, nm in found]
    return RuleResult(
        violated(
            ID,
            f"{len(found)} graph output(s) never get a value: {brief(shown, 3)}; "
            f"{name!r} traces back to {root!r} ({end})",
            {
                "count": len(found),
                "undefined": [{"scope": f.path, "output": nm} for f, nm in first(found)],
                "chain_scope": f0.path,
                "chain": steps[:LIMIT],
                "chain_length": len(steps),
                "root": root,
                "ends": end,
            },
            "search",
        ),
        [ob],
    )


def _chain(ans: Any, enc: _Enc, f: ScopeFacts, name: str) -> Tuple[List[Dict[str, Any]], str]:
    """Follow undefined tensors back through their first producer, using the model's values."""
    seeded = f.seeded()
    ids = enc.tid[f.index]
    names = [f"h{f.index}_{k}" for k in ids.values()]
    vals = model_values(ans, names)
    ops = f.graph.operations

    def undefined(t: str) -> bool:
        return t not in seeded and vals.get(f"h{f.index}_{ids[t]}") == enc.inf

    steps: List[Dict[str, Any]] = []
    seen: set[str] = set()
    cur = name
    while cur not in seen:
        seen.add(cur)
        ps = f.producers(cur)
        if not ps:
            steps.append({"tensor": cur, "producer": None})
            return steps, "no producer"
        p = ps[0]
        missing = next((t for t in f.req[p] if undefined(t)), None)
        if missing is None:
            steps.append({"tensor": cur, "producer": {"index": p, "operation": ops[p].label}, "missing_input": None})
            return steps, "inconsistent model"
        steps.append({"tensor": cur, "producer": {"index": p, "operation": ops[p].label}, "missing_input": missing})
        cur = missing
    steps.append({"tensor": cur, "producer": None, "repeats": True})
    return steps, "cycle"


def _tensor_terms(
    entries: Dict[str, List[Tuple[int, int]]], ftime: List[int], inf: int
) -> Dict[str, str]:
    """Each assigned tensor's time as its defining term over the given firing times: min over its producers."""
    out: Dict[str, str] = {}
    for t, e in entries.items():
        if len(e) == 1:
            out[t] = str(ftime[e[0][0]])
        else:
            out[t] = nested("<=", [str(ftime[p]) for p in dict.fromkeys(p for p, _ in e)])
    return out


def _certificate_body(facts: Sequence[ScopeFacts]) -> List[str]:
    """Ground firing-time equations with the untrusted times in place, then "no graph output is INF".

    A seeded tensor's time is 0 and is left out of the maximum (it never
    delays an operation); a tensor no operation assigns has time INF.
    """
    inf = total_operations(facts) + 1
    never = str(inf)
    body: List[str] = []
    outputs: List[str] = []
    for f in facts:
        seeded = f.seeded()
        prods = f.producer_lists()
        ftime, _ = firing_times(f.n, f.req, prods, seeded, inf)
        h = _tensor_terms(f.entries, ftime, inf)
        for j, names in enumerate(f.req):
            hs = [h.get(t, never) for t in names if t not in seeded]
            if len(hs) > 1:
                hs = list(dict.fromkeys(hs))
            if not hs:
                body.append(f"(assert (= {ftime[j]} 1))")
            else:
                m = nested(">=", hs)
                body.append(f"(assert {capped_step(str(ftime[j]), m, inf)})")
        outputs.extend(f"(= {h.get(o, never)} {inf})" for o in dict.fromkeys(f.graph.outputs) if o not in seeded)
    body.append(f"(assert (not {or_all(distinct(outputs))}))")
    return distinct(body)


def prove(facts: Sequence[ScopeFacts], settings: SolverSettings, mode: str) -> RuleResult:
    if mode != "certificate":
        return _search(facts, settings)
    body = _certificate_body(facts)
    ob = Obligation(
        ID,
        "c3.certificate",
        LOGIC,
        body,
        "sat",
        "certificate",
        "the given firing times solve the definedness equations and every graph output gets a finite time",
    )
    return certificate_or_search(ID, ob, settings, lambda: _search(facts, settings))
