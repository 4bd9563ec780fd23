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

The checks are held as integer arrays (a template number and the numbers it
writes per check, the ids it reads, one membership flag per id), and each
part's text is written from them when the part is made. A million-operation
model has millions of checks and units; as Python strings, tuples and a dict
they took gigabytes in the checking process, where the arrays take tens of
megabytes, and the text written is the same.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import common
from .arrays import I64, as_np, first_rows, lines
from .common import Asking, RuleResult, ask, conj, rejected, unknown
from .facts import ScopeFacts
from .smtlib import Obligation

OP, TENSOR = 0, 1
"""The kind of an id whose set a unit fixes; an id is coded as ``2 * id + kind`` (:func:`key`)."""

NONE = -1
"""No id (a check that reads fewer ids than the widest one)."""


def key(kind: int, ids: np.ndarray | array) -> np.ndarray:
    """The codes of ``ids`` of one kind (:data:`OP` or :data:`TENSOR`)."""
    return 2 * as_np(ids) + kind


@dataclass
class Checks:
    """A counter-certificate: definitions, the sets' members, the unit order and the checks as arrays.

    ``sets`` names the operation set and the tensor set (empty: the
    certificate has no set of that kind); ``members`` holds one flag per
    global operation id and per global tensor id. ``order`` lists the coded
    ids (:func:`key`) whose units a single-part obligation asserts, in order.
    Check ``i`` is ``templates[kind[i]]`` filled with the row ``args[i]`` (a
    template uses the first numbers of the row), and reads the coded ids
    ``needs[i]`` (:data:`NONE` when it reads fewer).
    """

    head: list[str]
    sets: tuple[str, str]
    members: tuple[np.ndarray, np.ndarray]
    order: np.ndarray
    templates: list[str]
    kind: np.ndarray
    args: np.ndarray
    needs: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)

    def units(self, codes: np.ndarray) -> list[str]:
        """The unit of each coded id, in the given order: ``(set id)`` for a member, ``(not (set id))`` otherwise."""
        ids, kinds = codes >> 1, codes & 1
        inside = np.zeros(len(codes), bool)
        for k in (OP, TENSOR):
            at = kinds == k
            inside[at] = self.members[k][ids[at]]
        variant = 2 * kinds + (~inside).astype(I64)
        op_set, tensor_set = self.sets
        forms = [f"({op_set} {{}})", f"(not ({op_set} {{}}))", f"({tensor_set} {{}})", f"(not ({tensor_set} {{}}))"]
        return mixed_lines(forms, variant, ids)

    def terms(self, lo: int, hi: int) -> list[str]:
        """The text of checks ``lo`` to ``hi - 1``."""
        rows = self.args[lo:hi]
        return mixed_lines(self.templates, self.kind[lo:hi], *(rows[:, c] for c in range(rows.shape[1])))

    def read(self, lo: int, hi: int) -> np.ndarray:
        """The coded ids checks ``lo`` to ``hi - 1`` read, each once, in the order they first occur."""
        flat = self.needs[lo:hi].reshape(-1)
        flat = flat[flat != NONE]
        return flat[first_rows(flat)]


def mixed_lines(templates: Sequence[str], kind: np.ndarray, *cols: np.ndarray) -> list[str]:
    """Row ``i`` written with ``templates[kind[i]]`` (each template reads the first columns it needs), in row order."""
    out = np.empty(len(kind), dtype=object)
    for k, template in enumerate(templates):
        at = np.flatnonzero(kind == k)
        if at.size:
            out[at] = lines(template, *(c[at] for c in cols))
    return list(out)


@dataclass
class Builder:
    """Collects the checks of a counter-certificate in blocks of rows, then makes its :class:`Checks`."""

    templates: list[str]
    width: int
    kinds: list[np.ndarray] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)
    reads: list[np.ndarray] = field(default_factory=list)

    def add(self, kind: int | np.ndarray, args: Sequence[np.ndarray], needs: Sequence[np.ndarray]) -> None:
        """Checks of one block: their template number(s), the columns they write and the coded ids they read."""
        n = len(args[0])
        cols = [as_np(a) for a in args] + [np.zeros(n, I64)] * (self.width - len(args))
        self.kinds.append(np.broadcast_to(np.asarray(kind, dtype=I64), (n,)).astype(I64))
        self.rows.append(np.stack(cols, axis=1) if n else np.zeros((0, self.width), I64))
        self.reads.append(np.stack([as_np(x) for x in needs] + [np.full(n, NONE, I64)] * (2 - len(needs)), axis=1))

    def checks(
        self, head: list[str], sets: tuple[str, str], members: tuple[np.ndarray, np.ndarray], order: np.ndarray
    ) -> Checks:
        def cat(xs: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
            return np.concatenate(xs) if xs else np.zeros(shape, I64)

        kind, args, needs = cat(self.kinds, (0,)), cat(self.rows, (0, self.width)), cat(self.reads, (0, 2))
        return Checks(head, sets, members, order, self.templates, kind, args, needs)


def sizes(facts: Sequence[ScopeFacts]) -> tuple[int, int]:
    """The number of global operation ids and of global tensor ids of ``facts``."""
    last = facts[-1] if facts else None
    return (0, 0) if last is None else (last.op_base + last.n, last.t_base + last.n_tensors)


WR, RD, GO = 0, 1, 2
CLOSED = ["(wr {} {} {})", "(rd {} {} {})", "(go {} {} {})"]
"""The checks of a closed set: every write, read and graph-output fact (their meaning is the caller's)."""


def closed_set(facts: Sequence[ScopeFacts], listed: dict[int, list[int]], op_set: str, tensor_set: str) -> Checks:
    """Units and checks of a closed-set counter-certificate (GRAPH-R1's dead list, GRAPH-R1-TRANSITIVE's idle list).

    Units fix the uninterpreted ``op_set`` to the listed operations (scope
    index -> operation indices) and ``tensor_set`` to the tensors they write,
    for every id; the checks are every write, read and graph-output fact, as
    ``wr``, ``rd`` and ``go`` applications whose meaning the caller defines
    (in :attr:`Checks.head`, which the caller fills).
    """
    n_ops, n_tensors = sizes(facts)
    in_ops, in_tensors = np.zeros(n_ops, bool), np.zeros(n_tensors, bool)
    build = Builder(CLOSED, 3)
    order: list[np.ndarray] = []
    for f in facts:
        in_ops[as_np(listed.get(f.index, [])) + f.op_base] = True
        wr_o, wr_t = as_np(f.wr_o), as_np(f.wr_t)
        in_tensors[wr_t[in_ops[wr_o]]] = True
        order.append(key(OP, np.arange(f.op_base, f.op_base + f.n)))
        order.append(key(TENSOR, np.arange(f.t_base, f.t_base + f.n_tensors)))
        for kind, (o, k, t) in ((WR, (wr_o, f.wr_k, wr_t)), (RD, (f.rd_o, f.rd_k, f.rd_t))):
            build.add(kind, [as_np(o), as_np(k), as_np(t)], [key(OP, o), key(TENSOR, t)])
        outs = as_np([x for pair in f.outputs for x in pair]).reshape(-1, 2)
        build.add(GO, [np.full(len(outs), f.index, I64), outs[:, 0], outs[:, 1]], [key(TENSOR, outs[:, 1])])
    codes = np.concatenate(order) if order else np.zeros(0, I64)
    return build.checks([], (op_set, tensor_set), (in_ops, in_tensors), codes)


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
    size = common.PART
    n = max(1, -(-len(checks) // size))
    parts: list[Obligation] = []
    for k in range(n):
        lo, hi = k * size, min(len(checks), (k + 1) * size)
        units = checks.units(checks.order if n == 1 else checks.read(lo, hi))
        body = [*checks.head, *conj(units), f"(assert (not (and {' '.join(checks.terms(lo, hi))} true)))"]
        tag, what_k = (name, meaning) if n == 1 else (f"{name}.part{k}", f"{meaning} (part {k + 1} of {n})")
        parts.append(Obligation(rule_id, tag, "QF_UFLIA", body, "sat", "certificate", what_k))
    del checks  # only the parts' text is needed from here on, while the solver works
    answers = yield from ask(parts)
    obs.extend(parts)
    for ans in answers:
        if ans.result == "unknown":
            return RuleResult(unknown(rule_id, ans.reason, mode), obs)
    for ob, ans in zip(parts, answers, strict=True):
        if ans.result != "unsat" or not accept:
            return RuleResult(rejected(rule_id, ob, what, mode).verdict, obs)
    return None
