"""GRAPH-C2 as SMT: no graph input is left unread.

The rule's violation as a formula over the raw facts: an unknown tensor ``w``
that is a graph input (a disjunction over the graph-input facts), is not one
of the two inputs a ``Loop`` imposes on its body (the loop-body facts), and
differs from the tensor of every read fact (implicit inputs of nested graphs
included). Tensor ids are per graph, so a read in another graph never counts.
The solver decides; Python only lists the facts.

* search mode: unsat = PROVED; a model gives ``w``, an unread input; the
  witness lists every unread input (each found input is excluded by an
  assumption literal and the check repeated).
* certificate mode: an untrusted search names, for every graph-input fact,
  a read fact of the same tensor (or the imposed Loop position of the same
  name); each claim is written as the ground equality of the two tensor ids
  (with the position and loop-body facts), and z3 evaluates them; sat =
  PROVED.
* violations in certificate mode: the claimed unread inputs are marked by
  ``U``; every read fact asserts that its tensor is not marked; sat confirms
  that the claimed inputs are read by no read fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...rules import graph_c2 as direct
from ...rules.graph_c2 import ID
from ..certify import index_of, input_readers
from ..common import (
    Encoding,
    Proof,
    ProofContext,
    RuleResult,
    ask_one,
    certificate_verdict,
    conj,
    facts_lines,
    listed,
    or_all,
    rejected,
    settled,
    unknown,
)
from ..facts import ScopeFacts, scope_of_tensor
from ..smtlib import Obligation
from ..solver import Session, SolverSettings, model_values

LOGIC = "QF_UFLIA"

FACTS_NOTE = (
    "; raw facts: (gi s k t) tensor t is input k of graph s; (rd o k t) operation o reads t at input k;"
    " (lb s) graph s is the body of a Loop"
)


def _lb_facts(facts: Sequence[ScopeFacts]) -> list[str]:
    return [f"(lb {f.index})" if f.loop_body else f"(not (lb {f.index}))" for f in facts if f.inputs]


def _reads(facts: Sequence[ScopeFacts]) -> list[str]:
    out: list[str] = []
    for f in facts:
        out.extend(f"(rd {o} {k} {t})" for o, k, t in f.reads())
    return out


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    cands = [f"(in {f.index} {k} {t})" for f in facts for k, t in f.inputs]
    body = [
        FACTS_NOTE,
        "; rule (violation): w is a graph input, not imposed by a Loop, and read by no read fact",
        "(declare-fun w () Int)",
        "(declare-fun lb (Int) Bool)",
        "(define-fun in ((s Int) (k Int) (t Int)) Bool (= w t))",
        "(define-fun gi ((s Int) (k Int) (t Int)) Bool (=> (and (< k 2) (lb s)) (distinct w t)))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (distinct w t))",
        *facts_lines(_lb_facts(facts)),
        f"(assert {or_all(cands)})",
        *facts_lines(f"(gi {f.index} {k} {t})" for f in facts for k, t in f.inputs),
        *facts_lines(_reads(facts)),
    ]
    return Obligation(ID, "c2.unread_input", LOGIC, body, "unsat", "search", "some graph input is read by no read fact")


def _entry(facts: Sequence[ScopeFacts], t: int) -> dict[str, Any]:
    f = scope_of_tensor(facts, t)
    k = next(k for k, x in f.inputs if x == t)
    return {"scope": f.path, "input": f.name(t), "position": k}


def _search(facts: Sequence[ScopeFacts], settings: SolverSettings) -> Proof:
    ob = search_obligation(facts)
    ans = yield from ask_one(ob, local=True)
    done = settled(ID, ob, ans, "search")
    if done is not None:
        return done
    ids = sorted({t for f in facts for _, t in f.inputs})
    guards = [f"(declare-fun x{t} () Bool)\n(assert (=> x{t} (distinct w {t})))" for t in ids]
    session = Session(ob.script() + "\n".join(guards), settings)
    found: list[int] = []
    a = ans
    while a.result == "sat":
        w = model_values(a, ["w"]).get("w")
        if not isinstance(w, int) or w in found or w not in ids:
            return RuleResult(
                unknown(ID, "the model of the violation names no new graph input (a tool defect)", "search"), [ob]
            )
        found.append(w)
        a = session.check([f"x{t}" for t in found])
    if a.result == "unknown":
        return RuleResult(unknown(ID, a.reason, "search"), [ob])
    return listed(ID, sorted((_entry(facts, t) for t in found), key=_order(facts)), direct.LISTING, "search", [ob])


def _order(facts: Sequence[ScopeFacts]) -> Any:
    rank = {f.path: f.index for f in facts}
    return lambda x: (rank[x["scope"]], x["position"])


def certificate_body(
    facts: Sequence[ScopeFacts], claims: dict[int, dict[int, tuple[str, int]]]
) -> tuple[list[str], list[str]]:
    items: list[str] = []
    for f in facts:
        lb = "true" if f.loop_body else "false"
        for k, t in f.inputs:
            how, x = claims[f.index][k]
            if how == "exempt":
                items.append(f"(and (= {t} {dict(f.inputs)[x]}) (< {x} 2) {lb})")
            else:
                items.append(f"(= {t} {f.rd_t[x]})")
    return [
        "; certificate: per graph-input fact (gi s k t), a read fact of t named by an untrusted search",
        ";   (t = the read fact's tensor), or an input position below 2 of the same name in a Loop body;",
        ";   each claim checked in place",
    ], list(dict.fromkeys(items))


def check_certificate(facts: Sequence[ScopeFacts], claims: dict[int, dict[int, tuple[str, int]]]) -> Proof:
    return certificate_verdict(
        ID,
        "c2.certificate",
        lambda: certificate_body(facts, claims),
        "every graph input is the tensor of the read fact (or imposed Loop input) named for it",
        "input-reader certificate",
    )


def _counter(facts: Sequence[ScopeFacts], unread: list[tuple[ScopeFacts, int, int]]) -> Proof:
    body = [
        FACTS_NOTE,
        "; counter-certificate: the inputs an untrusted search claims unread are marked by U;",
        ";   (cl s k t): the claimed input fact is marked and not imposed by a Loop;",
        ";   every read fact's tensor is unmarked",
        "(declare-fun U (Int) Bool)",
        "(declare-fun lb (Int) Bool)",
        "(define-fun cl ((s Int) (k Int) (t Int)) Bool (and (U t) (not (and (< k 2) (lb s)))))",
        "(define-fun gi ((s Int) (k Int) (t Int)) Bool (=> (and (< k 2) (lb s)) (not (U t))))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (not (U t)))",
        *facts_lines(_lb_facts(facts)),
        *facts_lines(f"(cl {f.index} {k} {t})" for f, k, t in unread),
        *conj(f"(gi {f.index} {k} {t})" for f in facts for k, t in f.inputs),
        *conj(_reads(facts)),
    ]
    ob = Obligation(
        ID, "c2.unread", LOGIC, body, "unsat", "certificate", "the claimed graph inputs are read by no read fact"
    )
    ans = yield from ask_one(ob)
    if ans.result == "unknown":
        return RuleResult(unknown(ID, ans.reason, "certificate"), [ob])
    if ans.result != "sat":
        return rejected(ID, ob, "claimed unread inputs", "certificate")
    return listed(ID, [_entry(facts, t) for _, _, t in unread], direct.LISTING, "certificate", [ob])


def prove(ctx: ProofContext) -> Proof:
    facts, settings, mode = ctx.facts, ctx.settings, ctx.mode
    if mode != "certificate":
        return (yield from _search(facts, settings))
    claims: dict[int, dict[int, tuple[str, int]]] = {}
    unread: list[tuple[ScopeFacts, int, int]] = []
    for f in facts:
        if not f.inputs:
            continue
        c, u = input_readers(f, index_of(f))
        claims[f.index] = c
        unread.extend((f, k, t) for k, t in u)
    if unread:
        return (yield from _counter(facts, unread))
    return (yield from check_certificate(facts, claims))


ENCODING = Encoding(ID, prove)
"""GRAPH-C2 in the table of :mod:`sonnx.smt.registry`."""
