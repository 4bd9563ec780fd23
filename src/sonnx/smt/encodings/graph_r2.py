"""GRAPH-R2 as SMT: the determinism table, rendered as a formula over each operation's raw facts.

Classification (:mod:`.classify`): the determinism table rendered as a
function ``cls`` of an operation's raw facts; every operation's facts are an
instance ``c = cls(...)`` (operations with identical facts share one), and
the solver evaluates the table's conditions on them. The table's entries are
the trusted base both engines share (spec, GRAPH-R2); the evaluation is the
solver's.

GRAPH-R2: obligation ``r2.certain``: some instance has class 2
(nondeterministic); sat = VIOLATED, the model gives every operation's class
and the deciding entry (the reasons); a duplicate-index witness proposed by an
untrusted sort is checked there too. Otherwise ``r2.possible``: some instance
has class 1 or 2; sat = UNKNOWN (the model names the operations whose
determinism is not established), unsat = PROVED.

A call of a function that shadows a standard operator is one more instance,
the operator with the call's facts (:mod:`.function_calls`): its class counts
for GRAPH-R2 as an operation's does, and the classes handed to
GRAPH-DETERMINISM give the operations writing its outputs that class.

GRAPH-DETERMINISM (:mod:`.graph_determinism`) reads the classes decided here.
"""


from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...base.witness import brief, op_ref
from ...model.graph import Model
from ...rules import graph_r2 as direct
from ...rules.declarations import Declarations
from ...rules.graph_r2 import ID
from ..classify import Instance, Lister, reason, table_formula, with_call_graphs
from ..common import Classes, Encoding, Proof, ProofContext, RuleResult, ask_one, or_all, proved, unknown, violated
from ..facts import ScopeFacts
from ..function_calls import Call, shadowing_calls, writers
from ..smtlib import Obligation
from ..solver import Answer, model_values

DET, UNK, NONDET = 0, 1, 2
CALL = -1
"""The scope index of a call's key (``CALL``, number of the call) among the members of an instance."""


def _groups(
    model: Model, facts: Sequence[ScopeFacts], calls: Sequence[Call], decls: Declarations | None = None
) -> tuple[Lister, list[Instance], list[list[tuple[int, int]]]]:
    lister = Lister(model, facts, [c.op for c in calls], decls)
    index: dict[str, int] = {}
    insts: list[Instance] = []
    members: list[list[tuple[int, int]]] = []
    for f in facts:
        for j in range(f.n):
            inst = lister.instance(f, j)
            g = index.get(inst.term)
            if g is None:
                g = index[inst.term] = len(insts)
                insts.append(inst)
                members.append([])
            members[g].append((f.index, j))
    for k, c in enumerate(calls):
        inst = with_call_graphs(lister.instance_of(c.facts, c.op), c.op)
        g = index.setdefault(inst.term, len(insts))
        if g == len(insts):
            insts.append(inst)
            members.append([])
        members[g].append((CALL, k))
    return lister, insts, members


def _split(classes: Classes, calls: Sequence[Call]) -> tuple[Classes, Classes, list[dict[str, Any]]]:
    """The operations' classes; the same with every call's writers given the call's class (for
    GRAPH-DETERMINISM); R2's entries for the calls not of class 0, each with its ``class``."""
    ops = {k: v for k, v in classes.items() if k[0] != CALL}
    merged = dict(ops)
    found: list[dict[str, Any]] = []
    for (s, k), (c, r) in classes.items():
        if s != CALL:
            continue
        call = calls[k]
        reason = f"as {call.standard}: {r}"
        found.append({"class": c, "scope": call.facts.path, "operation": call.label, "function": call.function,
                      "standard_operator": call.standard, "reason": reason})
        for j in writers(call):
            key = (call.facts.index, j)
            merged[key] = max(merged.get(key, (DET, "")), (c, f"it writes an output of {call.label}, {reason}"))
    return ops, dict(sorted(merged.items())), found


def _body(lister: Lister, insts: list[Instance]) -> list[str]:
    out = [
        "; raw facts per operation, as arguments of cls: domain and operator codes, schema since-version (0: none),",
        ";   is_test, sorted (0 absent, 1 INT, 2 other; value), reduction (0 absent, 1 none, 2 other), inputs 0-2",
        ";   given, to (kind, value), CastLike target element type, and the condition terms over constant inputs",
        *lister.codes.legend(),
        *table_formula(lister.codes),
    ]
    for g, inst in enumerate(insts):
        out.append(f"(declare-fun c{g} () Int)")
        out.append(f"(assert (= c{g} {inst.term}))")
    return out


def _codes(ans: Answer, n: int) -> dict[int, int]:
    vals = model_values(ans, [f"c{g}" for g in range(n)])
    return {g: int(v) for g, v in ((int(k[1:]), v) for k, v in vals.items()) if isinstance(v, int)}


def prove(ctx: ProofContext) -> Proof:
    """R2's verdict, with every operation's class from the solver's model in the result (None when not known).

    Both obligations are solved in this process (``local``): a ``sat`` answer's model gives the classes.
    """
    model, facts, mode = ctx.model, ctx.facts, ctx.mode
    calls = shadowing_calls(model, facts)
    lister, insts, members = _groups(model, facts, calls, ctx.declarations)
    body = _body(lister, insts)
    checks = [f"(assert (=> (= (mod c{g} 4) 2) {i.check}))" for g, i in enumerate(insts) if i.check]
    certain = Obligation(
        ID,
        "r2.certain",
        "ALL",
        body + checks + [f"(assert {or_all([f'(= (mod c{g} 4) 2)' for g in range(len(insts))])})"],
        "unsat",
        mode,
        "some operation's facts put it in the table's nondeterministic class",
    )
    ans = yield from ask_one(certain, local=True)
    if ans.result == "unknown":
        return RuleResult(unknown(ID, ans.reason, mode), [certain])
    if ans.result == "sat":
        ops, classes, found = _split(_classes(facts, insts, members, _codes(ans, len(insts))), calls)
        bad = [(k, r) for k, (c, r) in ops.items() if c == NONDET]
        n_unknown = sum(1 for c, _ in ops.values() if c == UNK) + sum(1 for x in found if x["class"] == UNK)
        listed = [{**op_ref(facts[s].path, j, facts[s].graph.operations[j]), "reason": r} for (s, j), r in bad]
        listed += [{k: v for k, v in x.items() if k != "class"} for x in found if x["class"] == NONDET]
        return RuleResult(violated(ID, *direct.nondeterministic(listed, n_unknown), mode), [certain], classes)
    possible = Obligation(
        ID,
        "r2.possible",
        "ALL",
        [*body, f"(assert {or_all([f'(<= 1 (mod c{g} 4))' for g in range(len(insts))])})"],
        "unsat",
        mode,
        "some operation's facts put it in the table's nondeterministic or unknown class",
    )
    ans2 = yield from ask_one(possible, local=True)
    if ans2.result == "unsat":
        return RuleResult(proved(ID, mode), [certain, possible], {})
    if ans2.result == "unknown":
        return RuleResult(unknown(ID, ans2.reason, mode), [certain, possible])
    ops, classes, found = _split(_classes(facts, insts, members, _codes(ans2, len(insts))), calls)
    open_ = [r for c, r in ops.values() if c == UNK] + [x["reason"] for x in found if x["class"] == UNK]
    reasons = list(dict.fromkeys(open_))
    n = len(open_)
    return RuleResult(
        unknown(ID, f"{direct.undetermined(n)}: {brief(reasons, 3)}", mode), [certain, possible], classes
    )


def _classes(
    facts: Sequence[ScopeFacts], insts: list[Instance], members: list[list[tuple[int, int]]], codes: dict[int, int]
) -> Classes:
    out: Classes = {}
    for g, inst in enumerate(insts):
        code = codes[g]
        if code % 4:
            for key in members[g]:
                out[key] = (code % 4, reason(code, inst))
    return dict(sorted(out.items()))


ENCODING = Encoding(ID, prove)
"""GRAPH-R2 in the table of :mod:`sonnx.smt.registry` (its result carries the classes GRAPH-DETERMINISM reads)."""
