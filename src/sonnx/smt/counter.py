"""Counter-certificates as refutations: units that fix the claimed sets, and every check, refuted in parts.

A counter-certificate (GRAPH-C3's never-defined set, GRAPH-R1's dead list,
GRAPH-R1-TRANSITIVE's idle list) gives uninterpreted sets as units for every
id, and checks over them, one per raw fact; the obligation asserts the
units and that some check fails, and ``unsat`` confirms that every check
holds. Each check only reads the sets at the ids it mentions, and the units
fix those, so the checks can be refuted part by part: above
:data:`.common.PART` checks, each part holds the units of the ids its checks
mention and asserts that one of its checks fails. Every part ``unsat`` is
the whole ``unsat``: a model of the whole's negation satisfies the part that
holds the failing check, and a model of a part's negation extends to the
whole by the units of the other ids, which the part leaves free. Parts are
solved in parallel, and z3's memory is that of one part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import common
from .common import Asking, RuleResult, ask, conj, rejected, unknown
from .facts import ScopeFacts
from .smtlib import Obligation

Key = tuple[str, int]
"""An id whose sets a unit fixes: ``("o", operation id)`` or ``("t", tensor id)``."""


@dataclass
class Checks:
    """A counter-certificate: definitions, the unit of every id (in order), and the checks with the ids they read."""

    head: list[str]
    units: dict[Key, str]
    terms: list[str]
    needs: list[tuple[Key, ...]]


def closed_set(facts: Sequence[ScopeFacts], listed: dict[int, list[int]], op_set: str, tensor_set: str) -> Checks:
    """Units and checks of a closed-set counter-certificate (GRAPH-R1's dead list, GRAPH-R1-TRANSITIVE's idle list).

    Units fix the uninterpreted ``op_set`` to the listed operations (scope
    index -> operation indices) and ``tensor_set`` to the tensors they write,
    for every id; the checks are every write, read and graph-output fact, as
    ``wr``, ``rd`` and ``go`` applications whose meaning the caller defines
    (in :attr:`Checks.head`, which the caller fills).
    """
    units: dict[Key, str] = {}
    terms: list[str] = []
    needs: list[tuple[Key, ...]] = []
    for f in facts:
        ops = {f.op_base + j for j in listed.get(f.index, [])}
        written = {t for o, _, t in f.writes() if o in ops}
        for o in range(f.op_base, f.op_base + f.n):
            units["o", o] = f"({op_set} {o})" if o in ops else f"(not ({op_set} {o}))"
        for t in range(f.t_base, f.t_base + f.n_tensors):
            units["t", t] = f"({tensor_set} {t})" if t in written else f"(not ({tensor_set} {t}))"
        for kind, fs in (("wr", f.writes()), ("rd", f.reads())):
            for o, k, t in fs:
                terms.append(f"({kind} {o} {k} {t})")
                needs.append((("o", o), ("t", t)))
        for k, t in f.outputs:
            terms.append(f"(go {f.index} {k} {t})")
            needs.append((("t", t),))
    return Checks([], units, terms, needs)


def refute(
    rule_id: str,
    name: str,
    checks: Checks,
    meaning: str,
    what: str,
    mode: str,
    obs: list[Obligation],
    accept: bool = True,
) -> Asking[RuleResult | None]:
    """Have the solver refute a counter-certificate's checks; None when it does (``unsat``) and ``accept`` holds.

    Otherwise the verdict to return: UNKNOWN with z3's reason (the first such
    part), or the counter-certificate rejected (UNKNOWN, a tool defect). The
    obligations (``name``, or ``name.part<k>``) are appended to ``obs`` either way.
    """
    terms, size = checks.terms, common.PART
    n = max(1, -(-len(terms) // size))
    parts: list[Obligation] = []
    for k in range(n):
        chunk = slice(k * size, (k + 1) * size)
        if n == 1:
            units = list(checks.units.values())
        else:
            keys = dict.fromkeys(key for need in checks.needs[chunk] for key in need)
            units = [checks.units[key] for key in keys]
        body = [*checks.head, *conj(units), f"(assert (not (and {' '.join(terms[chunk])} true)))"]
        tag, what_k = (name, meaning) if n == 1 else (f"{name}.part{k}", f"{meaning} (part {k + 1} of {n})")
        parts.append(Obligation(rule_id, tag, "QF_UFLIA", body, "sat", "certificate", what_k))
    answers = yield from ask(parts)
    obs.extend(parts)
    for ans in answers:
        if ans.result == "unknown":
            return RuleResult(unknown(rule_id, ans.reason, mode), obs)
    for ob, ans in zip(parts, answers, strict=True):
        if ans.result != "unsat" or not accept:
            return RuleResult(rejected(rule_id, ob, what, mode).verdict, obs)
    return None
