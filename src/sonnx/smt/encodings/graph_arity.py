"""GRAPH-ARITY as SMT: every position an operation's signature requires is named by a binding fact.

Raw facts, for every operation of every graph the file writes (the walk and
the signatures are :mod:`sonnx.rules.graph_arity`'s, a trusted base both
engines share, as the determinism table is for GRAPH-R2):

* ``(sg g s n f v m)``: on side ``s`` (0 inputs, 1 outputs) the operation's
  mapping has ``n`` entries, and its signature has ``f`` single or optional
  formals, ``v`` true when a variadic formal follows them, of minimum arity
  ``m``;
* ``(bd g s k)``: the entry at position ``k`` of side ``s`` names a tensor.

Operations with identical facts share one instance ``g`` (as GRAPH-R2's
operations with identical facts share a class term), so the script's size is
that of the distinct instances, not of the model. The rule's violation: an
instance ``w``, a side ``s`` and a position ``p`` such that ``p`` is below
``f``, or ``v`` holds and ``p`` is below ``f + m`` or below ``n``, and no
binding fact names ``(w, s, p)``: ``B``, the bound positions, is only forced
true by the binding facts, so the formula is satisfiable exactly when some
required position is left out. The join of signature facts, binding facts and
positions is the solver's.

* unsat = no position is left out: PROVED, unless some operation's signature
  is not known (then UNKNOWN, as in the direct rule, with the same reasons);
* sat = VIOLATED; each model gives one instance, side and position; it is
  excluded by an assumption literal and the check repeated until unsat, so the
  witness lists every position left out, for every operation of the instance.

The rule has no certificate: in certificate mode it is decided by the same
formula (its size does not grow with the number of operations).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ...base.verdict import Status
from ...base.witness import Offenders, brief, op_ref
from ...model.graph import Model, Operation
from ...rules.base import counted_reasons
from ...rules.declarations import Declarations
from ...rules.graph_arity import ID, LISTING, UNKNOWN_SIGNATURE, Side, Signature, Signatures, written_scopes
from ..common import Encoding, Proof, ProofContext, RuleResult, ask_one, facts_lines, or_all, settled, unknown, violated
from ..smtlib import Obligation
from ..solver import Session, model_values

LOGIC = "QF_UFLIA"

SideFacts = tuple[int, int, bool, int, tuple[int, ...] | None]
"""(entries n, fixed formals f, variadic v, minimum m, bound positions) of one side of one operation; None for
the bound positions when every entry names a tensor (the common case, written without building the tuple)."""


class Member(NamedTuple):
    path: str
    at: int
    """The operation's index in its graph."""
    op: Operation
    signature: Signature

    @property
    def label(self) -> str:
        """The operation's label, computed only when a witness names it."""
        return self.op.label


class Arity(NamedTuple):
    instances: list[tuple[SideFacts, SideFacts]]
    members: list[list[Member]]
    unknown: dict[str, int]
    """Why a signature is not known -> how many operations (those have no instance)."""


def _side(side: Side, mapping: Sequence[str]) -> SideFacts:
    bound = None if "" not in mapping else tuple(k for k, nm in enumerate(mapping) if nm)
    return (len(mapping), side.fixed, side.variadic, side.minimum, bound)


def _bound(n: int, bound: tuple[int, ...] | None) -> Sequence[int]:
    return range(n) if bound is None else bound


def arity_facts(model: Model, declarations: Declarations | None = None) -> Arity:
    """The instances (operations with identical facts share one) and the operations of each."""
    sigs = Signatures(model, declarations)
    index: dict[tuple[SideFacts, SideFacts], int] = {}
    # Most operations bind every position they write: their instance depends only on the signature and the two
    # entry counts, so it is looked up once per such triple (the signature objects are the lookup's cached ones).
    plain: dict[tuple[int, int, int], int] = {}
    held: list[Signature] = []
    out = Arity([], [], {})
    for sc in written_scopes(model):
        signature = sigs.in_scope(sc)
        for j, op in enumerate(sc.graph.operations):
            sig, why = signature(op)
            if sig is None:
                out.unknown[why] = out.unknown.get(why, 0) + 1
                continue
            ins, outs = op.input_mapping, op.output_mapping
            whole = "" not in ins and "" not in outs
            short = (id(sig), len(ins), len(outs))
            g = plain.get(short) if whole else None
            if g is None:
                key = (_side(sig.inputs, ins), _side(sig.outputs, outs))
                g = index.get(key)
                if g is None:
                    g = index[key] = len(out.instances)
                    out.instances.append(key)
                    out.members.append([])
                if whole:
                    plain[short] = g
                    held.append(sig)  # keeps id(sig) from being reused by another signature
            out.members[g].append(Member(sc.path, j, op, sig))
    return out


def _bool(v: bool) -> str:
    return "true" if v else "false"


def search_obligation(arity: Arity, mode: str) -> Obligation:
    facts: list[str] = []
    for g, sides in enumerate(arity.instances):
        for s, (n, f, v, m, bound) in enumerate(sides):
            facts.append(f"(sg {g} {s} {n} {f} {_bool(v)} {m})")
            facts.extend(f"(bd {g} {s} {k})" for k in _bound(n, bound))
    body = [
        "; raw facts: (sg g s n f v m) side s (0 inputs, 1 outputs) of instance g has n entries, its signature f",
        ";   single or optional formals then, when v, a variadic formal of minimum arity m;",
        ";   (bd g s k) the entry at position k of side s names a tensor",
        "; rule (violation): position p of side s of instance w is required (p < f, or v and p < f + m or p < n)",
        ";   and no binding fact names it (B is forced true by the binding facts only)",
        "(declare-fun w () Int)",
        "(declare-fun s () Int)",
        "(declare-fun p () Int)",
        "(declare-fun N () Int)",
        "(declare-fun F () Int)",
        "(declare-fun V () Bool)",
        "(declare-fun M () Int)",
        "(declare-fun B (Int Int Int) Bool)",
        "(define-fun sg ((g Int) (side Int) (n Int) (f Int) (v Bool) (m Int)) Bool",
        "  (=> (and (= w g) (= s side)) (and (= N n) (= F f) (= V v) (= M m))))",
        "(define-fun bd ((g Int) (side Int) (k Int)) Bool (B g side k))",
        f"(assert {or_all([f'(= w {g})' for g in range(len(arity.instances))])})",
        "(assert (or (= s 0) (= s 1)))",
        *facts_lines(facts),
        "(assert (and (<= 0 p) (or (< p F) (and V (or (< p (+ F M)) (< p N)))) (not (B w s p))))",
    ]
    return Obligation(
        ID, "arity.left_out", LOGIC, body, "unsat", mode, "some operation leaves a position its signature requires"
    )


def _candidates(arity: Arity) -> dict[tuple[int, int, int], str]:
    """A guard literal per position of every instance (untrusted: a model outside them is a tool defect)."""
    out: dict[tuple[int, int, int], str] = {}
    for g, sides in enumerate(arity.instances):
        for s, (n, f, v, m, _) in enumerate(sides):
            for k in range(max(n, f + (m if v else 0), f)):
                out[(g, s, k)] = f"x_{g}_{s}_{k}"
    return out


def _witness(arity: Arity, found: list[tuple[int, int, int]], mode: str, obs: list[Obligation]) -> RuleResult:
    left: dict[int, tuple[list[int], list[int]]] = {}
    for g, s, k in sorted(found):
        left.setdefault(g, ([], []))[s].append(k)
    listed: list[tuple[Member, list[int], list[int]]] = []
    for g, (ins, outs) in left.items():
        listed.extend((mb, ins, outs) for mb in arity.members[g])
    listed.sort(key=lambda x: (x[0].path, x[0].at))
    ops = Offenders()
    ops.add(
        len(listed),
        (
            {
                **op_ref(mb.path, mb.at, mb),
                "signature": mb.signature.origin,
                "inputs_left_out": [{"position": k, "formal": mb.signature.inputs.formal(k)} for k in ins],
                "outputs_left_out": [{"position": k, "formal": mb.signature.outputs.formal(k)} for k in outs],
            }
            for mb, ins, outs in listed
        ),
    )
    # worded by the direct rule's listing, so that both engines' summaries read alike
    shown = brief([LISTING.show(x) for x in ops.listed], LISTING.keep or 5, ops.count)
    return RuleResult(
        violated(
            ID,
            f"{ops.count} {LISTING.what}: {shown}",
            {"count": ops.count, LISTING.key: ops.listed, "unknown_count": sum(arity.unknown.values())},
            mode,
        ),
        obs,
    )


def prove(ctx: ProofContext) -> Proof:
    model, settings, mode = ctx.model, ctx.settings, ctx.mode
    arity = arity_facts(model, ctx.declarations)
    ob = search_obligation(arity, mode)
    ans = yield from ask_one(ob, local=True)
    done = settled(ID, ob, ans, mode)
    if done is not None and done.verdict.status is Status.PROVED and arity.unknown:
        reasons = brief(counted_reasons(arity.unknown), 3)
        return RuleResult(unknown(ID, f"{UNKNOWN_SIGNATURE}: {reasons}", mode), [ob])
    if done is not None:
        return done
    guards = _candidates(arity)
    lines = [f"(declare-fun {x} () Bool)\n(assert (=> {x} (not (and (= w {g}) (= s {s}) (= p {k})))))"
             for (g, s, k), x in guards.items()]
    session = Session(ob.script() + "\n".join(lines), settings)
    found: list[tuple[int, int, int]] = []
    a = ans
    while a.result == "sat":
        vals: dict[str, Any] = model_values(a, ["w", "s", "p"])
        key = (vals.get("w"), vals.get("s"), vals.get("p"))
        if key not in guards or key in found:
            return RuleResult(
                unknown(ID, "the model of the violation names no new position (a tool defect)", mode), [ob]
            )
        found.append(key)
        a = session.check([guards[x] for x in found])
    if a.result == "unknown":
        return RuleResult(unknown(ID, a.reason, mode), [ob])
    return _witness(arity, found, mode, [ob])


ENCODING = Encoding(ID, prove)
"""GRAPH-ARITY in the table of :mod:`sonnx.smt.registry`."""
