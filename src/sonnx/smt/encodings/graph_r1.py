"""GRAPH-R1 as SMT: every operation writes a tensor that is read or is a graph output.

The rule's violation as a formula over the raw facts: an unknown operation
``w`` (a disjunction over the operation facts) such that every write fact of
``w`` writes a tensor ``t`` with ``U(t)`` false, where every read fact and
every graph-output fact asserts ``U`` of its tensor. ``U`` is only forced
true, so the formula is satisfiable exactly when some operation has no output
that is read (implicit inputs of nested graphs included) or a graph output; an
operation without outputs is dead. The solver does the join between writes and
reads through ``U``. Python only lists the facts.

* search mode: unsat = PROVED; sat = VIOLATED (``w`` is a dead operation).
* certificate mode: an untrusted search names, for every operation, one of
  its write facts and a read fact or graph-output fact of the same tensor;
  the claim is the ground equality of the two tensor ids, and z3 evaluates
  every one; sat = PROVED. GRAPH-R1-TRANSITIVE's certificate names such a
  use for every operation too and writes its equalities alike
  (``uses_body``), and GRAPH-C3's the equalities of the writes that
  define tensors (:mod:`sonnx.smt.ground`): when they name the same
  tensors, the texts are the same and z3 solves it once (the engine's
  scheduler sends a script once).
* the witness list, both modes (no fallback to search): an untrusted search
  lists the dead operations; the counter-certificate gives units ``Dd`` (the
  listed operations) and ``X`` (the tensors they write) for every id, and
  checks that no read or graph-output fact's tensor is in ``X`` and every
  write of a listed operation is in ``X``. Written as a refutation: unsat =
  every listed operation is dead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...rules import graph_r1 as direct
from ...rules.graph_r1 import ID
from .. import ground
from ..arrays import I64, as_np
from ..certify import OUTPUT, READ, Uses, index_of, uses
from ..common import (
    Encoding,
    Proof,
    ProofContext,
    RuleResult,
    ask_one,
    certificate_verdict,
    facts_lines,
    listed,
    or_all,
    settled,
    unknown,
)
from ..counter import Checks, closed_set, refute
from ..facts import ScopeFacts
from ..smtlib import Obligation
from ..solver import model_values

NOTE = (
    "; raw facts: (op o) operation o exists; (wr o k t) o writes t at output k; (rd o k t) o reads t at input k;"
    " (go s k t) t is output k of graph s"
)


def op_facts(facts: Sequence[ScopeFacts]) -> list[str]:
    return [f"(op {o})" for f in facts for o in range(f.op_base, f.op_base + f.n)]


def use_facts(facts: Sequence[ScopeFacts]) -> list[str]:
    out: list[str] = []
    for f in facts:
        out.extend(f"(wr {o} {k} {t})" for o, k, t in f.writes())
        out.extend(f"(rd {o} {k} {t})" for o, k, t in f.reads())
        out.extend(f"(go {f.index} {k} {t})" for k, t in f.outputs)
    return out


def search_obligation(facts: Sequence[ScopeFacts]) -> Obligation:
    body = [
        NOTE,
        "; rule (violation): w is an operation whose every written tensor t has U(t) false; U(t): t is read or output",
        "(declare-fun w () Int)",
        "(declare-fun U (Int) Bool)",
        "(define-fun op ((o Int)) Bool (= w o))",
        "(define-fun wr ((o Int) (k Int) (t Int)) Bool (=> (= w o) (not (U t))))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (U t))",
        "(define-fun go ((s Int) (k Int) (t Int)) Bool (U t))",
        f"(assert {or_all(op_facts(facts))})",
        *facts_lines(use_facts(facts)),
    ]
    return Obligation(
        ID,
        "r1.dead_operation",
        "QF_UFLIA",
        body,
        "unsat",
        "search",
        "some operation writes no tensor that a read fact reads or that is a graph output",
    )


def named_uses(f: ScopeFacts, c: Uses) -> tuple[np.ndarray, np.ndarray]:
    """Per operation (in order) the tensor of its named write fact and of the named read or output fact.

    A missing record, or a write fact of another operation, makes the certificate unusable (KeyError).
    """
    ix = index_of(f)
    kind, wfact, other = (as_np(x) for x in (c.kind, c.wfact, c.other))
    ops = np.arange(f.n)
    bad = (kind != READ) & (kind != OUTPUT)
    bad |= (wfact < ix.wr_ptr[ops]) | (wfact >= ix.wr_ptr[ops + 1])
    if bad.any():
        raise KeyError(int(np.flatnonzero(bad)[0]))
    read = kind == READ
    used = np.zeros(f.n, I64)
    used[read] = as_np(f.rd_t)[other[read]]
    used[~read] = as_np([t for _, t in f.outputs])[other[~read]]
    return as_np(f.wr_t)[wfact], used


def uses_body(facts: Sequence[ScopeFacts], cert: Mapping[int, Uses]) -> list[str]:
    """Per operation: its named write's tensor equals the named fact's (:func:`.ground.equalities`)."""
    pairs = [named_uses(f, cert[f.index]) for f in facts]
    written, used = (np.concatenate(c) if c else np.zeros(0, I64) for c in zip(*pairs, strict=True))
    return ground.equalities(written, used)


def certificate_body(facts: Sequence[ScopeFacts], cert: dict[int, Uses]) -> tuple[list[str], list[str]]:
    return list(ground.EQUALITY_HEAD), uses_body(facts, cert)


def dead_body(facts: Sequence[ScopeFacts], dead: dict[int, list[int]]) -> Checks:
    checks = closed_set(facts, dead, "Dd", "X")
    checks.head = [
        NOTE,
        "; counter-certificate from an untrusted search: Dd (the listed operations) and X (the tensors they write),",
        ";   units for every id; checks: a write of a listed operation is in X, no read or graph output is in X.",
        ";   Refutation: unsat = every listed operation is dead",
        "(declare-fun Dd (Int) Bool)",
        "(declare-fun X (Int) Bool)",
        "(define-fun wr ((o Int) (k Int) (t Int)) Bool (=> (Dd o) (X t)))",
        "(define-fun rd ((o Int) (k Int) (t Int)) Bool (not (X t)))",
        "(define-fun go ((s Int) (k Int) (t Int)) Bool (not (X t)))",
    ]
    return checks


def _dead(facts: Sequence[ScopeFacts], mode: str, obs: list[Obligation], seen: int | None = None) -> Proof:
    """Verify the untrusted list of dead operations; ``seen`` is the one the search model showed (must be listed)."""
    dead: dict[int, list[int]] = {}
    for f in facts:
        _, d = uses(f, index_of(f))
        if d:
            dead[f.index] = d
    if seen is not None and not any(seen - f.op_base in dead.get(f.index, []) for f in facts):
        return RuleResult(
            unknown(ID, "the search model's dead operation is not in the list (a tool defect)", mode), obs
        )
    failed = yield from refute(
        ID,
        "r1.dead",
        dead_body(facts, dead),
        "the listed operations fail a check (unsat: each writes nothing that is read or a graph output)",
        "list of dead operations",
        mode,
        obs,
        accept=bool(dead),
    )
    if failed is not None:
        return failed
    found: list[dict[str, Any]] = []
    for f in facts:
        ops = f.graph.operations
        found.extend(direct.dead_entry(f.path, j, ops[j]) for j in dead.get(f.index, []))
    return listed(ID, found, direct.LISTING, mode, obs)


def prove(ctx: ProofContext) -> Proof:
    facts, mode = ctx.facts, ctx.mode
    if mode == "certificate":
        cert: dict[int, Uses] = {}
        for f in facts:
            found, dead = uses(f, index_of(f))
            if dead:
                return (yield from _dead(facts, mode, []))
            cert[f.index] = found
        return (yield from check_certificate(facts, cert))
    ob = search_obligation(facts)
    ans = yield from ask_one(ob, local=True)
    done = settled(ID, ob, ans, mode)
    if done is not None:
        return done
    w = model_values(ans, ["w"]).get("w")
    return (yield from _dead(facts, mode, [ob], w if isinstance(w, int) else -1))


def check_certificate(facts: Sequence[ScopeFacts], cert: dict[int, Uses]) -> Proof:
    return certificate_verdict(
        ID,
        "r1.certificate",
        lambda: certificate_body(facts, cert),
        "every operation has a write fact whose tensor is that of the named read or graph-output fact",
        "use certificate",
        missing="the use certificate names no write of operation",
    )


ENCODING = Encoding(ID, prove)
"""GRAPH-R1 in the table of :mod:`sonnx.smt.registry`."""
